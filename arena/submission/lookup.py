"""Finding bots: a bot named on the command line or in a config (a name in the workspace's bots/
or among the bundled bots, a bot folder, or its bot.toml) to its manifest, and every bot of a
folder. Where names are looked up: arena/submission/workspace.py."""

from __future__ import annotations

import os
from pathlib import Path

from arena.submission.manifest import MANIFEST_NAME, NAME_RE, BotManifest, ManifestError, read_manifest
from arena.submission.workspace import BUNDLED_BOTS_DIR, lookup_dirs


def resolve_manifest_path(ref: str | Path, bots_dir: Path | None = None, base_dir: Path | None = None) -> Path:
    """A bot name, a path to bot.toml, or a path to a bot folder -> the bot.toml path.

    A bare name means the bot of that name in `bots_dir` (default: the workspace's bots/, of
    `base_dir` when given), then among the bundled bots, whatever folders the current directory
    holds: a stray ./random_bot must not change which bot a tournament plays. A relative path
    starts from `base_dir` (a tournament config's folder), else from the current folder."""
    try:
        return _resolve_manifest_path(ref, lookup_dirs(bots_dir, base_dir), base_dir)
    except OSError as exc:  # e.g. a bot folder nobody may read
        raise ManifestError(f"{ref}: cannot read the bot ({exc.strerror or exc})") from None


def _resolve_manifest_path(ref: str | Path, folders: list[Path], base_dir: Path | None) -> Path:
    text = str(ref)
    # A name as typed (a str) means a bot of the bots folders first; a Path is always a path.
    if isinstance(ref, str) and NAME_RE.match(text):
        for bots_dir in folders:
            if (bots_dir / text / MANIFEST_NAME).is_file():
                return bots_dir / text / MANIFEST_NAME
            # A folder named otherwise than its bot (bots/renamed holding name = "cg2"): the
            # listing below names the bot, so the name must find it.
            named = [m.path for m in _safe_list(bots_dir) if m.name == text and m.path is not None]
            if len(named) == 1:
                return named[0]
    candidate = Path(ref).expanduser()
    if base_dir is not None and not candidate.is_absolute():
        # Lexical "..": the config's folder may not exist yet while `tournament new` checks it.
        candidate = Path(os.path.normpath(Path(base_dir).resolve() / candidate))
    if candidate.is_file():
        if candidate.suffix.lower() != ".toml":  # e.g. the bot's program: its TOML error misled
            beside = candidate.parent / MANIFEST_NAME
            hint = (f"; its folder has one: {candidate.parent}" if beside.is_file()
                    else f"; a {MANIFEST_NAME} beside the program says how to run it (arena bot new writes one)")
            raise ManifestError(f"{candidate}: not a bot manifest (a .toml file): give the bot's folder or its "
                                f"{MANIFEST_NAME}{hint}")
        return candidate
    if candidate.is_dir():
        inner = candidate / MANIFEST_NAME
        if inner.is_file():
            return inner
        raise ManifestError(f"{inner}: no {MANIFEST_NAME} in the bot folder {candidate}")
    if NAME_RE.match(text):
        wanted = folders[0] / text / MANIFEST_NAME
        known = ", ".join(sorted({m.name for bots_dir in folders for m in _safe_list(bots_dir)})) or "none"
        where = " or ".join(str(f) for f in folders)
        raise ManifestError(f"{wanted}: no bot named {text!r} in {where} (bots there: {known})")
    raise ManifestError(f"{candidate}: no such manifest file or bot folder")


def _safe_list(bots_dir: Path) -> list[BotManifest]:
    try:
        return list_bots(bots_dir)
    except (OSError, ManifestError):
        return []


def load_manifest(ref: str | Path, bots_dir: Path | None = None, base_dir: Path | None = None) -> BotManifest:
    """Find and load a manifest; ManifestError names the file, the key and what was expected. What
    runs is its prepared copy (arena/submission/prepared.py), made by the command that plays it."""
    return read_manifest(resolve_manifest_path(ref, bots_dir, base_dir))


def list_bots(bots_dir: Path | None = None) -> list[BotManifest]:
    """Every valid manifest `bots_dir/*/bot.toml` (default: the bundled bots), by name (invalid
    ones raise ManifestError)."""
    bots_dir = Path(bots_dir) if bots_dir is not None else BUNDLED_BOTS_DIR
    if not bots_dir.is_dir():
        return []
    found = [read_manifest(p) for p in sorted(bots_dir.glob(f"*/{MANIFEST_NAME}"))]
    return sorted(found, key=lambda m: m.name)
