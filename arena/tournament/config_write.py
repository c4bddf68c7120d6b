"""Writing a tournament config from options (`arena tournament new`): checked as a loaded config
is, each key by its entry of config_keys.KEYS and an error naming the option, with the bots given
on the command line written relative to the config's folder, and written whole or not at all."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import tomli_w

from arena.game import GameError, Rules
from arena.schedule.kinds import kind_for_options
from arena.submission.lookup import resolve_manifest_path
from arena.submission.manifest import MANIFEST_NAME, NAME_RE, BotManifest, ManifestError
from arena.submission.workspace import TOURNAMENTS, lookup_dirs, workspace_or_here
from arena.tournament.config import config_from_dict, load_entries
from arena.tournament.config_keys import KEYS, ConfigError, OptionWords
from arena.tournament.option_pairs import rule_options
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


def config_path(given: Path) -> Path:
    """Where `arena tournament new` writes: a bare name (`mine`: no folder, no suffix) means the
    workspace's tournaments/mine.toml; a file name or path (`mine.toml`) is written where it says."""
    if len(given.parts) != 1 or given.suffix or given.name in (".", ".."):
        return given
    return workspace_or_here() / TOURNAMENTS / (given.name + ".toml")


def write_config(path: Path, given: dict[str, Any]) -> dict[str, BotManifest]:
    """Write a config from the options of `arena tournament new`: `given` maps each key of
    config_keys.KEYS to its value (None, or left out: the option's default; `rules`: the --rule
    OPTION=VALUE pairs). Validated first, as a loaded config is, so that what is written always loads; an
    error names the option. Paths given (bots, `database`) start from the current folder; they
    are written relative to the config's folder, where a config's relative paths start. Returns
    the bots' manifests, by name."""
    words = OptionWords(path)
    data = _config_data(path, given, words)
    _, manifests = load_entries(config_from_dict(data, path, words), words)  # also: every bot exists, none twice
    text = ISOLATION_NOTE.get(data.get("isolation", ""), "") + tomli_w.dumps(data)
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
    return manifests


def _config_data(path: Path, given: dict[str, Any], words: OptionWords) -> dict[str, Any]:
    """The config's TOML table, in the order of the keys' table, from the options given."""
    values = {key.name: key.option.default for key in KEYS if key.option} | given  # as `tournament new`'s
    values.update(name=given.get("name") or path.stem, schedule=_schedule(given, words))
    if values.get("seed") is None:  # a bot that knows the seed can deal every hand itself
        values["seed"] = secrets.randbelow(2**31)
    values["bots"] = [_entry_for_config(ref, path.parent) for ref in given["bots"]]
    if given.get("database") is not None:
        database = Path(given["database"]).expanduser()
        values["database"] = str(database if database.is_absolute()
                                 else os.path.relpath(database.resolve(), path.parent.resolve()))
    rules = _rules(rule_options(given.get("rules")), values["table_size"], words)
    values.update({key: rules.pop(key) for key in ("scoring", "fault_policy") if key in rules})
    values["rules"] = rules or None
    data: dict[str, Any] = {}
    for key in KEYS:
        if values.get(key.name) is not None:
            *tables, leaf = key.name.split(".")
            place = data
            for table in tables:
                place = place.setdefault(table, {})
            place[leaf] = values[key.name]
    return data


def _schedule(given: dict[str, Any], words: OptionWords) -> str:
    """The schedule named, else balanced with --tables, a gauntlet with --challengers, else a round robin."""
    if given.get("schedule") is not None:
        return str(given["schedule"])
    if given.get("tables") is not None and given.get("challengers") is not None:
        raise ConfigError(f"{words.name('tables')} makes a balanced schedule and {words.name('challengers')} a "
                          "gauntlet: give one of them")
    return kind_for_options(given.get("tables"), given.get("challengers"))


