"""An uploaded bot archive unpacked into a new folder (issue 44, the league server's uploads): the
author's .tar.gz or .zip of their bot's folder, with `bot.toml` at its top or inside its one top
folder. The archive is hostile input (docs/sandbox.md, "Uploaded archives"): every entry's name is
checked before anything is written (no absolute path, no `..`, no backslash, no control character,
nothing but UTF-8, within depth and length), only files and folders are taken (no link of any
kind, no device, FIFO or socket), no entry twice, and sizes, counts and the compression ratio are
bounded while it is read (archive_reading.py). Each file is written by the arena itself, 0o644 or
0o755, each folder 0o755; then the manifest is loaded as `arena bot add` loads it. A refusal is an
`ArchiveRefused` whose `reason` names the entry, and leaves nothing behind.

    unpacked = unpack_archive(archive_path, dest)   # dest must not exist yet
    unpacked.name, unpacked.folder, unpacked.files, unpacked.bytes
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from arena.submission.archive_reading import (ArchiveRefused, Budget, IntakeLimits, Member, entry_words,
                                              read_members, size_words)
from arena.submission.folder import inside
from arena.submission.manifest import MANIFEST_NAME, BotManifest, ManifestError, read_manifest

log = logging.getLogger(__name__)

_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# What macOS adds beside a bot's folder (resource forks: Finder's __MACOSX/ folder in a zip, and
# tar's "._NAME" files at the top): left out, not refused, so that one top folder stays one.
_SKIPPED_TOP = ("__MACOSX",)
_SKIPPED_TOP_PREFIX = "._"
_CONTROL = ("Cc", "Cf")  # control and format characters (escape sequences, bidi overrides)


@dataclass(frozen=True, slots=True)
class UnpackedBot:
    """A bot unpacked from an upload: its name (its manifest's), the folder holding its bot.toml
    (dest, or the single top folder inside it), and what was written, for a log."""

    name: str
    folder: Path
    files: int
    bytes: int
    manifest: BotManifest


def unpack_archive(archive_path: Path, dest: Path, limits: IntakeLimits = IntakeLimits()) -> UnpackedBot:
    """Unpack the uploaded archive at `archive_path` into `dest`, which this makes (its parent must
    exist; FileExistsError if `dest` does). ArchiveRefused says why an upload is not taken; on it,
    or on any other error (the server's disk full), `dest` is removed with all it held."""
    dest = Path(dest)
    dest.mkdir(mode=0o755)
    try:
        os.chmod(dest, 0o755)  # whatever the umask
        with open(archive_path, "rb") as file:
            tree = _Tree(dest, limits)
            budget = Budget(limits)
            for member in read_members(file, limits, budget):
                tree.take(member, budget)
        if tree.files == 0:
            raise ArchiveRefused("the archive holds no files; send a .tar.gz or .zip of the bot's folder")
        folder = _bot_folder(dest)
        manifest = _manifest(folder, dest)
    except BaseException:
        _remove(dest)
        raise
    return UnpackedBot(manifest.name, folder, tree.files, budget.written_bytes, manifest)


def checked_parts(name: str, limits: IntakeLimits) -> tuple[str, ...]:
    """The parts of an entry's path, each a name of one folder or file below the bot's top; () for
    the top itself ("./") or what is left out. ArchiveRefused for a name that could lead out of
    the folder or that a person could not read as written."""
    where = entry_words(name)
    if not name:
        raise ArchiveRefused("an entry of the archive has no name")
    if any("\ud800" <= ch <= "\udfff" for ch in name):
        raise ArchiveRefused(f"{where}: its name is not UTF-8 text")
    if any(unicodedata.category(ch) in _CONTROL for ch in name):
        raise ArchiveRefused(f"{where}: its name holds a control character")
    if "\\" in name:
        raise ArchiveRefused(f"{where}: a backslash in its name; names separate folders with '/'")
    if name.startswith("/"):
        raise ArchiveRefused(f"{where}: an absolute path; names must be relative to the bot's folder")
    parts = tuple(part for part in name.split("/") if part not in ("", "."))
    if ".." in parts:
        raise ArchiveRefused(f"{where}: a '..' in its path would lead out of the bot's folder")
    if parts and (parts[0] in _SKIPPED_TOP or (len(parts) == 1 and parts[0].startswith(_SKIPPED_TOP_PREFIX))):
        return ()
    if len(parts) > limits.max_depth:
        raise ArchiveRefused(f"{where}: {len(parts)} levels deep; an upload may go at most {limits.max_depth} deep")
    for part in parts:
        if len(part.encode("utf-8")) > limits.max_name_part_bytes:
            raise ArchiveRefused(f"{where}: a name of {len(part.encode('utf-8'))} bytes; each part of a path may "
                                 f"have at most {limits.max_name_part_bytes}")
    return parts


class _Tree:
    """The folder being filled: what each path written is ("file" or "dir"), which were entries
    of the archive (a second entry of one path is refused), and the count of files."""

    def __init__(self, dest: Path, limits: IntakeLimits) -> None:
        self.dest, self.limits = dest, limits
        self.kinds: dict[tuple[str, ...], str] = {}
        self.entries: set[tuple[str, ...]] = set()
        self.count = self.files = 0

    def take(self, member: Member, budget: Budget) -> None:
        """Check one entry and write it: a folder, or a file read in chunks under the budget."""
        self.count += 1
        where = entry_words(member.name)
        if self.count > self.limits.max_entries:
            raise ArchiveRefused(f"{where}: more than {self.limits.max_entries:,} entries; an upload may hold "
                                 "at most that many files and folders")
        parts = checked_parts(member.name, self.limits)
        if member.kind not in ("file", "dir"):
            raise ArchiveRefused(f"{where}: {member.kind}; an upload may hold only plain files and folders")
        if not parts:
            return
        if parts in self.entries:
            raise ArchiveRefused(f"{where}: the archive holds it twice")
        self.entries.add(parts)
        parent = self._folders(parts[:-1], where)
        if member.kind == "dir":
            self._folders(parts, where)
            return
        if parts in self.kinds:
            raise ArchiveRefused(f"{where}: a file where the archive has a folder of the same path")
        budget.entry = member.name
        self._write(parent / parts[-1], member, budget, where)
        budget.entry, budget.after = "", member.name
        self.kinds[parts] = "file"
        self.files += 1

    def _folders(self, parts: tuple[str, ...], where: str) -> Path:
        """The folder at `parts`, made (0o755) with those above it where missing."""
        path = self.dest
        for depth in range(1, len(parts) + 1):
            path = path / parts[depth - 1]
            kind = self.kinds.get(parts[:depth])
            if kind == "file":
                raise ArchiveRefused(f"{where}: '{'/'.join(parts[:depth])}' is a file of the archive, not a folder")
            if kind is None:
                path.mkdir(mode=0o755)
                os.chmod(path, 0o755)
                # Checked names and no link ever made keep every path inside; checked all the same,
                # once per folder (a file is made in one of these, never through a link: O_NOFOLLOW).
                if not inside(self.dest, path):
                    raise ArchiveRefused(f"{where}: its path leads out of the bot's folder")
                self.kinds[parts[:depth]] = "dir"
        return path

    def _write(self, target: Path, member: Member, budget: Budget, where: str) -> None:
        """One file, by the arena: created new (never through a link), filled chunk by chunk
        within the limits, then given 0o755 or 0o644 (no setuid, setgid or sticky bit)."""
        limits = self.limits
        if member.size > limits.max_file_bytes:
            raise ArchiveRefused(f"{where}: {size_words(member.size)}; a file may be at most "
                                 f"{size_words(limits.max_file_bytes)}")
        if budget.written_bytes + member.size > limits.max_unpacked_bytes:
            raise ArchiveRefused(f"{where}: the files would unpack to more than "
                                 f"{size_words(limits.max_unpacked_bytes)}; an upload may hold at most that")
        with os.fdopen(os.open(target, _FILE_FLAGS, 0o600), "wb") as out:
            written = 0
            for chunk in member.chunks():
                written += len(chunk)
                if written > limits.max_file_bytes:
                    raise ArchiveRefused(f"{where}: more than {size_words(limits.max_file_bytes)} unpacked; a file "
                                         "may be at most that")
                budget.wrote(len(chunk))
                out.write(chunk)
            os.fchmod(out.fileno(), 0o755 if member.executable else 0o644)


def _bot_folder(dest: Path) -> Path:
    """dest, when bot.toml is at the archive's top; else its one top folder, holding bot.toml."""
    if os.path.lexists(dest / MANIFEST_NAME):
        return dest
    top = sorted(os.listdir(dest))
    if len(top) == 1 and stat.S_ISDIR(os.lstat(dest / top[0]).st_mode) and os.path.lexists(dest / top[0] / MANIFEST_NAME):
        return dest / top[0]
    shown = ", ".join(name + ("/" if (dest / name).is_dir() else "") for name in top[:5])
    more = f" and {len(top) - 5} more" if len(top) > 5 else ""
    raise ArchiveRefused(f"the archive has no {MANIFEST_NAME} at its top nor inside one top folder (its top holds "
                         f"{shown}{more}); archive the bot's folder, which holds its {MANIFEST_NAME}")


def _manifest(folder: Path, dest: Path) -> BotManifest:
    """The bot's manifest, loaded and checked as `arena bot add` does (its name by NAME_RE); a
    refusal names bot.toml by its path in the archive, not by where the server unpacked it."""
    try:
        return read_manifest(folder / MANIFEST_NAME)
    except ManifestError as exc:
        reason = str(exc)
        for base in {str(dest.resolve()), str(dest)}:
            reason = reason.replace(base + os.sep, "")
        raise ArchiveRefused(reason) from None


def _remove(dest: Path) -> None:
    def note(_function: object, path: str, exc_info: object) -> None:
        log.warning("could not remove %s of a refused upload: %s", path, exc_info)

    shutil.rmtree(dest, onerror=note)


__all__ = ["ArchiveRefused", "IntakeLimits", "UnpackedBot", "unpack_archive", "checked_parts"]
