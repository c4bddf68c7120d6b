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
                              # of the others, or "league": tables chosen from the ratings as it
                              # plays, until stopped (`focus_ranks = 10`; `frozen = true` is
                              # written by `arena tournament freeze`)
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
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.game import GameError, Rules
from arena.play.records import START_RETRY_S
from arena.sandbox.limits import first_limit_problem, grant_problem
from arena.results.sprt import SprtSettings
from arena.tournament.config_keys import (CLUSTER_ADDRESS, KEYS, LIMIT_KEYS, MAX_TOURNAMENT_GAMES, MAX_WORKERS,
                                          SCORINGS, FAULT_POLICIES, SEED_RANGE, TOP_KEYS, ConfigError, KeyWords,
                                          parse_key)
from arena.tournament.stop_config import stop_settings
from arena.schedule.kinds import DEFAULT, KINDS, Balanced, Gauntlet, Layout, League, ScheduleKind, schedule_kind
from arena.schedule.numbers import PAIRED, GameNumbers
from arena.submission.lookup import load_manifest
from arena.submission.manifest import BotManifest, ManifestError, toml_text
from arena.wording import count

# Options of a match at one table (`arena play`): a tournament scores each game on its own and
# its schedule rotates the dealer by deal, so accepting them would change nothing, silently.
MATCH_ONLY_OPTIONS = ("next_dealer", "target_points", "max_games", "games")


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
    focus_ranks: int = 10  # league only: the ranks its matchmaking settles first (schedule/matchmaking.py)
    frozen: bool = False  # league only: no new versions or bots; the final round robin is played
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
        # A league's tables are numbered as they are chosen: its numbers go as far as its tables may.
        tables = League.TABLES_CEILING if self.kind.open_ended else self.table_count()
        return GameNumbers(tables, self.deals, math.factorial(self.table_size), self.layout)


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



def load_entries(config: TournamentConfig, words: KeyWords | None = None) -> tuple[TournamentConfig, dict[str, BotManifest]]:
    """Load every entry's manifest; the config comes back with its entries as bot names.
    ConfigError names the config's key (or the option, by `words`) when an entry cannot be
    loaded or names a bot twice."""
    words = words or KeyWords(config.path)
    manifests: dict[str, BotManifest] = {}
    for ref in config.bots:
        try:
            # A relative path starts from the config's folder, as the database path does: the
            # same config must play the same bots whichever folder the command runs from.
            manifest = load_manifest(ref, base_dir=config.path.parent)
        except ManifestError as exc:
            raise words.error("bots", str(exc)) from None
        if manifest.name in manifests:
            raise words.error("bots", f"the bot {manifest.name!r} is listed twice")
        manifests[manifest.name] = manifest
    strangers = [name for name in config.grants if name not in manifests]
    if strangers:
        raise ConfigError(f"{config.path}: key 'grant.{strangers[0]}': no bot of the tournament is named "
                          f"{strangers[0]!r} (bots: {', '.join(manifests)})")
    return replace(config, bots=tuple(manifests)), manifests


def config_from_dict(data: dict[str, Any], path: Path, words: KeyWords | None = None) -> TournamentConfig:
    """A config from its TOML table, each key parsed by its own entry of config_keys.KEYS, then the
    keys checked together; `words` names a key in an error (default: the file's key)."""
    words = words or KeyWords(path)
    unknown = [key for key in data if key not in TOP_KEYS]
    if unknown:
        raise ConfigError(f"{path}: unknown key {unknown[0]!r}; allowed keys: {', '.join(sorted(TOP_KEYS))}")
    given = {key.name: parse_key(key.name, data, words) for key in KEYS if "." not in key.name}
    kind = KINDS[given["schedule"]]
    _check_schedule(given, kind, words)
    _check_size(given, kind, words)
    sandbox, grants = _ceilings(given, words)
    database = Path(given["database"] or f"{path.stem}.sqlite")
    return TournamentConfig(
        name=given["name"] or path.stem, path=path, seed=given["seed"], bots=given["bots"],
        table_size=given["table_size"], deals=given["deals"], rules=_rules(data, given, words),
        workers=given["workers"] or default_workers(), schedule=given["schedule"], tables=given["tables"],
        challengers=given["challengers"], focus_ranks=given["focus_ranks"] if given["focus_ranks"] is not None else 10,
        frozen=bool(given["frozen"]), database=database if database.is_absolute() else path.parent / database,
        sandbox=sandbox, grants=grants, isolation=given["isolation"], on_change=given["on_change"],
        cluster=given["cluster"], sprt=stop_settings(data, given, words), raw=data, **_limits(given["limits"], words))



