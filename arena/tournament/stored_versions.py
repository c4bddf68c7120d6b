"""Which version of each bot the stored games of a folder's tournaments used (`arena bot list`).

Each tournament's results file keeps, in its fingerprint, the version (content hash) every bot
played its current games at (arena/tournament/runner.py). Reading it never changes the file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.results.rows import StoreError
from arena.results.store import ResultStore
from arena.tournament.config import ConfigError, load_config
from arena.tournament.resubmission import split_names, stored_versions as versions_in
from arena.wording import shell_command


@dataclass(frozen=True, slots=True)
class StoredVersion:
    tournament: str  # the config's file name without .toml
    version: str  # the content hash the bot's current stored games were played at
    withdrawn: bool  # the bot left that tournament; its games are out of the standings


def superseded_notes(name: str, version: str, tournaments_dir: Path) -> list[str]:
    """After `version` of bot `name` is registered: what becomes of the games each tournament in
    `tournaments_dir` stored of an older one (docs/organising.md, "Resubmission and withdrawal"),
    so that the next run's stop is no surprise."""
    notes = []
    for s in stored_versions(tournaments_dir).get(name, []):
        if s.version != version and not s.withdrawn:
            config = Path(tournaments_dir) / f"{s.tournament}.toml"
            notes.append(f"{s.tournament} has games of {name} stored at version {s.version}: they stay stored and "
                         f"counted; its next run stops, naming {name}, until you take the new version with "
                         f"{shell_command('arena', 'tournament', 'run', config, '--update')} (its old games are then "
                         "superseded, kept aside, and its tables played again)")
    return notes


def stored_versions(tournaments_dir: Path) -> dict[str, list[StoredVersion]]:
    """bot name -> the version each tournament in `tournaments_dir` stored it at. Configs that do
    not load and results files that cannot be read are passed over: a listing is not the place to
    report them (`arena tournament run` and `arena standings` do)."""
    found: dict[str, list[StoredVersion]] = {}
    for path in sorted(Path(tournaments_dir).glob("*.toml")):
        try:
            config = load_config(path)
        except (ConfigError, OSError):
            continue
        if not config.database.is_file():
            continue
        try:
            with ResultStore(config.database, read_only=True) as store:
                fingerprint = store.fingerprint() or {}
        except (StoreError, OSError, ValueError):
            continue
        withdrawn = set(split_names(fingerprint.get("withdrawn")))
        for bot, version in versions_in(fingerprint).items():
            if version:
                found.setdefault(bot, []).append(StoredVersion(path.stem, version, bot in withdrawn))
    return found


__all__ = ["StoredVersion", "stored_versions", "superseded_notes"]
