"""Tournament configs (`tournaments/*.toml`): load and validate, with messages naming file and key
(writing one from options: arena/tournament/config_write.py).

    name = "demo"
    seed = 42
    bots = ["random_bot", "heuristic_bot", "../mybots/x"]  # names under bots/, or bot folders or
                              # manifests; a relative path starts from the config's own folder
    table_size = 3
    deals = 2                 # deals per table; each is played in every seating (duplicate play)
    scoring = "placement"     # or "pot" (R54, R55); every game is scored on its own
    fault_policy = "fallback" # or "forfeit" (R52, R53)
    workers = 2               # default: the number of cores
    schedule = "round_robin"  # or "balanced" with `tables = N`, or "gauntlet": the first
                              # `challengers = N` bots (default 1) each meet every combination
                              # of the others
    database = "demo.sqlite"  # default: beside the config, named after it

    [rules]                   # any other rule option of the rules page
    ace_high = false

    [limits]
    move_timeout_s = 2.0
    startup_timeout_s = 10.0
    start_retry_s = 120.0     # a bot that cannot be started or reached for a reason outside its
                              # code (a service down) is tried again this long; then its games are void

    isolation = "auto"        # each bot sees only its own folder where bubblewrap works here;
                              # "required" refuses to run without, "off" (docs/sandbox.md)
    on_change = "refuse"      # a bot resubmitted (its files changed) or taken out of `bots` with
                              # games stored: "refuse" says how, "replay" plays its tables again
    cluster = "tcp://scheduler:8786"  # play the tables on this Dask cluster (docs/cluster.md)
    stop = "sprt"             # a gauntlet of 1 or 2 challengers: deals until the SPRT decides
    sprt_delta1 = 0.1         # (and sprt_delta0 = 0, sprt_alpha = sprt_beta = 0.05): docs/organising.md, Early stopping

    [sandbox]                 # the ceilings of every bot's limits: the most its manifest may
    address_space_mb = 8192   # ask for (docs/sandbox.md)

    [grant.java_bot]          # one bot's own: higher ceilings, a tcp endpoint (docs/sandbox.md)
    address_space_mb = 16384
    zmq_tcp = true
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.game import GameError, Rules
from arena.play.records import (MOVE_TIMEOUT_RANGE_S, START_RETRY_RANGE_S, START_RETRY_S, STARTUP_TIMEOUT_RANGE_S,
                                time_limit_problem)
from arena.sandbox.isolation import ISOLATION_MODES
from arena.sandbox.limits import first_limit_problem, grant_problem
from arena.results.sprt import SprtSettings
from arena.tournament.stop_config import STOP_KEYS, stop_settings
from arena.schedule.kinds import DEFAULT, KINDS, NAMES, Balanced, Gauntlet, Layout, ScheduleKind, schedule_kind
from arena.schedule.numbers import PAIRED, GameNumbers
from arena.submission.lookup import load_manifest
from arena.tournament.resubmission import ON_CHANGE_MODES
from arena.submission.manifest import BotManifest, ManifestError, toml_text
from arena.wording import as_written, count

MAX_WORKERS = 256  # a worker is a process with its table's bots: far more than any machine's cores

TOP_KEYS = {
    "name": "a text", "seed": "a whole number from -2**62 to 2**62", "bots": "a list of bot names or manifest paths",
    "table_size": "a whole number from 2 to 5", "deals": "a whole number of at least 1",
    "scoring": "placement or pot", "fault_policy": "fallback or forfeit", "workers": f"a whole number from 1 to {MAX_WORKERS}",
    "schedule": f"{', '.join(NAMES[:-1])} or {NAMES[-1]}", "tables": "a whole number of at least 1 (balanced schedule)",
    "challengers": "a whole number of at least 1 (gauntlet schedule): how many of the first bots challenge the others",
    "database": "a path to the SQLite results file", "rules": "a table of rule options",
    "limits": "a table with move_timeout_s, startup_timeout_s and start_retry_s",
    "sandbox": "a table of the ceilings of bot resource limits (docs/sandbox.md)",
    "grant": "a table of bots' own grants, [grant.NAME] (docs/sandbox.md)",
    "isolation": "auto, required or off: whether each bot sees only its own folder (docs/sandbox.md)",
    "cluster": "the address of a Dask scheduler, e.g. tcp://scheduler:8786 (docs/cluster.md)",
    "on_change": "refuse or replay: what a run does when a bot's files changed or a bot was taken out",
    **STOP_KEYS,
}
# Options of a match at one table (`arena play`): a tournament scores each game on its own and
# its schedule rotates the dealer by deal, so accepting them would change nothing, silently.
MATCH_ONLY_OPTIONS = ("next_dealer", "target_points", "max_games", "games")
# Planning holds every game of the schedule in memory (1,000,000 games: about 3 s and 280 MB
# here), and 2,000,000 games take most of a day on a two-core machine. Beyond that a typo in
# `deals` or `tables` would only stall the run before its first game.
MAX_TOURNAMENT_GAMES = 2_000_000
SEED_RANGE = (-(2**62), 2**62)  # a tournament's seed, and `arena play`'s
LIMIT_KEYS = {"move_timeout_s": MOVE_TIMEOUT_RANGE_S, "startup_timeout_s": STARTUP_TIMEOUT_RANGE_S,
              "start_retry_s": START_RETRY_RANGE_S}
LIMIT_DEFAULTS = {"move_timeout_s": 2.0, "startup_timeout_s": 10.0, "start_retry_s": START_RETRY_S}



class ConfigError(ArenaError):
    """A config that cannot be used; the message names the file, the key and what was expected."""


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    name: str
    path: Path
    seed: int
    bots: tuple[str, ...]
    table_size: int
    deals: int
    rules: Rules
    workers: int
    schedule: str = DEFAULT  # a kind's name (arena/schedule/kinds.py); `kind` is the kind itself
    tables: int | None = None  # balanced only
    challengers: int | None = None  # gauntlet only: the first `challengers` bots
    database: Path = Path()
    move_timeout_s: float = 2.0
    startup_timeout_s: float = 10.0
    # A bot whose start failed outside its code is tried again this long before its game is void.
    start_retry_s: float = START_RETRY_S
    sandbox: dict[str, Any] = field(default_factory=dict)  # the ceilings of every bot's resource limits
    grants: dict[str, dict[str, Any]] = field(default_factory=dict)  # [grant.NAME]: one bot's own ceilings, zmq_tcp
    isolation: str = "auto"  # each bot sees only its own folder: where possible, "required", or "off"
    cluster: str = ""  # a Dask scheduler's address: its workers play the tables (arena/tournament/cluster_pool.py)
    on_change: str = "refuse"  # a resubmitted or withdrawn bot: "refuse" (say how), or "replay" its tables
    sprt: SprtSettings | None = None  # stop = "sprt": deals until the test decides (arena/tournament/early_stop.py)
    # Not a config key: entries of the stored schedule taken out of the config with games stored
    # (arena/tournament/resubmission.py). They keep their place in `bots`, so that no table changes
    # its key; their tables are not played. The CLI sets it from the stored results.
    withdrawn: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, compare=False)
    # Not a config key: how the stored results lay out their tables and number their games
    # (schedule.numbers: PAIRED, BY_DEAL, BY_TABLE). Older results keep theirs; opening the results sets it (arena/tournament/opening.py).
    layout: str = PAIRED
    # Not a config key either: how the stored results seed their deals (schedule.games:
    # SEEDS_BY_BOTS, SEEDS_BY_FIELD); None for a new tournament, which takes its kind's.
    seeds: str | None = None

    @property
    def playing(self) -> tuple[str, ...]:
        """The entries whose tables are played: all but the withdrawn."""
        return tuple(name for name in self.bots if name not in self.withdrawn)

    @property
    def kind(self) -> ScheduleKind:
        return schedule_kind(self.schedule)

    @property
    def challenger_count(self) -> int:
        """A gauntlet's challengers: `challengers`, 1 by default (a config built in code may leave it out)."""
        return self.challengers or 1

    def table_count(self) -> int:
        return self.kind.table_count(len(self.bots), self.table_size, self.tables, self.challenger_count)

    def layout_of_tables(self) -> Layout:
        """What the schedule's kind lays the tables out from (arena/schedule/kinds.py)."""
        return Layout(self.bots, self.table_size, self.deals, self.seed, self.tables, self.challenger_count, self.layout,
                      self.deal_seeds)

    @property
    def deal_seeds(self) -> str:
        """How its deals are seeded: the stored results' way, else its kind's for a new tournament."""
        return self.seeds or self.kind.new_seeds

    def tables_in_play(self) -> int:
        """The tables whose games are played: all but those of withdrawn bots."""
        if not self.withdrawn:
            return self.table_count()
        return self.kind.tables_in_play(self.layout_of_tables(), self.withdrawn)

    def games_scheduled(self) -> int:
        """Every game the schedule plays, at most (an SPRT run may decide before its last deal)."""
        return self.tables_in_play() * self.deals * math.factorial(self.table_size)

    def game_numbers(self) -> GameNumbers:
        return GameNumbers(self.table_count(), self.deals, math.factorial(self.table_size), self.layout)


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def load_config(path: Path) -> TournamentConfig:
    path = Path(path)
    try:
        data = tomllib.loads(toml_text(path.read_bytes()))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except tomllib.TOMLDecodeError as exc:  # a ValueError too: caught first
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return config_from_dict(data, path)


