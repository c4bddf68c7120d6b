"""Reading an uploaded bot archive as hostile input (issue 44): a .tar.gz, a .tar or a .zip, told
by its first bytes, never by its file name, and read entry by entry in bounded chunks while a
`Budget` counts what was read and what it unpacked to, so that a bomb is stopped as it is read.
What an entry is called and where it lands is checked by `intake.py`, which writes the files;
this module only reads, and turns every error of the readers into an `ArchiveRefused` sentence.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from functools import partial
from typing import BinaryIO, Callable, Iterator, Protocol

from arena.errors import ArenaError
from arena.wording import quoted

MIB = 1 << 20
_CHUNK_BYTES = 64 * 1024  # what one read asks of a reader, and the most a file is written at once
# Archive bytes are counted as the decompressor takes them, before it unpacks them: small takes
# keep a bomb's unpacked bytes close to what the ratio allows.
_RAW_CHUNK_BYTES = 16 * 1024
_TAR_BLOCK = 512
# A tar stream holds more than its files: headers, long names, padding. Per entry, beyond its data.
_TAR_OVERHEAD_BYTES = 4 * 1024
# What one entry's headers may take (its path's parts at their longest, a link's target, pax
# records): the tar reader reads a long name or a pax header whole, so it is bounded here.
MAX_HEADER_BYTES = 64 * 1024
_SHOWN_CHARS = 120  # of an entry's name, in a refusal


@dataclass(frozen=True, slots=True)
class IntakeLimits:
    """What one uploaded archive may hold (docs/sandbox.md, "Uploaded archives"); the server's
    organiser may lower or raise them, the defaults suit a bot of a class or a club."""

    max_archive_bytes: int = 20 * MIB  # the upload itself
    max_unpacked_bytes: int = 100 * MIB  # all its files together, unpacked
    max_file_bytes: int = 50 * MIB  # one file, unpacked
    max_entries: int = 2_000  # files and folders (and what is refused) of the archive
    max_depth: int = 20  # parts of an entry's path, its own name included
    max_name_part_bytes: int = 255  # one part of a path, in UTF-8 (Linux's NAME_MAX)
    # Unpacked bytes may never pass max_ratio times the archive bytes read so far, plus the
    # allowance: a bomb stops within a few MiB, a bot with a table of zeros still unpacks.
    max_ratio: int = 200
    ratio_allowance_bytes: int = 1 * MIB


class ArchiveRefused(ArenaError):
    """An upload the arena will not unpack; `reason` is one sentence that names the entry (or the
    archive) and the problem, for the author."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def entry_words(name: str) -> str:
    """An entry as a refusal names it: quoted, its control characters shown as escapes."""
    return f"entry '{quoted(name, _SHOWN_CHARS)}'"