def _check_schedule(given: dict[str, Any], kind: ScheduleKind, words: KeyWords) -> None:
    """The schedule's own keys (`tables`, `challengers`) against its kind and the bots."""
    bots, table_size, tables = given["bots"], given["table_size"], given["tables"]
    if not kind.takes_challengers and given["challengers"] is not None:
        raise words.error("challengers", f"only the {Gauntlet.name} schedule takes challengers; add "
                          f"{words.setting('schedule', Gauntlet.name)} or drop it")
    if kind.takes_challengers:
        given["challengers"] = challengers = given["challengers"] or 1
        field_size = len(bots) - challengers
        if field_size < table_size - 1:
            seats = "seat" if table_size == 2 else f"{table_size - 1} seats"
            raise words.error("challengers", f"{count(challengers, 'challenger')} of {count(len(bots), 'bot')} "
                              f"{'leaves' if challengers == 1 else 'leave'} {max(field_size, 0)} to fill the other "
                              f"{seats} of a table of {table_size} ({words.name('table_size')})")
    for key in ("focus_ranks", "frozen"):
        if not kind.open_ended and given[key] is not None:
            raise words.error(key, f"only the {League.name} schedule takes it; add {words.setting('schedule', League.name)} "
                              "or drop the key")
    if kind.takes_tables and tables is None:
        raise words.error("tables", f"the {kind.name} schedule needs the number of tables")
    if not kind.takes_tables and tables is not None:
        raise words.error("tables", f"only the {Balanced.name} schedule takes a number of tables {kind.why_no_tables}")
    if len(bots) < table_size:
        raise words.error("bots", f"{len(bots)} bots cannot fill a table of {table_size} ({words.name('table_size')})")
    if tables is not None and tables * table_size < len(bots):
        raise words.error("tables", f"{count(tables, 'table')} of {table_size} seat {tables * table_size} bots, so "
                          f"some of the {len(bots)} bots would play no game; a balanced schedule of these bots needs "
                          f"at least {-(-len(bots) // table_size)} tables")


def _check_size(given: dict[str, Any], kind: ScheduleKind, words: KeyWords) -> None:
    table_size, deals, tables = given["table_size"], given["deals"], given["tables"]
    table_count = kind.table_count(len(given["bots"]), table_size, tables, given["challengers"] or 1)
    games = table_count * deals * math.factorial(table_size)
    if games > MAX_TOURNAMENT_GAMES:
        key = "deals" if deals > 1 else "tables" if tables is not None else "bots"
        raise words.error(key, f"{_many(table_count, 'table')} x {_many(deals, 'deal')} x "
                          f"{math.factorial(table_size)} seatings make {games:,} games; one tournament plays at "
                          f"most {MAX_TOURNAMENT_GAMES:,}")


def _many(number: int, noun: str) -> str:
    return f"{number:,} {noun if number == 1 else noun + 's'}"


def _limits(limits: dict[str, Any], words: KeyWords) -> dict[str, Any]:
    """[limits]: the time limits, by their config_keys entries (limits.*)."""
    for key in limits:
        if key not in LIMIT_KEYS:
            raise ConfigError(f"{words.path}: unknown key 'limits.{key}'; allowed: {', '.join(LIMIT_KEYS)}")
    return {key: parse_key(f"limits.{key}", limits, words) for key in LIMIT_KEYS}


def _ceilings(given: dict[str, Any], words: KeyWords) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """[sandbox] and [grant.NAME]: each value checked by the sandbox's own rules (arena/sandbox/limits.py)."""
    sandbox, grants = given["sandbox"], given["grant"]
    bad_limit = first_limit_problem(sandbox)
    if bad_limit:
        raise words.error(f"sandbox.{bad_limit[0]}", bad_limit[1])
    if not all(isinstance(table, dict) for table in grants.values()):
        raise words.error("grant", "expected tables [grant.NAME], one for each bot granted something "
                          "(docs/sandbox.md)")
    for bot, table in grants.items():
        bad_grant = grant_problem(table)
        if bad_grant:
            raise words.error(f"grant.{bot}.{bad_grant[0]}", bad_grant[1])
    return sandbox, {bot: dict(table) for bot, table in grants.items()}


def _rules(data: dict[str, Any], given: dict[str, Any], words: KeyWords) -> Rules:
    """[rules], with the top-level `scoring` and `fault_policy` (set in one place or the other)."""
    options, table_size = given["rules"] or {}, given["table_size"]
    for key in ("scoring", "fault_policy"):
        if key in data:
            if key in options:
                raise words.error(key, "set both at the top and in [rules]; keep one")
            options[key] = data[key]
    match_only = [key for key in MATCH_ONLY_OPTIONS if key in options]
    if match_only:
        raise words.error(f"rules.{match_only[0]}", "a match option (R54-R57), with no effect in a tournament, "
                          "where every game is scored on its own and the schedule sets each deal's dealer so that "
                          "every seat deals equally often; leave it out")
    if "num_players" in options and options["num_players"] != table_size:
        raise words.error("rules.num_players", f"must equal {words.name('table_size')} ({table_size}); leave it out")
    options["num_players"] = table_size
    for key, allowed in (("scoring", SCORINGS), ("fault_policy", FAULT_POLICIES)):
        if options.get(key, allowed[0]) not in allowed:  # named where it was set
            raise words.refused(key if key in data else f"rules.{key}", options[key],
                                f"expected {' or '.join(allowed)}, got {options[key]!r}")
    try:
        return Rules.from_options(options)
    except GameError as exc:
        raise words.error("rules", str(exc)) from None
