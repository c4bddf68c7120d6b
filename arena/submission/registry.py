"""Registered bots: `arena bot add PATH` and `arena bot list`.

A registered bot is a folder `bots/<name>/` whose bot.toml carries `version = "<hash>"`: the first
12 hex digits of `arena.submission.versions.content_hash` (sha256 over the sorted relative paths and bytes of the
bot's files, without build outputs in its .gitignore, __pycache__ and .check.json). A changed bot
hashes differently, so it is a new version; stored games record the version that played.

The last check result lives beside the manifest in `bots/<name>/.check.json`, and, for every bot
checked here, in the per-user cache (`checks/<name>-<version>.json`, beside the build cache):
`{"passed": true, "date": "2025-01-01T12:00:00+00:00", "version": "...", "build": "...", "checks": [...]}`,
and the bot's version history in `.versions.json`: every version the arena has seen of it (`bot
check`, `bot add`, `bot list`), when first, and that version's last check. The two in the bot's folder
are excluded from the content hash, and are its author's to write: only the cache's record, which
no author writes, lets a version into a tournament (arena/check/admission.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.submission.folder import FolderError, copy_entries, read_small, write_small
from arena.submission.lookup import load_manifest
from arena.submission.workspace import BUNDLED_BOTS_DIR, cache_dir, workspace_bots_dir
from arena.submission.manifest import MANIFEST_NAME, BotManifest, ManifestError, read_manifest
from arena.submission.versions import bot_entries, content_hash

CHECK_FILE = ".check.json"
VERSIONS_FILE = ".versions.json"
_TOP_VERSION = re.compile(r"^\s*version\s*=.*$")
_TABLE = re.compile(r"^\s*\[")


class RegistryError(ArenaError):
    """A bot that cannot be registered (clear message for the CLI)."""


def save_check(directory: Path, report_dict: dict[str, Any]) -> Path:
    """Store a check result (CheckReport.to_dict(), or a kept check) as directory/.check.json, with the date, and
    as the check of its version in the bot's version history."""
    data = dict(report_dict)
    data["date"] = data.get("date") or _now()  # a kept check reused (`bot add`) keeps the date it was made
    path = Path(directory) / CHECK_FILE
    write_small(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))
    if data.get("version"):
        note_version(directory, data["version"], {key: data.get(key) for key in ("passed", "date", "rules")})
    return path


def _read_record(path: Path) -> Any:
    """A record the arena keeps in a bot's folder, or None when there is none or it is no JSON.
    The folder is the author's: a record linked to /dev/zero, a FIFO or a huge one is refused
    (FolderError), never read."""
    try:
        return json.loads(read_small(path))
    except FolderError:
        raise
    except (OSError, ValueError, RecursionError):  # no record, or none the arena wrote: as if none
        return None


def _check_record(data: Any) -> dict[str, Any] | None:
    """A check record as the arena writes them, or None: a hand-made one with other types in its
    fields (a version that is a table) must not reach the listing."""
    if not isinstance(data, dict):
        return None
    texts = all(isinstance(data.get(key, ""), str) for key in ("version", "date"))
    rules = data.get("rules") or {}
    plain_rules = isinstance(rules, dict) and all(isinstance(v, (str, int, float, bool)) for v in rules.values())
    return data if texts and plain_rules and isinstance(data.get("passed", False), bool) else None


def load_versions(directory: Path) -> list[dict[str, Any]]:
    """The bot's version history, oldest first: {"version", "first_seen", "check"} each."""
    data = _read_record(Path(directory) / VERSIONS_FILE)
    if not isinstance(data, list):
        return []
    return [{**entry, "check": _check_record(entry.get("check"))} for entry in data
            if isinstance(entry, dict) and isinstance(entry.get("version"), str)
            and isinstance(entry.get("first_seen", ""), str)]


def note_version(directory: Path, version: str, check: dict[str, Any] | None = None) -> None:
    """Add `version` to the bot's history when it is new (first seen now), and `check` as its last
    check when given. Raises OSError when the folder cannot be written."""
    history = load_versions(directory)
    entry = next((e for e in history if e["version"] == version), None)
    if entry is None:
        last = load_check(directory)  # a check made before the history was kept, of this very version
        known = {key: last.get(key) for key in ("passed", "date", "rules")} if last and last.get("version") == version else None
        entry = {"version": version, "first_seen": _now(), "check": known}
        history.append(entry)
    elif check is None:
        return  # known, and nothing new to say
    if check is not None:
        entry["check"] = check
    write_small(Path(directory) / VERSIONS_FILE, (json.dumps(history, indent=1) + "\n").encode("utf-8"))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def load_check(directory: Path) -> dict[str, Any] | None:
    return _check_record(_read_record(Path(directory) / CHECK_FILE))


