"""An uploaded archive made a bot folder (the league server's uploads: issue 44). The archive comes
from a stranger: every entry is checked before anything of it is written, and the reading is
bounded, so that no archive can write outside the folder made for it, plant a link, a device or a
FIFO, or fill the disk.

Taken: a .tar.gz, .tar or .zip (known by its first bytes, not its name) of a bot's folder, with
bot.toml at its top or inside one top folder. Refused (ArchiveRefused, its reason naming the
entry): anything else; an absolute path, a `..`, a backslash, a control character or a name that
is not UTF-8; any link (symbolic or hard), device, FIFO or socket; an entry twice; more entries,
depth, bytes in one file or in all than `IntakeLimits` allows, or a compression ratio past its
ceiling (a bomb is stopped as it is read, not after it is written); a bot.toml that does not load
as `arena bot add` loads one. Files are written 0644, or 0755 when the owner could run them in
the archive; set-id and sticky bits are dropped. On any refusal the folder is removed whole."""

from __future__ import annotations

import shutil
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Callable, Iterator

from arena.submission.manifest import MANIFEST_NAME, ManifestError, read_manifest

CHUNK = 1 << 16


@dataclass(frozen=True)
class IntakeLimits:
    archive_bytes: int = 20 * 1024 * 1024
    total_bytes: int = 100 * 1024 * 1024  # unpacked
    file_bytes: int = 50 * 1024 * 1024
    entries: int = 2_000
    depth: int = 20
    name_bytes: int = 255  # one part of a path
    ratio: int = 200  # unpacked bytes per archive byte read, past a first MB


@dataclass(frozen=True)
class Unpacked:
    name: str  # the bot's, from its bot.toml
    folder: Path  # where bot.toml is
    files: int
    bytes: int


