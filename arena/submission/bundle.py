"""A bot's files as one blob, to travel to machines that have none of the organiser's folders (a
tournament's cluster workers): packed from the files its version hashes, unpacked once per version
into a per-user cache, where the unpacked files must hash to the version again before they run."""

from __future__ import annotations

import fcntl
import io
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.submission.folder import FolderError, file_chunks
from arena.submission.manifest import BotManifest, ManifestError, read_manifest
from arena.submission.versions import content_hash, entries_of
from arena.submission.workspace import cache_dir


@dataclass(frozen=True, slots=True)
class Bundle:
    name: str
    version: str  # the content hash the unpacked files must have
    manifest_name: str  # bot.toml, or another manifest file of the folder (a service's)
    data: bytes  # a gzipped tar of the bot's files (arena/submission/versions.bot_files)


def pack(manifest: BotManifest, version: str | None = None) -> Bundle:
    """The bot's files as hashed for its version (no build outputs, logs or check records), read as
    hostile input (arena/submission/folder.py): files by content, links to its own files as links.
    With `version` (the one the run prepared), a folder that no longer hashes to it is refused:
    its author changed it since."""
    folder = manifest.directory
    entries = entries_of(manifest)
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for entry in entries:
            info = tarfile.TarInfo(entry.rel)
            info.mtime = entry.mtime_ns // 1_000_000_000
            if entry.kind == "link":
                info.type, info.linkname, info.mode = tarfile.SYMTYPE, entry.target, 0o777
                tar.addfile(info)
                continue
            data = b"".join(file_chunks(folder / entry.rel))  # at most the folder's own bound
            info.size, info.mode = len(data), 0o755 if entry.executable else 0o644
            tar.addfile(info, io.BytesIO(data))
    name = manifest.path.name if manifest.path is not None else "bot.toml"
    packed = Bundle(manifest.name, content_hash(manifest), name, out.getvalue())
    if version is not None and packed.version != version:
        raise FolderError(f"{folder}: its files changed since the run prepared version {version} (now "
                          f"{packed.version}); run again to play the new version")
    return packed


def unpack(bundle: Bundle, root: Path | None = None) -> BotManifest:
    """The bundle's bot, unpacked under `root` (default: the per-user cache) once per version (a
    lock: two workers of one machine unpack it once), and its manifest, to prepare as any bot is
    (arena/submission/prepared.py). ManifestError when the files do not hash to the bundle's version."""
    root = Path(root) if root is not None else cache_dir().parent / "bundles"
    target = root / f"{bundle.name}-{bundle.version}"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".{bundle.name}-{bundle.version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two workers of one machine unpack it once
        if not (target / bundle.manifest_name).is_file():
            staging = Path(tempfile.mkdtemp(prefix=f".{bundle.name}-", dir=root))
            try:
                with tarfile.open(fileobj=io.BytesIO(bundle.data), mode="r:gz") as tar:
                    _extract(tar, staging, bundle.name)
                got = content_hash(staging)
                if got != bundle.version:
                    raise ManifestError(f"{bundle.name}: the files received hash to {got}, not to version {bundle.version}")
                os.rename(staging, target)
            finally:
                shutil.rmtree(staging, ignore_errors=True)  # gone already once renamed
        return read_manifest(target / bundle.manifest_name)


def _extract(tar: tarfile.TarFile, folder: Path, name: str) -> None:
    """The bundle's files into `folder`, and nothing outside it. `pack` writes regular files only,
    by relative paths; anything else is refused here, on every Python: tarfile's own `filter`
    argument, which does the same, came only with Python 3.11.4 (Debian 12's is 3.11.2)."""
    members = tar.getmembers()
    for member in members:
        parts = Path(member.name).parts
        if not (member.isfile() or member.isdir() or member.issym()) or not parts \
                or Path(member.name).is_absolute() or ".." in parts:
            raise ManifestError(f"{name}: the bundle holds {member.name!r}, which is no file of a bot's folder")
        if member.issym():
            link_at = folder / member.name
            pointed = Path(member.linkname)
            if pointed.is_absolute() or not _within(folder, link_at.parent / pointed):
                raise ManifestError(f"{name}: the bundle holds a link {member.name!r} out of the bot's folder")
        member.mode &= 0o755  # as the data filter: no set-id bits, no writing by others
    if hasattr(tarfile, "data_filter"):
        tar.extractall(folder, members=members, filter="data")
    else:
        tar.extractall(folder, members=members)


def _within(folder: Path, path: Path) -> bool:
    """`path`, taken word by word (no link followed), stays in `folder`: a link's target checked
    before anything is written."""
    return os.path.normpath(path).startswith(os.path.normpath(folder) + os.sep)


__all__ = ["Bundle", "pack", "unpack"]