def _rules(options: dict[str, str], table_size: int, words: OptionWords) -> dict[str, Any]:
    """The rule options given as text, as the config's [rules] writes them: validated, in TOML's types,
    only those that differ from the rules' defaults."""
    options = dict(options)
    if options.get("num_players", str(table_size)) != str(table_size):
        raise ConfigError(f"{words.name('rules')} num_players={options['num_players']} does not match "
                          f"{words.name('table_size')} {table_size}")
    options["num_players"] = str(table_size)
    try:
        rules = Rules.from_options(options).changed_options()
    except GameError as exc:
        raise words.error("rules", str(exc)) from None
    rules.pop("num_players", None)
    return rules


def set_frozen(path: Path, frozen: bool = True) -> bool:
    """Write `frozen = true` (or false) into a league's config, its other lines and comments kept:
    the key's line replaced, else a line added before the first table. Returns False when it says
    so already. ConfigError unless the file is a league's config that still loads after the edit."""
    import re

    from arena.tournament.config import load_config

    config = load_config(path)
    if not config.kind.open_ended:
        raise ConfigError(f"{path}: only a league (schedule = \"league\") can be frozen; this is {config.kind.words}, "
                          "which ends with its last game")
    if config.frozen == frozen:
        return False
    text = path.read_text(encoding="utf-8")
    line = f"frozen = {'true' if frozen else 'false'}"
    key_line = re.compile(r"^frozen\s*=.*$", re.M)
    first_table = re.search(r"^\s*\[", text, re.M)
    if key_line.search(text[:first_table.start()] if first_table else text):
        edited = key_line.sub(line, text, count=1)
    elif first_table:
        edited = text[:first_table.start()] + line + "\n\n" + text[first_table.start():]
    else:
        edited = text + ("" if text.endswith("\n") or not text else "\n") + line + "\n"
    import tomllib

    try:
        if bool(tomllib.loads(edited).get("frozen")) != frozen:
            raise ValueError("the edit did not take")
    except ValueError as exc:  # never leave the organiser's file worse than it was
        raise ConfigError(f"{path}: could not write {line} into it ({exc}); add the line yourself") from None
    write_output(path, edited, "the config")
    return True


def _checked_edit(path: Path, edited: str, wanted: Any, what: str) -> None:
    """Write `edited` over the config at `path` if it parses and `wanted(data)` holds, else refuse."""
    import tomllib

    try:
        if not wanted(tomllib.loads(edited)):
            raise ValueError("the edit did not take")
    except ValueError as exc:  # never leave the organiser's file worse than it was
        raise ConfigError(f"{path}: could not write {what} into it ({exc}); add it yourself") from None
    write_output(path, edited, "the config")


def add_bot_entry(path: Path, *entries: str) -> bool:
    """Append `entries` to the config's `bots` (the league server entering bots), the file's other
    lines and comments kept, in one write (a running league takes them in one change). Returns
    False when every one is there already."""
    import re
    import tomllib

    text = path.read_text(encoding="utf-8")
    bots = list(tomllib.loads(text).get("bots") or [])
    new = [entry for entry in dict.fromkeys(entries) if entry not in bots]
    if not new:
        return False
    found = re.search(r"^bots\s*=\s*\[.*?\]", text, re.M | re.S)
    if found is None:
        raise ConfigError(f"{path}: no `bots = [...]` line to add {', '.join(new)} to")
    line = "bots = [" + ", ".join(f'"{name}"' for name in [*bots, *new]) + "]"
    _checked_edit(path, text[:found.start()] + line + text[found.end():],
                  lambda data: list(data.get("bots") or []) == [*bots, *new], f"the bots {', '.join(new)}")
    return True


def grant_unchecked(path: Path, name: str) -> None:
    """`[grant.NAME] unchecked = true` in the config: the organiser lets a bot in whose check failed."""
    import re

    text = path.read_text(encoding="utf-8")
    header = re.search(rf"^\[grant\.{re.escape(name)}\]\s*$", text, re.M)
    if header is not None:
        edited = text[:header.end()] + "\nunchecked = true" + text[header.end():]
    else:
        edited = text + ("" if text.endswith("\n") else "\n") + f"\n[grant.{name}]\nunchecked = true\n"
    _checked_edit(path, edited, lambda data: (data.get("grant") or {}).get(name, {}).get("unchecked") is True,
                  f"[grant.{name}] unchecked = true")