class ArchiveRefused(ValueError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class _Entry:
    path: PurePosixPath
    kind: str  # file or dir
    size: int
    executable: bool


def unpack_archive(archive: Path, dest: Path, limits: IntakeLimits = IntakeLimits()) -> Unpacked:
    """Unpack `archive` into `dest` (made here; it must not exist) and load its bot.toml."""
    size = archive.stat().st_size
    if size > limits.archive_bytes:
        raise ArchiveRefused(f"the archive is {size:,} bytes; at most {limits.archive_bytes:,}")
    if dest.exists() or dest.is_symlink():
        raise ArchiveRefused(f"{dest} exists already")  # the caller's mistake, never the author's
    with open(archive, "rb") as raw:
        head = raw.read(4)
    dest.mkdir(parents=True)
    try:
        if head.startswith(b"PK\x03\x04"):
            files, written = _unzip(archive, dest, limits)
        elif head.startswith(b"\x1f\x8b") or _is_tar(archive):
            files, written = _untar(archive, dest, limits)
        else:
            raise ArchiveRefused("not a .tar.gz, .tar or .zip archive")
        folder = _bot_folder(dest)
        try:
            manifest = read_manifest(folder / MANIFEST_NAME)
        except ManifestError as exc:
            raise ArchiveRefused(f"its bot.toml: {exc}") from None
        return Unpacked(manifest.name, folder, files, written)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def _is_tar(archive: Path) -> bool:
    try:
        return tarfile.is_tarfile(archive)
    except OSError:
        return False


def _checked_path(name: str, limits: IntakeLimits) -> PurePosixPath:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise ArchiveRefused(f"entry {name!r}: a control character in its name")
    if "\\" in name:
        raise ArchiveRefused(f"entry {name!r}: a backslash in its name")
    if name.startswith("/"):
        raise ArchiveRefused(f"entry {name!r}: an absolute path")
    parts = [part for part in PurePosixPath(name).parts if part != "."]
    if ".." in parts:
        raise ArchiveRefused(f"entry {name!r}: a '..' in its path, out of the bot's folder")
    if not parts:
        return PurePosixPath(".")
    if len(parts) > limits.depth:
        raise ArchiveRefused(f"entry {name!r}: deeper than {limits.depth} folders")
    if any(len(part.encode("utf-8", "surrogateescape")) > limits.name_bytes for part in parts):
        raise ArchiveRefused(f"entry {name!r}: a name longer than {limits.name_bytes} bytes")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise ArchiveRefused(f"entry {name!r}: its name is not UTF-8") from None
    return PurePosixPath(*parts)


class _Writer:
    """Writes the checked entries under `dest`, counting against the limits."""

    def __init__(self, dest: Path, limits: IntakeLimits, archive_bytes: int) -> None:
        self.dest, self.limits, self.archive_bytes = dest, limits, archive_bytes
        self.seen: set[PurePosixPath] = set()
        self.files = self.total = 0

    def add(self, entry: _Entry, stream: IO[bytes] | None, read_so_far: Callable[[], int] = lambda: 0) -> None:
        if entry.path in self.seen:
            raise ArchiveRefused(f"entry {entry.path}: in the archive twice")
        self.seen.add(entry.path)
        if len(self.seen) > self.limits.entries:
            raise ArchiveRefused(f"more than {self.limits.entries:,} entries")
        target = self.dest.joinpath(*entry.path.parts) if entry.path.parts else self.dest
        for parent in reversed(target.relative_to(self.dest).parents):  # no entry may pass through a file
            place = self.dest / parent
            if place.exists() and not place.is_dir() or place.is_symlink():
                raise ArchiveRefused(f"entry {entry.path}: inside {parent}, which is not a folder")
        if entry.kind == "dir":
            if target.exists() and not target.is_dir():
                raise ArchiveRefused(f"entry {entry.path}: a folder and a file of one name")
            target.mkdir(parents=True, exist_ok=True, mode=0o755)
            return
        if entry.size > self.limits.file_bytes:
            raise ArchiveRefused(f"entry {entry.path}: {entry.size:,} bytes; one file may have {self.limits.file_bytes:,}")
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        self.files += 1
        assert stream is not None
        with open(target, "xb") as out:  # x: never over something already there
            for chunk in iter(lambda: stream.read(CHUNK), b""):
                self.total += len(chunk)
                if self.total > self.limits.total_bytes:
                    raise ArchiveRefused(f"entry {entry.path}: unpacked, the archive is over {self.limits.total_bytes:,} bytes")
                if self.total > 1024 * 1024 + self.limits.ratio * max(1, read_so_far()):
                    raise ArchiveRefused(f"entry {entry.path}: unpacks to over {self.limits.ratio} times the archive's "
                                         "size (a compression bomb)")
                out.write(chunk)
        target.chmod(0o755 if entry.executable else 0o644)


def _untar(archive: Path, dest: Path, limits: IntakeLimits) -> tuple[int, int]:
    writer = _Writer(dest, limits, archive.stat().st_size)
    with open(archive, "rb") as raw:
        try:
            with tarfile.open(fileobj=raw, mode="r|*") as tar:  # a stream: members in order, never all in memory
                for member in _members(tar, limits):
                    path = _checked_path(member.name, limits)
                    kind = "dir" if member.isdir() else "file"
                    stream = tar.extractfile(member) if kind == "file" else None
                    writer.add(_Entry(path, kind, member.size, bool(member.mode & stat.S_IXUSR)), stream,
                               lambda: raw.tell())
        except (tarfile.TarError, EOFError, OSError, UnicodeDecodeError) as exc:
            raise ArchiveRefused(f"not a whole archive: {exc}") from None
    return writer.files, writer.total


def _members(tar: tarfile.TarFile, limits: IntakeLimits) -> Iterator[tarfile.TarInfo]:
    for count, member in enumerate(tar, start=1):
        if count > limits.entries:
            raise ArchiveRefused(f"more than {limits.entries:,} entries")
        if member.issym() or member.islnk():
            raise ArchiveRefused(f"entry {member.name}: a link (to {member.linkname!r}); upload files and folders only")
        if not (member.isfile() or member.isdir()):
            what = "a device" if member.ischr() or member.isblk() else "a FIFO" if member.isfifo() else "not a file"
            raise ArchiveRefused(f"entry {member.name}: {what}; upload files and folders only")
        yield member


def _unzip(archive: Path, dest: Path, limits: IntakeLimits) -> tuple[int, int]:
    writer = _Writer(dest, limits, archive.stat().st_size)
    try:
        with zipfile.ZipFile(archive) as zipped:
            infos = zipped.infolist()
            if len(infos) > limits.entries:
                raise ArchiveRefused(f"more than {limits.entries:,} entries")
            read = 0
            for info in infos:
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise ArchiveRefused(f"entry {info.filename}: a link; upload files and folders only")
                if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):  # 0: a zip that gives no type
                    raise ArchiveRefused(f"entry {info.filename}: not a file or a folder")
                path = _checked_path(info.filename, limits)
                read += info.compress_size
                if info.is_dir():
                    writer.add(_Entry(path, "dir", 0, False), None)
                    continue
                with zipped.open(info) as stream:
                    writer.add(_Entry(path, "file", info.file_size, bool(mode & stat.S_IXUSR)), stream,
                               lambda: read)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
        raise ArchiveRefused(f"not a whole zip archive: {exc}") from None
    return writer.files, writer.total


def _bot_folder(dest: Path) -> Path:
    if (dest / MANIFEST_NAME).is_file():
        return dest
    tops = list(dest.iterdir())
    if len(tops) == 1 and tops[0].is_dir() and (tops[0] / MANIFEST_NAME).is_file():
        return tops[0]
    raise ArchiveRefused(f"no {MANIFEST_NAME} at the archive's top, nor inside one top folder "
                         f"(found: {', '.join(sorted(p.name for p in tops)[:5]) or 'nothing'})")


__all__ = ["ArchiveRefused", "IntakeLimits", "Unpacked", "unpack_archive"]