def kept_check_path(name: str, version: str) -> Path:
    # Beside the build cache (cache_dir() is its builds/): per user, outside the installed package
    # and out of every author's reach, and per version.
    return cache_dir().parent / "checks" / f"{name}-{version}.json"


def keep_check(name: str, report_dict: dict[str, Any]) -> Path:
    """Store a check (CheckReport.to_dict(), its version set) in the per-user cache, with the date:
    the record a tournament admits a version by, and `bot list`'s of a bundled bot, whose folder is
    never written. OSError when the cache cannot be written."""
    data = {**report_dict, "date": _now()}
    path = kept_check_path(name, str(data.get("version") or ""))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_small(path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))
    return path


def load_kept_check(name: str, version: str) -> dict[str, Any] | None:
    """The check of this version kept in the per-user cache, or None."""
    try:
        return _check_record(_read_record(kept_check_path(name, version)))
    except FolderError:  # not a file the arena wrote: as if none
        return None


def _last_check(directory: Path, name: str, version: str) -> dict[str, Any] | None:
    """The bot's last check: the later of its .check.json and the per-user record of its version
    (a bundled bot's folder, or a folder checked without being registered, holds none)."""
    check = load_check(directory)
    if not version:
        return check
    cached = load_kept_check(name, version)
    if check is None or (cached is not None and str(cached.get("date", "")) > str(check.get("date", ""))):
        return cached
    return check


def set_version(manifest_path: Path, version: str) -> None:
    """Write `version = "<hash>"` as a top-level key of bot.toml, keeping every other line."""
    lines = read_small(Path(manifest_path)).decode("utf-8").splitlines()
    out: list[str] = []
    placed = False
    in_top = True
    for line in lines:
        if in_top and _TABLE.match(line):
            if not placed:
                out.append(f'version = "{version}"')
                placed = True
            in_top = False
        if in_top and _TOP_VERSION.match(line):
            if not placed:
                out.append(f'version = "{version}"')
                placed = True
            continue
        out.append(line)
    if not placed:
        out.append(f'version = "{version}"')
    write_small(Path(manifest_path), ("\n".join(out) + "\n").encode("utf-8"))


def _copy_bot(src: Path, dest: Path) -> None:
    """Copy the bot's source files (not its build outputs) to dest: files by content, links (to its
    own files) as links, never a link's target."""
    entries = bot_entries(src)  # before dest exists: a refused folder leaves nothing behind
    dest.mkdir(parents=True)
    copy_entries(src, entries, dest)


@dataclass(frozen=True)
class Registered:
    name: str
    directory: Path
    version: str
    previous_version: str
    copied: bool
    note: str = ""  # a version line of the folder that was not this bot's, ignored (`recorded_version`)


def destination(source: BotManifest, bots_dir: Path | None = None, *, replace: bool = False) -> Path:
    """Where `register` puts `source`: bots_dir/<name>/ (default: the workspace's bots/). RegistryError
    when the name is no folder of bots_dir, or (without `replace`) another folder holds a bot of that
    name: `bot add` asks before its check, which costs seconds."""
    bots_dir = Path(bots_dir) if bots_dir is not None else workspace_bots_dir()
    dest = (bots_dir / source.name).resolve()
    if dest.parent != bots_dir.resolve():  # a name is one folder of bots/, never a way out of it
        raise RegistryError(f"{source.path}: key 'name': {source.name!r} names no folder of {bots_dir}")
    if dest != source.directory.resolve() and dest.exists() and not replace:
        raise RegistryError(f"{dest} already exists (a different folder holds a bot named {source.name!r}); "
                            f"use --replace to register this folder as its new version")
    return dest


def register(source: BotManifest, bots_dir: Path | None = None, *, replace: bool = False) -> Registered:
    """Put the (already checked) bot under bots_dir/<name>/ (default: the workspace's bots/) and
    record its content hash."""
    bots_dir = Path(bots_dir) if bots_dir is not None else workspace_bots_dir()
    src = source.directory.resolve()
    dest = destination(source, bots_dir, replace=replace)
    previous = note = ""
    copied = False
    if src != dest:
        if dest.exists():
            try:
                previous, note = recorded_version(load_manifest(dest))
            except ManifestError:
                previous = ""
        bots_dir.mkdir(parents=True, exist_ok=True)
        # Copied aside first: a folder refused half-way (a link out, a FIFO) leaves the registered
        # version as it was.
        staging = Path(tempfile.mkdtemp(prefix=f".{source.name}-", dir=bots_dir))
        try:
            _copy_bot(src, staging / "bot")
            for kept in (CHECK_FILE, VERSIONS_FILE):  # what the arena knows of the bot goes with it
                try:
                    write_small(staging / "bot" / kept, read_small(src / kept))
                except FileNotFoundError:
                    pass
            if dest.exists():
                shutil.rmtree(dest)
            os.rename(staging / "bot", dest)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        copied = True
    else:
        previous, note = recorded_version(source)
    version = content_hash(dest)
    set_version(dest / MANIFEST_NAME, version)
    manifest = load_manifest(dest / MANIFEST_NAME)  # still valid after the edit
    if content_hash(manifest) != version:  # pragma: no cover - the version line is excluded from the hash
        raise RegistryError(f"{dest}: the content hash changed while registering")
    return Registered(source.name, dest, version, previous, copied, note)


