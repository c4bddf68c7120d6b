"""A bot's version: a hash of the files in its folder (`content_hash`), so a changed bot is a new
version and every stored game records the version that played it. The folder is read as hostile
input (arena/submission/folder.py): no link followed, no FIFO opened, every read bounded."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from pathlib import Path
from typing import Callable

from arena.submission.folder import FolderError, Entry, file_chunks, read_small, scan
from arena.submission.manifest import MANIFEST_NAME, BotManifest, ManifestError, read_manifest


# Never part of a bot's content hash, nor of what runs. A bot's packages (node_modules, a vendored
# folder) are: what runs is the hashed files and what the build makes of them.
HASH_EXCLUDED_NAMES = frozenset({".check.json", ".versions.json", "__pycache__", ".git", ".DS_Store"})
GITIGNORE = ".gitignore"
_VERSION_LINE = re.compile(rb"^\s*version\s*=.*$")
# A link is hashed as what it says, under a length with the top bit set, which no file's name
# has: the hash of a folder of plain files is what it always was.
_LINK_MARK = 1 << 31
# Every pattern is tried on every file: 40,000 of them kept the arena at the CPU for minutes.
MAX_GITIGNORE_PATTERNS = 1000
MAX_PATTERN_CHARS = 256


def gitignore_patterns(directory: Path) -> list[str]:
    """Simple patterns of the bot folder's own .gitignore (no negation, no nesting). A .gitignore
    that is a link, a FIFO, larger than a megabyte, or of more than MAX_GITIGNORE_PATTERNS patterns
    (or one longer than MAX_PATTERN_CHARS) is refused (FolderError)."""
    path = Path(directory) / GITIGNORE
    try:
        text = read_small(path).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    except FolderError:
        raise
    except OSError:  # a folder we cannot search: said when its files are read
        return []
    patterns = [ln.strip().lstrip("/").rstrip("/") for ln in text.splitlines()
                if ln.strip() and not ln.lstrip().startswith(("#", "!"))]
    if len(patterns) > MAX_GITIGNORE_PATTERNS or any(len(p) > MAX_PATTERN_CHARS for p in patterns):
        raise FolderError(f"{path}: {len(patterns):,} patterns; a bot's .gitignore may hold at most "
                          f"{MAX_GITIGNORE_PATTERNS:,}, each at most {MAX_PATTERN_CHARS} characters")
    return patterns


def _matcher(patterns: list[str]) -> Callable[[str], bool]:
    """One compiled test for all of `patterns` (fnmatch's, each on the whole text)."""
    if not patterns:
        return lambda text: False
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns)).match  # type: ignore[return-value]


def bot_entries(directory: Path, always: frozenset[str] | None = None) -> list[Entry]:
    """The bot's source files and links (sorted by path), as `scan` reads them: no build outputs
    listed in its .gitignore, no .check.json, __pycache__, .git, *.log; a link out of
    the folder, a FIFO or a device refused. Logs are left out because bots often write one beside
    themselves while they play, and a tournament refuses to resume once a bot's version changed.
    bot.toml and `always` (the files its command and build name) are in whatever the rules above
    say: else a bot whose code is in main.log, or whose .gitignore says `*`, could change
    mid-tournament unnoticed."""
    directory = Path(directory)
    listed = _matcher(gitignore_patterns(directory))
    # Worked out here unless given, so that every caller (the hash, a copy, a bundle) has one list.
    always = (_named_files(directory, directory) if always is None else always) | {MANIFEST_NAME}

    def ignored(rel: str, name: str, is_dir: bool) -> bool:  # noqa: ARG001 - folders and files alike
        if rel in always:
            return False
        return name in HASH_EXCLUDED_NAMES or name.endswith((".pyc", ".log")) or bool(listed(rel) or listed(name))

    return [entry for entry in scan(directory, ignored) if entry.kind != "dir"]


def entries_of(manifest: BotManifest) -> list[Entry]:
    """`bot_entries` of a manifest's folder, with the files its command and build name."""
    return bot_entries(manifest.directory, _named_files(manifest, manifest.directory))


