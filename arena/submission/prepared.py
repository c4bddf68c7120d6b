"""A bot as it runs: the files its version hashes, copied out of the author's folder into the build
cache and built there, once per version, then kept read-only (docs/sandbox.md, "What runs").

Every game of a version runs exactly that copy, so a build that writes different files on each run
cannot change a bot within a version, and nothing the author's folder holds besides its hashed
files (a stray strategy.py listed in .gitignore) ever runs. Each game records the copy's digest
(`PreparedBot.build`): a hash of every file that ran, build outputs included.

The cache: `$XDG_CACHE_HOME/skitgubbe-arena/builds/` (default `~/.cache/...`), a folder per bot
version (`NAME-VERSION/`) and a record beside it (`NAME-VERSION.json`) written once it is whole.
Deleting the folder costs a build, nothing else.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from arena.sandbox.isolation import Isolation, find_isolation, give_to
from arena.sandbox.limits import Limits
from arena.submission.build import BUILD_TIMEOUT_S, build_user, run_build, seal
from arena.submission.build_watch import BUILD_MAX_BYTES
from arena.submission.folder import FolderError, copy_entries, file_chunks, read_small, scan, write_small
from arena.submission.manifest import MANIFEST_NAME, BotManifest, ManifestError, read_manifest
from arena.submission.versions import entries_of, version_and_files
from arena.submission.workspace import cache_dir

# What a build may leave in all: the digest reads every byte of it (and the build is stopped as it
# writes more: build_watch.py).
MAX_BUILT_BYTES = BUILD_MAX_BYTES


@dataclass(frozen=True, slots=True)
class PreparedBot:
    """A bot ready to run: `manifest` is the prepared copy's (its folder in the build cache), or
    the bot's own for a service, which runs where its author runs it."""

    manifest: BotManifest
    source: BotManifest  # as found in the author's (or the workspace's) folder
    version: str  # the content hash of the files handed in
    files: dict[str, str]  # each hashed file's own digest (what a resubmission changed)
    build: str  # 12 hex digits over every file of the prepared copy: what runs ("" for a service)
    built_now: bool = False  # False: the copy was in the cache already

    @property
    def name(self) -> str:
        return self.source.name


def prepare_bot(source: BotManifest, *, isolation: Isolation | None = None, limits: Limits | None = None,
                timeout_s: float = BUILD_TIMEOUT_S, cache: Path | None = None) -> PreparedBot:
    """The bot copied into the cache and built, once per version (a lock: two arenas, or two
    workers of a cluster machine, prepare it once). ManifestError (FolderError) names what was
    refused: a file of the folder, the build's failure with its output's tail, the cache."""
    version, files = version_and_files(source)
    if source.is_service:
        return PreparedBot(source, source, version, files, "")
    isolation = find_isolation() if isolation is None else isolation
    root = Path(cache) if cache is not None else cache_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ManifestError(f"{root}: cannot make the build cache, where bots are copied and built "
                            f"({exc.strerror or exc}); set XDG_CACHE_HOME to a folder of yours") from None
    target = root / f"{source.name}-{version}"
    record = root / f"{source.name}-{version}.json"
    built_now = False
    with _locked(root / f".{source.name}-{version}.lock"):
        build = _finished(record, target, version)
        if build is None:
            build = _make(source, version, target, isolation, limits or Limits(), timeout_s)
            write_small(record, (json.dumps({"version": version, "build": build, "files": files}, indent=1)
                                 + "\n").encode("utf-8"))
            built_now = True
    name = source.path.name if source.path is not None else MANIFEST_NAME
    return PreparedBot(read_manifest(target / name), source, version, files, build, built_now)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _finished(record: Path, target: Path, version: str) -> str | None:
    """The build digest of a copy prepared before, or None when there is none (or half of one)."""
    try:
        data = json.loads(read_small(record))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("version") != version or not target.is_dir():
        return None
    build = data.get("build")
    return build if isinstance(build, str) and build else None


def _make(source: BotManifest, version: str, target: Path, isolation: Isolation, limits: Limits,
          timeout_s: float) -> str:
    """Copy, check the copy's version, build, seal and move into place; the build's digest."""
    user = build_user(isolation) if source.build else None
    # A root arena's build without isolation runs as the unprivileged user on the host, which
    # cannot walk into root's cache: it builds in a folder of its own under the system's /tmp.
    aside = user is not None and not isolation.active
    parent = Path(tempfile.gettempdir()) if aside else target.parent
    staging = Path(tempfile.mkdtemp(prefix=f".{source.name}-{version}-", dir=parent))
    home = None
    try:
        copy_entries(source.directory, entries_of(source), staging)
        copied = dataclasses.replace(source, directory=staging, path=staging / (source.path.name if source.path else MANIFEST_NAME))
        got, _ = version_and_files(copied)
        if got != version:
            raise FolderError(f"{source.directory}: its files changed while the arena copied them (version {version}, "
                              f"the copy {got}); try again")
        if source.build:
            if user is not None:
                give_to(staging, user)
                os.chmod(staging, 0o755)
            if aside:
                home = Path(tempfile.mkdtemp(prefix="arena-build-home-"))
                give_to(home, user)  # type: ignore[arg-type]
            run_build(source, staging, isolation=isolation, limits=limits, timeout_s=timeout_s, home=home)
        seal(staging)
        build = folder_digest(staging)
        if target.exists():  # half of an earlier attempt (a crash between the move and the record)
            shutil.rmtree(target)
        _move(staging, target)
        return build
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if home is not None:
            shutil.rmtree(home, ignore_errors=True)


def _move(staging: Path, target: Path) -> None:
    try:
        os.rename(staging, target)
    except OSError:  # another file system (the system's /tmp): copied, links as links
        shutil.copytree(staging, target, symlinks=True)


def folder_digest(folder: Path) -> str:
    """12 hex digits over every entry of a prepared folder, as it runs: files by content, links by
    what they say, anything else a build made (a FIFO) by its kind, never opened."""
    digest = hashlib.sha256()
    total = 0
    for entry in scan(folder, strict=False):
        name = os.fsencode(entry.rel)
        digest.update(len(name).to_bytes(4, "big") + name + entry.kind.encode() + b"\0")
        if entry.kind == "link":
            digest.update(os.fsencode(entry.target) + b"\0")
        elif entry.kind == "file":
            total += entry.size
            if total > MAX_BUILT_BYTES:
                raise FolderError(f"{folder}: the build left more than {MAX_BUILT_BYTES >> 30} GiB of files; a bot "
                                  "may be at most that, built")
            digest.update(entry.size.to_bytes(8, "big") + (b"x" if entry.executable else b"-"))
            for chunk in file_chunks(folder / entry.rel):
                digest.update(chunk)
    return digest.hexdigest()[:12]


__all__ = ["PreparedBot", "prepare_bot", "folder_digest", "MAX_BUILT_BYTES"]
