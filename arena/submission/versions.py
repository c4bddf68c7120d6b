"""A bot's version: a hash of the files in its folder (`content_hash`), so a changed bot is a new
version and every stored game records the version that played it."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from pathlib import Path

from arena.submission.manifest import MANIFEST_NAME, BotManifest, ManifestError, read_manifest


# Never part of a bot's content hash.
HASH_EXCLUDED_NAMES = frozenset({".check.json", ".versions.json", "__pycache__", ".git", "node_modules", ".DS_Store"})
_VERSION_LINE = re.compile(rb"^\s*version\s*=.*$")
# A file of a bot folder larger than this is refused: the hash reads every byte, and a sparse
# file of 1 TB (96 KB on disk) took the arena's memory, then ended it with a traceback.
MAX_BOT_FILE_BYTES = 1 << 30
_CHUNK_BYTES = 1 << 20


def _gitignore_patterns(directory: Path) -> list[str]:
    """Simple patterns of the bot folder's own .gitignore (no negation, no nesting)."""
    try:
        lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [ln.strip().lstrip("/").rstrip("/") for ln in lines
            if ln.strip() and not ln.lstrip().startswith(("#", "!"))]


def bot_files(directory: Path, always: frozenset[str] | None = None) -> list[Path]:
    """The bot's source files (relative, sorted): no build outputs listed in its .gitignore,
    no .check.json, __pycache__, .git, node_modules, *.log, and no symlinks followed out of the
    folder. Logs are left out because bots often write one beside themselves while they play,
    and a tournament refuses to resume once a bot's version changed. bot.toml and `always` (the
    files its command and build name) are in whatever the rules above say: a bot whose code was
    in main.log, or whose .gitignore said `*`, changed mid-tournament unnoticed (a hostile trial)."""
    directory = Path(directory)
    patterns = _gitignore_patterns(directory)
    # Worked out here unless given, so that every caller (the hash, `bot add`'s copy) has one list.
    always = (_named_files(directory, directory) if always is None else always) | {MANIFEST_NAME}

    def ignored(rel: str, name: str) -> bool:
        if rel in always:
            return False
        return name in HASH_EXCLUDED_NAMES or name.endswith((".pyc", ".log")) or any(
            fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)

    found: list[Path] = []
    for root, dirs, files in os.walk(directory):
        rel_root = Path(root).relative_to(directory)
        dirs[:] = sorted(d for d in dirs if not ignored((rel_root / d).as_posix(), d))
        for name in files:
            rel = rel_root / name
            if not ignored(rel.as_posix(), name) and (Path(root) / name).is_file():
                found.append(rel)
    return sorted(found, key=lambda p: p.as_posix())


def content_hash(manifest: BotManifest | Path) -> str:
    """sha256 over the sorted relative paths and bytes of the bot's files, first 12 hex digits.
    bot.toml is hashed without its top-level `version = ...` line (the hash is written there)."""
    return version_and_files(manifest)[0]


def version_and_files(manifest: BotManifest | Path) -> tuple[str, dict[str, str]]:
    """The bot's version (`content_hash`) and each of its files' own digest (12 hex digits of its
    sha256), read in one pass: a tournament keeps the digests of every version it saw, so that it
    can name the files that changed when a bot is resubmitted."""
    directory = Path(manifest.directory if isinstance(manifest, BotManifest) else manifest)
    digest = hashlib.sha256()
    files = {}
    for rel in bot_files(directory, _named_files(manifest, directory)):
        # The file system's bytes for the name: a name that is not UTF-8 raised UnicodeEncodeError.
        name = os.fsencode(rel.as_posix())
        shown = name.decode("utf-8", errors="backslashreplace")
        own = hashlib.sha256()
        try:
            with open(directory / rel, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size > MAX_BOT_FILE_BYTES:
                    raise ManifestError(f"{directory / shown}: {size / (1 << 30):.1f} GiB; a bot's files may be "
                                        f"at most {MAX_BOT_FILE_BYTES >> 30} GiB each (its version is a hash of them all)")
                if rel.as_posix() == MANIFEST_NAME:
                    data = b"\n".join(ln for ln in f.read().split(b"\n") if not _VERSION_LINE.match(ln))
                    chunks, size = [data], len(data)
                else:
                    chunks = iter(lambda: f.read(_CHUNK_BYTES), b"")
                digest.update(len(name).to_bytes(4, "big") + name + size.to_bytes(8, "big"))
                read = 0
                for chunk in chunks:
                    read += len(chunk)
                    digest.update(chunk)
                    own.update(chunk)
        except OSError as exc:
            raise ManifestError(f"{directory / shown}: cannot read ({exc.strerror or exc}); the bot's version "
                                "is a hash of every file in its folder (docs: protocol.md, the manifest)") from None
        if read != size:
            raise ManifestError(f"{directory / shown}: changed while its version was taken; try again")
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
    outputs = _gitignore_patterns(directory) if manifest.build else []
    named = set()
    for arg in (*manifest.command, *manifest.build):
        path = Path(arg)
        if path.is_absolute() or ".." in path.parts or not (directory / path).is_file():
            continue
        rel = path.as_posix()
        if not any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(path.name, p) for p in outputs):
            named.add(rel)
    return frozenset(named)


def changed_files(before: dict[str, str], after: dict[str, str]) -> str:
    """'changed bot.py; added util.py; removed old.py' between two versions' file digests."""
    changed = sorted(path for path in set(before) & set(after) if before[path] != after[path])
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    parts = [f"{word} {', '.join(paths)}" for word, paths in (("changed", changed), ("added", added),
                                                               ("removed", removed)) if paths]
    return "; ".join(parts) or "no file differs"