@dataclass(frozen=True)
class ListedBot:
    name: str
    language: str
    transport: str
    version: str  # recorded in bot.toml by `bot add` ("" if not registered, or the line is not this bot's)
    current: str  # content hash now; differs from version when the files changed since `add`
    check: dict[str, Any] | None
    error: str = ""
    history: tuple[dict[str, Any], ...] = ()  # every version seen, oldest first (load_versions)
    note: str = ""  # why bot.toml's version line was ignored
    directory: Path | None = None  # its folder (check/admission.py: whether it needs a check to play)


def recorded_version(manifest: BotManifest) -> tuple[str, str]:
    """bot.toml's `version =` as the version `bot add` registered of this bot, and ""; or "" and why
    the line is ignored. A folder copied from another bot keeps that bot's line: it is this bot's
    only if a check of this name and version was kept here, or the folder's own last check says so."""
    version = manifest.version
    if not version:
        return "", ""
    check = None
    try:
        check = load_check(manifest.directory)
    except FolderError:
        pass
    ours = check is not None and check.get("bot") == manifest.name and check.get("version") == version
    if ours or load_kept_check(manifest.name, version) is not None:
        return version, ""
    return "", (f"{manifest.path}: version = \"{version}\" is no version registered or checked here of "
                f"{manifest.name} (a line copied with another bot's folder?): ignored; `arena bot add` writes it anew")


def list_registered(bots_dir: Path | None = None, *, remember: bool = True) -> list[ListedBot]:
    """Every bot folder under bots_dir (default: the workspace's bots/), including ones whose
    manifest is broken (error set). With `remember`, a version seen for the first time is noted
    in the bot's history; never in the installed package's bundled bots."""
    bots_dir = Path(bots_dir) if bots_dir is not None else workspace_bots_dir()
    out: list[ListedBot] = []
    if not bots_dir.is_dir():
        return out
    for path in sorted(bots_dir.glob(f"*/{MANIFEST_NAME}")):
        try:
            m = read_manifest(path)
        except ManifestError as exc:
            out.append(ListedBot(path.parent.name, "", "", "", "", None, error=str(exc)))
            continue
        try:
            current = content_hash(m)
            if remember:
                try:
                    note_version(m.directory, current)  # first seen now, if it is new
                except FolderError:
                    raise
                except OSError:
                    pass  # a folder we may not write: the list still shows it
            recorded, note = recorded_version(m)
            listed = ListedBot(m.name, m.language, m.transport, recorded, current,
                               _last_check(m.directory, m.name, current), history=tuple(load_versions(m.directory)),
                               note=note, directory=m.directory)
        except ManifestError as exc:  # a file of the folder refused: named in the bot's row
            listed = ListedBot(m.name, m.language, m.transport, m.version, "", None, error=str(exc), directory=m.directory)
        out.append(listed)
    return out


HIDDEN = "bundled, hidden by the workspace's"  # a bundled bot whose name a workspace's own takes


def listed_with_bundled(folder: Path, with_bundled: bool) -> list[tuple[ListedBot, str]]:
    """`arena bot list`'s bots: those of `folder`, each with "" beside it; with `with_bundled`, the
    workspace's ("workspace"), then the bundled ones ("bundled", or HIDDEN: a name in both means
    the workspace's)."""
    bots = [(b, "") for b in list_registered(folder)] if folder.is_dir() else []
    if not with_bundled:
        return bots
    mine = {b.name for b, _ in bots}
    return [(b, "workspace") for b, _ in bots] + [(b, HIDDEN if b.name in mine else "bundled")
                                                  for b in list_registered(BUNDLED_BOTS_DIR, remember=False)]


__all__ = ["CHECK_FILE", "VERSIONS_FILE", "HIDDEN", "RegistryError", "Registered", "ListedBot", "destination", "register",
           "list_registered",
           "listed_with_bundled", "recorded_version",
           "save_check", "keep_check", "load_kept_check", "kept_check_path", "load_check", "load_versions", "note_version", "set_version"]
