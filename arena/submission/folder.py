"""A bot's folder as hostile input (docs/sandbox.md, the threat model): the folder, its manifest and
every file in it come from a stranger. Reading them never follows a link out of the folder, never
opens a FIFO, socket or device, and reads with a bound; what cannot be taken is refused with one
sentence that names the file (`FolderError`), never a traceback or a hang.

`scan` lists a folder's entries (files, folders, links to its own files); `read_small` reads one
of the small files the arena reads whole (bot.toml, .gitignore, .check.json, key files);
`open_file` opens a file to read in chunks; `copy_entries` copies what `scan` listed, links as
links; `write_small` replaces a file without following a link where it stands.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from arena.errors import ArenaError
from arena.wording import quoted

# A file of a bot's folder larger than this is refused: its version is a hash of every byte, and
# a sparse file of 1 TB (96 KB on disk) once took the arena's memory.
MAX_FILE_BYTES = 1 << 30
MAX_TOTAL_BYTES = 4 << 30  # all of a folder's files together
MAX_ENTRIES = 100_000  # files, folders and links of one folder
SMALL_FILE_BYTES = 1 << 20  # what the arena reads whole: a manifest, a .gitignore, a check record, a key
_CHUNK_BYTES = 1 << 20
_SHOWN_CHARS = 80  # of a link's target, in a message
# Opening for reading never blocks on a FIFO, never follows a link in the last place, never makes
# a terminal ours.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_ONLY = "a bot's folder may hold only files, folders and links to its own files"


class ManifestError(ArenaError):
    """A bot that cannot be used as handed in (its manifest, a file of its folder, its build); the
    message names the file, the key and what was expected."""


class FolderError(ManifestError):
    """A file of a bot's folder the arena will not read: a link out of the folder, a FIFO, a socket,
    a device, a file too large, one it cannot read."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a bot's folder, by its path relative to the folder."""

    rel: str  # posix path, relative to the folder
    kind: str  # "file", "dir" or "link"
    size: int = 0  # bytes, of a file
    executable: bool = False  # a file with an execute bit
    target: str = ""  # what a link says, as written
    mtime_ns: int = 0