def size_words(n: int) -> str:
    """A size for people: '20 MiB', '1.3 MiB', '612 KiB', '97 bytes'."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:.0f} {unit}" if n % (1 << shift) == 0 else f"{value:.1f} {unit}"
    return f"{n} bytes"


class Budget:
    """What one archive has cost so far: its bytes read (`archive_bytes`), the tar stream they
    unpacked to (`stream_bytes`, headers included) and the files written (`written_bytes`). Each
    count is checked as it grows; `entry` (the one being read) or `after` (the last one read) say
    where a refusal happened."""

    def __init__(self, limits: IntakeLimits) -> None:
        self.limits = limits
        self.archive_bytes = self.stream_bytes = self.written_bytes = 0
        self.entry = self.after = ""
        self.header_from: int | None = None  # stream_bytes when the next entry's headers began

    def where(self) -> str:
        if self.entry:
            return entry_words(self.entry)
        return f"the archive, after {entry_words(self.after)}" if self.after else "the archive"

    def read_archive(self, n: int) -> None:
        self.archive_bytes += n

    def read_stream(self, n: int) -> None:
        self.stream_bytes += n
        cap = self.limits.max_unpacked_bytes + self.limits.max_entries * _TAR_OVERHEAD_BYTES
        if self.stream_bytes > cap:
            raise ArchiveRefused(f"{self.where()}: the archive unpacks to more than {size_words(cap)} with its "
                                 f"headers; its files may hold at most {size_words(self.limits.max_unpacked_bytes)}")
        if self.header_from is not None and self.stream_bytes - self.header_from > MAX_HEADER_BYTES:
            raise ArchiveRefused(f"{self.where()}: the next entry's headers (its name, a long name or pax "
                                 f"records) take more than {size_words(MAX_HEADER_BYTES)}")
        self._check_ratio(self.stream_bytes)

    def wrote(self, n: int) -> None:
        self.written_bytes += n
        if self.written_bytes > self.limits.max_unpacked_bytes:
            raise ArchiveRefused(f"{self.where()}: the files unpack to more than "
                                 f"{size_words(self.limits.max_unpacked_bytes)}; an upload may hold at most that")
        self._check_ratio(self.written_bytes)

    def _check_ratio(self, unpacked: int) -> None:
        limits = self.limits
        if unpacked > limits.max_ratio * self.archive_bytes + limits.ratio_allowance_bytes:
            raise ArchiveRefused(
                f"{self.where()}: {size_words(self.archive_bytes)} of the archive unpacked to more than "
                f"{size_words(unpacked - 1)}, over {limits.max_ratio} times as much (beyond the first "
                f"{size_words(limits.ratio_allowance_bytes)}); stopped as a compression bomb")


@dataclass(frozen=True, slots=True)
class Member:
    """One entry of an archive as its reader gives it, before any check of its name."""

    name: str  # as the archive spells it; bytes that are not UTF-8 as surrogate escapes
    kind: str  # "file", "dir", or what else it is in words ("a symbolic link to '/etc/passwd'")
    size: int  # a file's bytes, as the archive declares them
    executable: bool  # the owner's execute bit was set
    chunks: Callable[[], Iterator[bytes]]  # a file's data, in chunks of at most _CHUNK_BYTES


class _Reader(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


# What the readers raise for an archive they cannot read: damaged, cut short, of a kind they lack.
_READ_ERRORS = (tarfile.TarError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error,
                gzip.BadGzipFile, NotImplementedError, RuntimeError, UnicodeDecodeError, ValueError)


def _unreadable(where: str, exc: BaseException) -> ArchiveRefused:
    detail = str(exc) or type(exc).__name__
    return ArchiveRefused(f"{where}: cannot read the archive ({detail}); it may be damaged or cut short")


class _Counted:
    """A reader that hands out at most `chunk_bytes` a call, `head` first, and counts them."""

    def __init__(self, inner: _Reader, count: Callable[[int], None], head: bytes = b"",
                 chunk_bytes: int = _CHUNK_BYTES) -> None:
        self._inner, self._count, self._head, self._chunk_bytes = inner, count, head, chunk_bytes

    def read(self, size: int = -1, /) -> bytes:
        want = self._chunk_bytes if size is None or size < 0 else min(size, self._chunk_bytes)
        if self._head:
            data, self._head = self._head[:want], self._head[want:]
            return data  # counted when first read
        data = self._inner.read(want)
        self._count(len(data))
        return data

    # A stream read once, forward: what the readers' file protocol names beside read is refused.
    def seek(self, pos: int, /) -> int:
        raise io.UnsupportedOperation("an upload's stream is read once, forward")

    def tell(self) -> int:
        raise io.UnsupportedOperation("an upload's stream is read once, forward")

    def write(self, data: bytes, /) -> int:
        raise io.UnsupportedOperation("an upload's stream is read only")

    def close(self) -> None:
        """The file below is closed by whoever opened it."""


def _read_exact(reader: _Reader, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = reader.read(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def read_members(file: BinaryIO, limits: IntakeLimits, budget: Budget) -> Iterator[Member]:
    """The entries of the archive open in `file` (a regular file, at its start), in archive order.
    ArchiveRefused for an upload too large, of another format, empty, or that cannot be read."""
    info = os.fstat(file.fileno())
    if not stat.S_ISREG(info.st_mode):
        raise ArchiveRefused("the upload is not a file")
    if info.st_size > limits.max_archive_bytes:
        raise ArchiveRefused(f"the archive is {size_words(info.st_size)}; an upload may be at most "
                             f"{size_words(limits.max_archive_bytes)}")
    head = os.pread(file.fileno(), _TAR_BLOCK, 0)
    if not head:
        raise ArchiveRefused("the upload is empty (0 bytes); send a .tar.gz or .zip of the bot's folder")
    raw = _Counted(file, budget.read_archive, chunk_bytes=_RAW_CHUNK_BYTES)
    if head[:2] == b"\x1f\x8b":
        yield from _tar_members(_Counted(gzip.GzipFile(fileobj=raw, mode="rb"), budget.read_stream), "gzip", budget)
    elif head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        yield from _zip_members(file, info.st_size, limits, budget)
    elif head[257:262] == b"ustar":
        yield from _tar_members(_Counted(raw, budget.read_stream), "tar", budget)
    else:
        raise ArchiveRefused("the upload is not a .tar.gz, .tar or .zip archive (its first bytes are none of "
                             "theirs); send a .tar.gz or .zip of the bot's folder")


def _tar_members(stream: _Counted, kind: str, budget: Budget) -> Iterator[Member]:
    try:
        head = _read_exact(stream, _TAR_BLOCK)
    except _READ_ERRORS as exc:
        raise _unreadable(f"the {kind}", exc) from None
    if not head.strip(b"\0"):
        raise ArchiveRefused("the archive is empty: it holds no files")
    if head[257:262] != b"ustar":
        raise ArchiveRefused(f"the {kind} holds no tar archive; send a .tar.gz or .zip of the bot's folder")
    try:
        tar = tarfile.open(fileobj=_Counted(stream, lambda n: None, head), mode="r|",
                           encoding="utf-8", errors="surrogateescape")
    except _READ_ERRORS as exc:
        raise _unreadable("the archive", exc) from None
    while True:
        budget.header_from = budget.stream_bytes
        try:
            member = tar.next()
        except _READ_ERRORS as exc:
            raise _unreadable(budget.where(), exc) from None
        budget.header_from = None
        if member is None:
            return
        yield Member(member.name, _tar_kind(member), member.size, bool(member.mode & stat.S_IXUSR),
                     partial(_tar_chunks, tar, member))


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.isreg():
        return "file"
    if member.isdir():
        return "dir"
    if member.issym():
        return f"a symbolic link (to '{quoted(member.linkname, _SHOWN_CHARS)}')"
    if member.islnk():
        return f"a hard link (to '{quoted(member.linkname, _SHOWN_CHARS)}')"
    for test, words in ((member.ischr, "a character device"), (member.isblk, "a block device"),
                        (member.isfifo, "a FIFO")):
        if test():
            return words
    return f"an entry of tar type {member.type!r}"


def _tar_chunks(tar: tarfile.TarFile, member: tarfile.TarInfo) -> Iterator[bytes]:
    try:
        data = tar.extractfile(member)
        if data is None:
            raise ArchiveRefused(f"{entry_words(member.name)}: its data cannot be read")
        while chunk := data.read(_CHUNK_BYTES):
            yield chunk
    except _READ_ERRORS as exc:
        raise _unreadable(entry_words(member.name), exc) from None


def _zip_members(file: BinaryIO, archive_bytes: int, limits: IntakeLimits, budget: Budget) -> Iterator[Member]:
    try:
        archive = zipfile.ZipFile(file)
        infos = archive.infolist()
    except UnicodeDecodeError:  # a name flagged as UTF-8 that is not
        raise ArchiveRefused("the zip: an entry's name is not UTF-8 text, though flagged as such") from None
    except _READ_ERRORS as exc:
        raise _unreadable("the zip", exc) from None
    if len(infos) > limits.max_entries:
        raise ArchiveRefused(f"the archive holds {len(infos):,} entries; an upload may hold at most "
                             f"{limits.max_entries:,}")
    # Entries that share their data (a zip bomb's trick) declare more than the archive holds.
    if sum(info.compress_size for info in infos) > archive_bytes:
        raise ArchiveRefused("the archive's entries overlap or declare more data than it holds; "
                             "make the zip again with an ordinary tool")
    for info in infos:
        name = _zip_name(info)
        mode = info.external_attr >> 16
        yield Member(name, _zip_kind(info, mode), info.file_size, bool(mode & stat.S_IXUSR),
                     partial(_zip_chunks, archive, info, budget))


def _zip_name(info: zipfile.ZipInfo) -> str:
    """The name as written (NUL included), as UTF-8: a zip without the UTF-8 flag was decoded as
    code page 437, which most tools write UTF-8 names under anyway."""
    if info.flag_bits & 0x800:
        return info.orig_filename
    return info.orig_filename.encode("cp437").decode("utf-8", errors="surrogateescape")


def _zip_kind(info: zipfile.ZipInfo, mode: int) -> str:
    if info.flag_bits & 0x1:
        return "an encrypted file"
    for test, words in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISCHR, "a character device"),
                        (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "dir" if stat.S_ISDIR(mode) or info.orig_filename.endswith("/") else "file"


def _zip_chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: Budget) -> Iterator[bytes]:
    """A zip entry's data: its compressed bytes count as read before it unpacks, and the reader
    never returns more than its declared size."""
    budget.read_archive(info.compress_size)
    try:
        with archive.open(info) as data:
            while chunk := data.read(_CHUNK_BYTES):
                yield chunk
    except _READ_ERRORS as exc:
        raise _unreadable(entry_words(_zip_name(info)), exc) from None


__all__ = ["IntakeLimits", "ArchiveRefused", "Budget", "Member", "read_members", "entry_words", "size_words", "MIB"]