def bot_files(directory: Path, always: frozenset[str] | None = None) -> list[Path]:
    """The relative paths of `bot_entries`."""
    return [Path(entry.rel) for entry in bot_entries(directory, always)]


def content_hash(manifest: BotManifest | Path) -> str:
    """sha256 over the sorted relative paths and bytes of the bot's files, first 12 hex digits.
    bot.toml is hashed without its top-level `version = ...` line (the hash is written there)."""
    return version_and_files(manifest)[0]


def version_and_files(manifest: BotManifest | Path) -> tuple[str, dict[str, str]]:
    """The bot's version (`content_hash`) and each of its files' own digest (12 hex digits of its
    sha256), read in one pass: a tournament keeps the digests of every version it saw, so that it
    can name the files that changed when a bot is resubmitted."""
    directory = Path(manifest.directory if isinstance(manifest, BotManifest) else manifest)
    return hash_entries(directory, bot_entries(directory, _named_files(manifest, directory)))


def hash_entries(directory: Path, entries: list[Entry]) -> tuple[str, dict[str, str]]:
    """The version of `entries` of `directory` (as `version_and_files`), and each one's digest."""
    digest = hashlib.sha256()
    files = {}
    for entry in entries:
        # The file system's bytes for the name: a name that is not UTF-8 raised UnicodeEncodeError.
        name = os.fsencode(entry.rel)
        shown = name.decode("utf-8", errors="backslashreplace")
        own = hashlib.sha256()
        if entry.kind == "link":
            target = os.fsencode(entry.target)
            digest.update((len(name) | _LINK_MARK).to_bytes(4, "big") + name + len(target).to_bytes(8, "big") + target)
            own.update(b"link:" + target)
        elif entry.kind == "file":
            chunks = file_chunks(directory / entry.rel)
            size = entry.size
            if entry.rel == MANIFEST_NAME:
                data = b"\n".join(ln for ln in b"".join(chunks).split(b"\n") if not _VERSION_LINE.match(ln))
                chunks, size = iter([data]), len(data)
            digest.update(len(name).to_bytes(4, "big") + name + size.to_bytes(8, "big"))
            read = 0
            for chunk in chunks:
                read += len(chunk)
                digest.update(chunk)
                own.update(chunk)
            if read != size:
                raise ManifestError(f"{directory / shown}: changed while its version was taken; try again")
        else:
            continue
        files[shown] = own.hexdigest()[:12]
    return digest.hexdigest()[:12], files


def _named_files(manifest: BotManifest | Path, directory: Path) -> frozenset[str]:
    """The files of the folder that the bot's command and build name (`bot.py`, `main.log`), but
    not a build's outputs: with a build step, a named file its .gitignore lists (`./bot`) is one,
    made afresh on every machine, and stays out."""
    if not isinstance(manifest, BotManifest):
        try:
            manifest = read_manifest(directory / MANIFEST_NAME)
        except (ManifestError, OSError):
            return frozenset()
    output = _matcher(gitignore_patterns(directory) if manifest.build else [])
    named = set()
    for arg in (*manifest.command, *manifest.build):
        path = Path(arg)
        if path.is_absolute() or ".." in path.parts or not _is_file_here(directory / path):
            continue
        rel = path.as_posix()
        if not (output(rel) or output(path.name)):
            named.add(rel)
    return frozenset(named)


def _is_file_here(path: Path) -> bool:
    """A regular file, not a link to one (an overlong or unreadable name is no file)."""
    try:
        return os.path.isfile(path) and not os.path.islink(path)
    except (OSError, ValueError):
        return False


def changed_files(before: dict[str, str], after: dict[str, str]) -> str:
    """'changed bot.py; added util.py; removed old.py' between two versions' file digests."""
    changed = sorted(path for path in set(before) & set(after) if before[path] != after[path])
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    parts = [f"{word} {', '.join(paths)}" for word, paths in (("changed", changed), ("added", added),
                                                               ("removed", removed)) if paths]
    return "; ".join(parts) or "no file differs"
