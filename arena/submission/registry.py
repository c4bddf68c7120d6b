"""Registered bots: `arena bot add PATH` and `arena bot list`.

A registered bot is a folder `bots/<name>/` whose bot.toml carries `version = "<hash>"`: the first
12 hex digits of `arena.submission.versions.content_hash` (sha256 over the sorted relative paths and bytes of the
bot's files, without build outputs in its .gitignore, __pycache__ and .check.json). A changed bot
hashes differently, so it is a new version; stored games record the version that played.

The last check result lives beside the manifest in `bots/<name>/.check.json`:
`{"passed": true, "date": "2025-01-01T12:00:00+00:00", "version": "...", "checks": [...]}`.
It is excluded from the content hash.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arena.submission.lookup import DEFAULT_BOTS_DIR, load_manifest
from arena.submission.manifest import MANIFEST_NAME, BotManifest, ManifestError
from arena.submission.versions import bot_files, content_hash

CHECK_FILE = ".check.json"
_TOP_VERSION = re.compile(r"^\s*version\s*=.*$")
_TABLE = re.compile(r"^\s*\[")


class RegistryError(Exception):
    """A bot that cannot be registered (clear message for the CLI)."""


def save_check(directory: Path, report_dict: dict[str, Any]) -> Path:
    """Store a check result (CheckReport.to_dict()) as directory/.check.json, with the date."""
    data = dict(report_dict)
    data["date"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    path = Path(directory) / CHECK_FILE
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def load_check(directory: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((Path(directory) / CHECK_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def set_version(manifest_path: Path, version: str) -> None:
    """Write `version = "<hash>"` as a top-level key of bot.toml, keeping every other line."""
    lines = Path(manifest_path).read_text(encoding="utf-8").splitlines()
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
    Path(manifest_path).write_text("\n".join(out) + "\n", encoding="utf-8")


def _copy_bot(src: Path, dest: Path) -> None:
    """Copy the bot's source files (not its build outputs) to dest."""
    dest.mkdir(parents=True)
    for rel in bot_files(src):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, target)


@dataclass(frozen=True)
class Registered:
    name: str
    directory: Path
    version: str
    previous_version: str
    copied: bool


def register(source: BotManifest, bots_dir: Path | None = None, *, replace: bool = False) -> Registered:
    """Put the (already checked) bot under bots_dir/<name>/ and record its content hash."""
    bots_dir = Path(bots_dir) if bots_dir is not None else DEFAULT_BOTS_DIR
    src = source.directory.resolve()
    dest = (bots_dir / source.name).resolve()
    previous = ""
    copied = False
    if src != dest:
        if dest.exists():
            try:
                previous = load_manifest(dest).version
            except ManifestError:
                previous = ""
            if not replace:
                raise RegistryError(
                    f"{dest} already exists (a different folder holds a bot named {source.name!r}); "
                    f"use --replace to register this folder as its new version")
            shutil.rmtree(dest)
        bots_dir.mkdir(parents=True, exist_ok=True)
        _copy_bot(src, dest)
        copied = True
        check = load_check(src)
        if check is not None:
            shutil.copy2(src / CHECK_FILE, dest / CHECK_FILE)
    else:
        previous = source.version
    version = content_hash(dest)
    set_version(dest / MANIFEST_NAME, version)
    manifest = load_manifest(dest / MANIFEST_NAME)  # still valid after the edit
    if content_hash(manifest) != version:  # pragma: no cover - the version line is excluded from the hash
        raise RegistryError(f"{dest}: the content hash changed while registering")
    return Registered(source.name, dest, version, previous, copied)


@dataclass(frozen=True)
class ListedBot:
    name: str
    language: str
    transport: str
    version: str  # recorded in bot.toml ("" if not registered)
    current: str  # content hash now; differs from version when the files changed since `add`
    check: dict[str, Any] | None
    error: str = ""


def list_registered(bots_dir: Path | None = None) -> list[ListedBot]:
    """Every bot folder under bots_dir, including ones whose manifest is broken (error set)."""
    bots_dir = Path(bots_dir) if bots_dir is not None else DEFAULT_BOTS_DIR
    out: list[ListedBot] = []
    if not bots_dir.is_dir():
        return out
    for path in sorted(bots_dir.glob(f"*/{MANIFEST_NAME}")):
        try:
            m = load_manifest(path)
        except ManifestError as exc:
            out.append(ListedBot(path.parent.name, "", "", "", "", None, error=str(exc)))
            continue
        try:
            current = content_hash(m)
        except ManifestError:
            current = ""  # shown as unknown; `arena bot check` names the unreadable file
        out.append(ListedBot(m.name, m.language, m.transport, m.version, current, load_check(m.directory)))
    return out


__all__ = ["CHECK_FILE", "RegistryError", "Registered", "ListedBot", "register", "list_registered",
           "save_check", "load_check", "set_version"]