def kind_of(mode: int) -> str:
    """A file's type in words, for a refusal."""
    for test, words in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                        (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a link"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return words
    return "not a regular file"


def _cannot(path: Path | str, exc: OSError) -> FolderError:
    return FolderError(f"{path}: cannot read ({exc.strerror or exc})")


def open_file(path: Path | str, limit_bytes: int = MAX_FILE_BYTES) -> tuple[int, os.stat_result]:
    """A descriptor to read a regular file of a bot's folder, and its stat; FolderError for a
    link, a FIFO, a socket, a device, a file over `limit_bytes`, or one that cannot be opened."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        raise  # what a missing file means is the caller's to say
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # the last part is a link
            raise FolderError(f"{path}: a link; the arena reads it only as a file of the bot's own folder") from None
        if exc.errno == errno.ENXIO:  # a socket
            raise FolderError(f"{path}: not a regular file; {_ONLY}") from None
        raise _cannot(path, exc) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FolderError(f"{path}: {kind_of(info.st_mode)}; {_ONLY}")
        if info.st_size > limit_bytes:
            raise FolderError(f"{path}: {_size_words(info.st_size)}; such a file may be at most {_limit_words(limit_bytes)}")
        # Reads from here block as a regular file's do (O_NONBLOCK only kept open() from waiting).
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def read_small(path: Path | str, limit_bytes: int = SMALL_FILE_BYTES) -> bytes:
    """The whole of a small file of a bot's folder (bot.toml, .gitignore, a check record, a key),
    read with a bound; FolderError as `open_file` says. FileNotFoundError passes through, for the
    callers to which a missing file means something."""
    fd, _ = open_file(path, limit_bytes)
    try:
        data = b""
        while len(data) <= limit_bytes:
            chunk = os.read(fd, _CHUNK_BYTES)
            if not chunk:
                break
            data += chunk
    except OSError as exc:
        raise _cannot(path, exc) from None
    finally:
        os.close(fd)
    if len(data) > limit_bytes:  # it grew while read
        raise FolderError(f"{path}: more than {_limit_words(limit_bytes)}; such a file may be at most that")
    return data


def file_chunks(path: Path | str, limit_bytes: int = MAX_FILE_BYTES) -> Iterable[bytes]:
    """A regular file of a bot's folder in chunks, never more than `limit_bytes` in all."""
    try:
        fd, _ = open_file(path, limit_bytes)
    except FileNotFoundError as exc:
        raise _cannot(path, exc) from None  # listed a moment ago: gone since
    read = 0
    try:
        while True:
            try:
                chunk = os.read(fd, _CHUNK_BYTES)
            except OSError as exc:
                raise _cannot(path, exc) from None
            if not chunk:
                return
            read += len(chunk)
            if read > limit_bytes:
                raise FolderError(f"{path}: grew past {_limit_words(limit_bytes)} while read")
            yield chunk
    finally:
        os.close(fd)


def _size_words(n: int) -> str:
    """A size as measured: '1.0 GiB', '3.2 MiB'."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} bytes"


def _limit_words(n: int) -> str:
    """A bound as set: '1 GiB', '1 MiB'."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def inside(folder: Path | str, path: Path | str) -> bool:
    """Whether `path`, its links followed, is `folder` or lies in it (`folder` as resolved)."""
    real = os.path.realpath(path)
    root = os.path.realpath(folder)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def scan(folder: Path | str, ignored: Callable[[str, str, bool], bool] | None = None, *,
         strict: bool = True) -> list[Entry]:
    """The entries of `folder` (sorted by path) that `ignored(rel, name, is_dir)` keeps, without
    descending into ignored folders or following any link. `strict` (a folder handed in): a FIFO,
    socket or device, a link out of the folder, more than MAX_ENTRIES entries or MAX_TOTAL_BYTES of
    files is refused by FolderError naming it. Not strict (a folder the arena built): such entries
    are listed as what they are, never opened."""
    folder = Path(folder)
    root_real = os.path.realpath(folder)
    found: list[Entry] = []
    total = 0
    links: dict[tuple[int, int], tuple[int, list[str]]] = {}  # a file's inode -> (its links, its names here)
    pending = [""]
    while pending:
        rel_dir = pending.pop()
        where = folder / rel_dir if rel_dir else folder
        try:
            with os.scandir(where) as listing:
                items = sorted(listing, key=lambda item: item.name)
        except OSError as exc:
            raise _cannot(where, exc) from None
        for item in items:
            rel = f"{rel_dir}/{item.name}" if rel_dir else item.name
            try:
                info = item.stat(follow_symlinks=False)
            except OSError as exc:
                raise _cannot(folder / rel, exc) from None
            mode = info.st_mode
            is_dir = stat.S_ISDIR(mode)
            if ignored is not None and ignored(rel, item.name, is_dir):
                continue
            if len(found) >= MAX_ENTRIES:
                raise FolderError(f"{folder}: more than {MAX_ENTRIES:,} files and folders; a bot's folder may "
                                  "hold at most that many")
            if is_dir:
                found.append(Entry(rel, "dir", mtime_ns=info.st_mtime_ns))
                pending.append(rel)
            elif stat.S_ISREG(mode):
                if info.st_nlink > 1:
                    links.setdefault((info.st_dev, info.st_ino), (info.st_nlink, []))[1].append(rel)
                total += info.st_size
                if strict and info.st_size > MAX_FILE_BYTES:
                    raise FolderError(f"{folder / rel}: {_size_words(info.st_size)}; a bot's files may be at most "
                                      f"{_limit_words(MAX_FILE_BYTES)} each (its version is a hash of them all)")
                if strict and total > MAX_TOTAL_BYTES:
                    raise FolderError(f"{folder}: more than {_limit_words(MAX_TOTAL_BYTES)} of files; a bot's folder "
                                      "may hold at most that much")
                found.append(Entry(rel, "file", info.st_size, bool(mode & 0o111), mtime_ns=info.st_mtime_ns))
            elif stat.S_ISLNK(mode):
                try:
                    target = os.readlink(folder / rel)
                except OSError as exc:
                    raise _cannot(folder / rel, exc) from None
                if strict and not _link_inside(root_real, folder / rel):
                    raise FolderError(f"{folder / rel}: a link to {quoted(target, _SHOWN_CHARS)}, outside the bot's "
                                      f"folder; {_ONLY}")
                found.append(Entry(rel, "link", target=target))
            elif strict:
                raise FolderError(f"{folder / rel}: {kind_of(mode)}; {_ONLY}")
            else:
                found.append(Entry(rel, "special:" + kind_of(mode)))
    for nlink, names in links.values() if strict else ():
        if nlink > len(names):  # more names than the folder holds: another lies outside it
            raise FolderError(f"{folder / names[0]}: a hard link to a file outside the bot's folder; {_ONLY}")
    return sorted(found, key=lambda entry: entry.rel)


def _link_inside(root_real: str, link: Path) -> bool:
    real = os.path.realpath(link)  # never raises for a loop or an overlong part: it stops there
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def copy_entries(folder: Path, entries: Iterable[Entry], dest: Path) -> None:
    """Copy what `scan` listed from `folder` into `dest` (made, empty): files by content, read as
    `open_file` reads (a file swapped for a FIFO or a link since the scan is refused), links as
    links (never their targets), folders as folders; the execute bit and times kept, nothing else."""
    dest.mkdir(parents=True, exist_ok=True)
    times = []
    for entry in entries:
        target = dest / entry.rel
        if entry.kind == "dir":
            target.mkdir(exist_ok=True)
            times.append((target, entry.mtime_ns))
        elif entry.kind == "link":
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(entry.target, target)
        elif entry.kind == "file":
            target.parent.mkdir(parents=True, exist_ok=True)
            out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                          0o755 if entry.executable else 0o644)
            try:
                written = 0
                for chunk in file_chunks(folder / entry.rel):
                    written += len(chunk)
                    if chunk.count(0) == len(chunk):  # a hole stays a hole: a sparse file must not fill the disk
                        os.lseek(out, len(chunk), os.SEEK_CUR)
                    else:
                        os.write(out, chunk)
                os.ftruncate(out, written)
            finally:
                os.close(out)
            os.utime(target, ns=(entry.mtime_ns, entry.mtime_ns), follow_symlinks=False)
    for path, mtime_ns in reversed(times):  # a folder's time changes as files are made in it
        os.utime(path, ns=(mtime_ns, mtime_ns))


def write_small(path: Path, data: bytes) -> None:
    """Replace the file at `path` with `data`: written aside, then renamed onto it, so that a link
    or a FIFO standing there is replaced, never written through. OSError when it cannot be."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


__all__ = ["ManifestError", "FolderError", "Entry", "MAX_FILE_BYTES", "MAX_TOTAL_BYTES", "MAX_ENTRIES",
           "SMALL_FILE_BYTES", "open_file", "read_small", "file_chunks", "scan", "inside", "copy_entries",
           "write_small", "kind_of"]
