"""Writing a tournament config from options (`arena tournament new`): checked as a loaded config
is, with the bots given on the command line written relative to the config's folder, and
written whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import tomli_w

from arena.schedule.kinds import DEFAULT
from arena.submission.lookup import resolve_manifest_path
from arena.submission.manifest import MANIFEST_NAME, NAME_RE, ManifestError
from arena.submission.workspace import lookup_dirs
from arena.tournament.config import ConfigError, config_from_dict, load_entries
from arena.tournament.output_files import write_output


def _entry_for_config(ref: str, config_dir: Path) -> str:
    """A bot given on the command line (relative to the current folder) as a config entry
    (relative to the config's folder), so the written config works from anywhere."""
    try:
        found = resolve_manifest_path(ref)
    except ManifestError:
        return ref  # load_entries reports it, naming the config
    path = Path(ref).expanduser()
    if path.is_absolute() or _same_by_name(ref, found, config_dir):
        return ref
    relative = os.path.relpath(path.resolve(), config_dir.resolve())
    # A bot folder beside the config must not be written as a bare name: a name means the bot of
    # that name under bots/ first (a copy of random_bot in ./random_bot played as the bundled one).
    return relative if os.sep in relative or relative in (".", "..") else "./" + relative


def _same_by_name(ref: str, found: Path, config_dir: Path) -> bool:
    """`ref` was found as a name (in the workspace's bots/ or among the bundled bots), and names
    that very bot from the config's folder too (whose workspace it is, arena/submission/workspace.py)."""
    if not NAME_RE.match(ref) or not any(found == d / ref / MANIFEST_NAME for d in lookup_dirs()):
        return False
    try:
        return resolve_manifest_path(ref, base_dir=config_dir).resolve() == found.resolve()
    except ManifestError:
        return False


# Said above the keys, where the organiser reads the config.
ISOLATION_NOTE = {
    "required": ("# isolation = \"required\": each bot sees only its own folder (bubblewrap), and without it the\n"
                 "# run is refused (apt-get install bubblewrap). \"auto\" runs bots without it where it is missing,\n"
                 "# with whatever the arena's user can read: only for bots you trust (docs/sandbox.md).\n"),
}


def write_config(path: Path, *, name: str, bots: list[str], seed: int, table_size: int, deals: int,
                 rules: dict[str, Any], workers: int | None, move_timeout_s: float, startup_timeout_s: float,
                 schedule: str = DEFAULT, tables: int | None = None, challengers: int | None = None,
                 database: Path | None = None, isolation: str = "required") -> None:
    """Write a config (validated first, so what is written always loads). Paths given (bots,
    `database`) start from the current folder; they are written relative to the config's folder,
    where a config's relative paths start. `isolation`: "required" unless asked otherwise: an
    organiser's tournament runs other people's bots (docs/sandbox.md)."""
    entries = [_entry_for_config(ref, path.parent) for ref in bots]
    data: dict[str, Any] = {"name": name, "seed": seed, "bots": entries, "table_size": table_size, "deals": deals}
    if workers is not None:
        data["workers"] = workers
    if schedule != DEFAULT or tables is not None:
        data["schedule"] = schedule
    if tables is not None:
        data["tables"] = tables
    if challengers is not None:
        data["challengers"] = challengers
    if database is not None:
        given = database.expanduser()
        data["database"] = str(given if given.is_absolute() else os.path.relpath(given.resolve(), path.parent.resolve()))
    rule_table = dict(rules)
    for key in ("scoring", "fault_policy"):
        if key in rule_table:
            data[key] = rule_table.pop(key)
    if rule_table:
        data["rules"] = rule_table
    data["isolation"] = isolation
    data["limits"] = {"move_timeout_s": move_timeout_s, "startup_timeout_s": startup_timeout_s}
    load_entries(config_from_dict(data, path))  # also: every bot exists, none is listed twice
    text = ISOLATION_NOTE.get(isolation, "") + tomli_w.dumps(data)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{path}: a name or bot given is not valid UTF-8 text") from None
    # Written whole or not at all (a failed write never leaves an empty or half config behind),
    # and only as a regular file: never through a link, nor over a device or FIFO (--force).
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_output(path, text, "the config")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the config ({exc.strerror or exc})") from None