def load_entries(config: TournamentConfig) -> tuple[TournamentConfig, dict[str, BotManifest]]:
    """Load every entry's manifest; the config comes back with its entries as bot names.
    ConfigError names the config file when an entry cannot be loaded or names a bot twice."""
    manifests: dict[str, BotManifest] = {}
    for ref in config.bots:
        try:
            # A relative path starts from the config's folder, as the database path does: the
            # same config must play the same bots whichever folder the command runs from.
            manifest = load_manifest(ref, base_dir=config.path.parent)
        except ManifestError as exc:
            raise ConfigError(f"{config.path}: key 'bots': {exc}") from None
        if manifest.name in manifests:
            raise ConfigError(f"{config.path}: key 'bots': the bot {manifest.name!r} is listed twice")
        manifests[manifest.name] = manifest
    strangers = [name for name in config.grants if name not in manifests]
    if strangers:
        raise ConfigError(f"{config.path}: key 'grant.{strangers[0]}': no bot of the tournament is named "
                          f"{strangers[0]!r} (bots: {', '.join(manifests)})")
    return replace(config, bots=tuple(manifests)), manifests


CLUSTER_ADDRESS = re.compile(r"^(tcp|tls)://[^\s/]+:\d+$")


def config_from_dict(data: dict[str, Any], path: Path) -> TournamentConfig:
    def bad(key: str, value: Any = None) -> ConfigError:
        got = "" if value is None else f", got {as_written(value)}"
        return ConfigError(f"{path}: key {key!r}: expected {TOP_KEYS.get(key) or LIMIT_KEYS.get(key.split('.')[-1], 'something else')}{got}")

    for key in data:
        if key not in TOP_KEYS:
            raise ConfigError(f"{path}: unknown key {key!r}; allowed keys: {', '.join(sorted(TOP_KEYS))}")

    def integer(key: str, default: int | None, low: int, high: int = 10**18) -> int | None:
        value = data.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise bad(key, value)
        return value

    def whole(key: str, default: int, low: int, high: int = 10**18) -> int:
        """A key every config has, given or by its default."""
        value = integer(key, default, low, high)
        assert value is not None  # the default stands in for a key not given
        return value

    name = data.get("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise bad("name", name)
    seed = whole("seed", 1, *SEED_RANGE)
    bots = data.get("bots")
    if not isinstance(bots, list) or not bots or not all(isinstance(b, str) and b.strip() for b in bots):
        raise bad("bots", bots)
    table_size = whole("table_size", 3, 2, 5)
    deals = whole("deals", 1, 1)
    workers = whole("workers", default_workers(), 1, MAX_WORKERS)
    schedule = data.get("schedule", DEFAULT)
    if schedule not in KINDS:
        raise bad("schedule", schedule)
    kind = KINDS[schedule]
    tables = integer("tables", None, 1)
    challengers = integer("challengers", None, 1)
    if not kind.takes_challengers and challengers is not None:
        raise ConfigError(f"{path}: key 'challengers': only the {Gauntlet.name} schedule takes challengers; "
                          f"add schedule = \"{Gauntlet.name}\" or drop it")
    if kind.takes_challengers:
        challengers = 1 if challengers is None else challengers
        field_size = len(bots) - challengers
        if field_size < table_size - 1:
            seats = "seat" if table_size == 2 else f"{table_size - 1} seats"
            raise ConfigError(f"{path}: key 'challengers': {count(challengers, 'challenger')} of "
                              f"{count(len(bots), 'bot')} {'leaves' if challengers == 1 else 'leave'} "
                              f"{max(field_size, 0)} to fill the other {seats} of a table of {table_size} (table_size)")
    if kind.takes_tables and tables is None:
        raise ConfigError(f"{path}: key 'tables': the {kind.name} schedule needs the number of tables")
    if not kind.takes_tables and tables is not None:
        raise ConfigError(f"{path}: key 'tables': only the {Balanced.name} schedule takes a number of tables "
                          f"{kind.why_no_tables}")
    if len(bots) < table_size:
        raise ConfigError(f"{path}: key 'bots': {len(bots)} bots cannot fill a table of {table_size} (table_size)")
    if tables is not None and tables * table_size < len(bots):
        need = -(-len(bots) // table_size)
        raise ConfigError(f"{path}: key 'tables': {count(tables, 'table')} of {table_size} seat "
                          f"{tables * table_size} bots, so some of the {len(bots)} bots would play no game; "
                          f"a balanced schedule of these bots needs at least {need} tables")
    _check_size(path, kind.table_count(len(bots), table_size, tables, challengers or 1), table_size, deals, tables)
    rules = _rules(data, path, table_size)
    limits = data.get("limits", {})
    if not isinstance(limits, dict):
        raise bad("limits", limits)
    for key in limits:
        if key not in LIMIT_KEYS:
            raise ConfigError(f"{path}: unknown key 'limits.{key}'; allowed: {', '.join(LIMIT_KEYS)}")
    timeouts = {}
    for key in LIMIT_KEYS:
        value = limits.get(key, LIMIT_DEFAULTS[key])
        problem = time_limit_problem(value, LIMIT_KEYS[key])
        if problem:
            raise ConfigError(f"{path}: key 'limits.{key}': {problem}")
        timeouts[key] = float(value)
    isolation = data.get("isolation", "auto")
    if isolation not in ISOLATION_MODES:
        raise bad("isolation", isolation)
    on_change = data.get("on_change", "refuse")
    if on_change not in ON_CHANGE_MODES:
        raise bad("on_change", on_change)
    cluster = data.get("cluster", "")
    if not isinstance(cluster, str) or (cluster and not CLUSTER_ADDRESS.match(cluster)):
        raise bad("cluster", cluster)
    sprt = stop_settings(data, path, schedule, challengers, ConfigError)
    sandbox = data.get("sandbox", {})
    if not isinstance(sandbox, dict):
        raise bad("sandbox", sandbox)
    bad_limit = first_limit_problem(sandbox)
    if bad_limit:
        raise ConfigError(f"{path}: key 'sandbox.{bad_limit[0]}': {bad_limit[1]}")
    grants = data.get("grant", {})
    if not isinstance(grants, dict) or not all(isinstance(table, dict) for table in grants.values()):
        raise ConfigError(f"{path}: key 'grant': expected tables [grant.NAME], one for each bot granted "
                          "something (docs/sandbox.md)")
    for bot, table in grants.items():
        bad_grant = grant_problem(table)
        if bad_grant:
            raise ConfigError(f"{path}: key 'grant.{bot}.{bad_grant[0]}': {bad_grant[1]}")
    database = data.get("database", f"{path.stem}.sqlite")
    if not isinstance(database, str) or not database:
        raise bad("database", database)
    db_path = Path(database)
    if not db_path.is_absolute():
        db_path = path.parent / db_path  # beside the config, wherever the command runs from
    return TournamentConfig(
        name=name, path=path, seed=seed, bots=tuple(b.strip() for b in bots), table_size=table_size, deals=deals,
        rules=rules, workers=workers, schedule=schedule, tables=tables, challengers=challengers, database=db_path,
        move_timeout_s=timeouts["move_timeout_s"], startup_timeout_s=timeouts["startup_timeout_s"],
        start_retry_s=timeouts["start_retry_s"],
        sandbox=dict(sandbox), grants={bot: dict(table) for bot, table in grants.items()}, isolation=isolation, on_change=on_change, cluster=cluster, sprt=sprt, raw=data,
    )


def _check_size(path: Path, table_count: int, table_size: int, deals: int, tables: int | None) -> None:
    games = table_count * deals * math.factorial(table_size)
    if games > MAX_TOURNAMENT_GAMES:
        key = "deals" if deals > 1 else "tables" if tables is not None else "bots"
        raise ConfigError(
            f"{path}: key {key!r}: {table_count:,} table{'s' if table_count != 1 else ''} x {deals:,} deal{'s' if deals != 1 else ''} x {math.factorial(table_size)} "
            f"seatings make {games:,} games; one tournament plays at most {MAX_TOURNAMENT_GAMES:,}")


def _rules(data: dict[str, Any], path: Path, table_size: int) -> Rules:
    options = data.get("rules", {})
    if not isinstance(options, dict):
        raise ConfigError(f"{path}: key 'rules': expected {TOP_KEYS['rules']}, got {options!r}")
    options = dict(options)
    for key in ("scoring", "fault_policy"):
        if key in data:
            if key in options:
                raise ConfigError(f"{path}: key {key!r} is set both at the top and in [rules]; keep one")
            options[key] = data[key]
    match_only = [key for key in MATCH_ONLY_OPTIONS if key in options]
    if match_only:
        raise ConfigError(
            f"{path}: key 'rules.{match_only[0]}': a match option (R54-R57), with no effect in a tournament, "
            "where every game is scored on its own and the schedule sets each deal's dealer so that "
            "every seat deals equally often; leave it out")
    if "num_players" in options and options["num_players"] != table_size:
        raise ConfigError(f"{path}: key 'rules.num_players' must equal table_size ({table_size}); leave it out")
    options["num_players"] = table_size
    scoring = options.get("scoring", "placement")
    if scoring not in ("placement", "pot"):
        raise ConfigError(f"{path}: key 'scoring': expected placement or pot, got {scoring!r}")
    if options.get("fault_policy", "fallback") not in ("fallback", "forfeit"):  # named where it was set
        where = "fault_policy" if "fault_policy" in data else "rules.fault_policy"
        raise ConfigError(f"{path}: key {where!r}: expected fallback or forfeit, got {options['fault_policy']!r}")
    try:
        return Rules.from_options(options)
    except GameError as exc:
        raise ConfigError(f"{path}: [rules]: {exc}") from None
