"""Every key of a tournament config, once: its type, range and parser, its default, the option of
`arena tournament new` that writes it, and its row of docs/organising.md's key table. The
loader (config.py), the writer (config_write.py), the CLI's options (cli/tournament.py) and the
documents' table (tests/test_docs.py) all read this table; a key is added here or nowhere.

A key parses its own value (as python-chess's `Option` does): a parser returns the value to use
or raises `Refused`; an error names the key as its reader knows it: a file's key
(`tournaments/x.toml: key 'deals'`) or a command's option (`--deals`), by `KeyWords`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from arena.errors import ArenaError
from arena.play.records import MOVE_TIMEOUT_RANGE_S, START_RETRY_RANGE_S, START_RETRY_S, STARTUP_TIMEOUT_RANGE_S
from arena.play.records import time_limit_problem
from arena.sandbox.isolation import ISOLATION_MODES
from arena.schedule.kinds import DEFAULT, NAMES
from arena.tournament.resubmission import ON_CHANGE_MODES
from arena.wording import as_written

MAX_WORKERS = 256  # a worker is a process with its table's bots: far more than any machine's cores
# Planning holds every game of the schedule in memory (1,000,000 games: about 3 s and 280 MB
# here), and 2,000,000 games take most of a day on a two-core machine. Beyond that a typo in
# `deals` or `tables` would only stall the run before its first game.
MAX_TOURNAMENT_GAMES = 2_000_000
SEED_RANGE = (-(2**62), 2**62)  # a tournament's seed, and `arena play`'s
CLUSTER_ADDRESS = re.compile(r"^(tcp|tls)://[^\s/]+:\d+$")
SCORINGS = ("placement", "pot")  # loser_count (R56) scores a match, not a game on its own
FAULT_POLICIES = ("fallback", "forfeit")


class ConfigError(ArenaError):
    """A config that cannot be used; the message names the file, the key and what was expected."""


class Refused(ValueError):
    """A value its key does not take: the problem in words, or "" for "expected ..., got ..."."""


def _or_list(words: tuple[str, ...]) -> str:
    return f"{', '.join(words[:-1])} or {words[-1]}"


@dataclass(frozen=True)
class Whole:
    """A whole number within [low, high] (TOML's true is no number)."""

    low: int
    high: int | None = None

    def __call__(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < self.low or \
                (self.high is not None and value > self.high):
            raise Refused("")
        return value


@dataclass(frozen=True)
class Number:
    """A number strictly between low and high."""

    low: float
    high: float

    def __call__(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not self.low < value < self.high:
            raise Refused("")
        return float(value)


@dataclass(frozen=True)
class Seconds:
    """A time limit within its bounds, in seconds (arena/play/records.py)."""

    bounds_s: tuple[float, float]

    def __call__(self, value: Any) -> float:
        problem = time_limit_problem(value, self.bounds_s)
        if problem:
            raise Refused(problem)
        return float(value)


@dataclass(frozen=True)
class Words:
    """One of a few words."""

    words: tuple[str, ...]

    def __call__(self, value: Any) -> str:
        if value not in self.words:
            raise Refused("")
        return str(value)


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Refused("")
    return value


def _bots(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(b, str) and b.strip() for b in value):
        raise Refused("")
    return tuple(b.strip() for b in value)


def _yes_no(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Refused("")
    return value


def _address(value: Any) -> str:
    if not isinstance(value, str) or (value and not CLUSTER_ADDRESS.match(value)):
        raise Refused("")
    return value


def _table(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Refused("")
    return dict(value)


@dataclass(frozen=True)
class CliOption:
    """How `arena tournament new` takes a key: its flags, help and default (None: left to the config)."""

    flags: tuple[str, ...]
    help: str
    default: Any = None
    repeated: bool = False  # a list: one value each time the option is given
    path: bool = False  # a path from the current folder


@dataclass(frozen=True)
class ConfigKey:
    name: str  # dotted below a table: limits.move_timeout_s
    type: str  # the docs' word for its type
    expected: str  # what an error says a value should be
    parse: Callable[[Any], Any]
    doc: tuple[str, str, str]  # the docs' cells: default, allowed, what it does
    default: Any = None  # taken when the key is not given (None: none, or worked out from others)
    required: bool = False
    option: CliOption | None = None

    @property
    def leaf(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    def doc_row(self) -> str:
        """Its row of docs/organising.md's key table."""
        return f"| `{self.name}` | {self.type} | {' | '.join(self.doc)} |"


_SCHEDULE_HELP = ("round_robin (every combination of bots), balanced (--tables N tables in which every pair meets "
                  "equally often), gauntlet (the first --challengers N bots each meet every combination of the "
                  "others) or league (tables chosen from the ratings as it plays, until stopped). Default: balanced if --tables is given, gauntlet if --challengers is, else round_robin.")
_ISOLATION_HELP = ("required (the default: other people's bots each see only their own folder, and the run is "
                   "refused without bubblewrap), auto (isolated where bubblewrap works, else not) or off. "
                   "See arena docs sandbox.")
_SEED_HELP = ("Tournament seed (default: a random one, written in the config). The deals follow from it and the "
              "bots' names: keep it from the bot authors until the tournament is over.")
_STOP_WHAT = ('`"sprt"`: deals until the test decides ([early stopping](#early-stopping-is-my-new-version-better))')

KEYS: tuple[ConfigKey, ...] = (
    ConfigKey("name", "text", "a text", _text,
              ("the config file's name", "any non-blank text", "the tournament's name in every report"),
              option=CliOption(("--name",), "Tournament name (default: the file's name).")),
    ConfigKey("seed", "whole number", "a whole number from -2**62 to 2**62", Whole(*SEED_RANGE),
              ("`1`", "−2^62 to 2^62", "the deals follow from it ([seeds](#seeds)); the run says when it is missing"),
              default=1, option=CliOption(("--seed",), _SEED_HELP)),
    ConfigKey("bots", "list of texts", "a list of bot names or manifest paths", _bots,
              ("— (required)", "at least `table_size` bot names, folders or manifests, none twice",
               "the entries, in schedule order ([a tournament](#a-tournament))"), required=True,
              option=CliOption(("--bot", "-b"), "A bot name or manifest path (repeat for each entry).", repeated=True)),
    ConfigKey("table_size", "whole number", "a whole number from 2 to 5", Whole(2, 5),
              ("`3`", "2 to 5", "bots per table"), default=3, option=CliOption(("--table-size",), "Bots per table.", 3)),
    ConfigKey("deals", "whole number", "a whole number of at least 1", Whole(1),
              ("`1`", f"at least 1; tables × deals × seatings at most {MAX_TOURNAMENT_GAMES:,}",
               "deals per table, each played in every seating"), default=1,
              option=CliOption(("--deals",), "Deals per table, each played in every seating.", 2)),
    ConfigKey("scoring", "text", _or_list(SCORINGS), Words(SCORINGS),
              ('`"placement"`', '`"placement"`, `"pot"`', "how a game's result becomes points (R54, R55); the same "
               "as `rules.scoring`: set one of them")),
    ConfigKey("fault_policy", "text", _or_list(FAULT_POLICIES), Words(FAULT_POLICIES),
              ('`"fallback"`', '`"fallback"`, `"forfeit"`', "what a fault costs (R52, R53); the same as "
               "`rules.fault_policy`: set one of them")),
    ConfigKey("workers", "whole number", f"a whole number from 1 to {MAX_WORKERS}", Whole(1, MAX_WORKERS),
              ("the number of cores", f"1 to {MAX_WORKERS}", "worker processes, each playing one table; "
               "`--workers` overrides it"),
              option=CliOption(("--workers",), "Worker processes (default: the number of cores).")),
    ConfigKey("schedule", "text", _or_list(NAMES), Words(NAMES),
              (f'`"{DEFAULT}"`', ", ".join(f'`"{name}"`' for name in NAMES),
               "who meets at which table ([schedules](#schedules))"), default=DEFAULT,
              option=CliOption(("--schedule",), _SCHEDULE_HELP)),
    ConfigKey("tables", "whole number", "a whole number of at least 1 (balanced schedule)", Whole(1),
              ('— (required by `"balanced"`)', "at least 1, enough to seat every bot; balanced only",
               "the number of tables of a balanced schedule"),
              option=CliOption(("--tables",), "Tables of a balanced schedule.")),
    ConfigKey("challengers", "whole number", "a whole number of at least 1 (gauntlet schedule): how many of the "
              "first bots challenge the others", Whole(1),
              ("`1` (gauntlet)", "at least 1, leaving `table_size` − 1 bots in the field; gauntlet only",
               "how many of the first bots challenge the others"),
              option=CliOption(("--challengers",), "How many of the first --bot entries challenge the others "
                               "(gauntlet; default 1).")),
    ConfigKey("focus_ranks", "whole number", "a whole number of at least 0 (league schedule): the ranks whose order "
              "the matchmaking settles first", Whole(0, 10_000),
              ("`10` (league)", "0 (every rank alike) or more; league only", "the ranks a league's matchmaking settles "
               "first ([leagues](#leagues))")),
    ConfigKey("frozen", "yes or no", "true or false (league schedule): whether the league is frozen", _yes_no,
              ("`false` (league)", "`true`, `false`; league only", "written by `arena tournament freeze`: no new "
               "versions or bots, and the final round robin is played ([leagues](#leagues))")),
    ConfigKey("database", "text", "a path to the SQLite results file", _text,
              ("the config's name with `.sqlite`, beside the config", "a path, relative to the config's folder",
               "the SQLite results file"),
              option=CliOption(("--database",), "The SQLite results file (default: beside the config, named after "
                               "it).", path=True)),
    ConfigKey("rules", "table", "a table of rule options", _table,
              ("—", "the `rules.*` keys below", "rule options ([rules.md section 9](rules.md#9-rule-options))"),
              option=CliOption(("--rule", "-r"), "Rule option OPTION=VALUE (repeatable).", repeated=True)),
    ConfigKey("limits", "table", "a table with move_timeout_s, startup_timeout_s and start_retry_s", _table,
              ("—", "the `limits.*` keys below", "time limits"), default={}),
    ConfigKey("sandbox", "table", "a table of the ceilings of bot resource limits (docs/sandbox.md)", _table,
              ("—", "the `sandbox.*` keys below", "ceilings of every bot's resource limits ([sandbox.md](sandbox.md))"),
              default={}),
    ConfigKey("grant", "table", "a table of bots' own grants, [grant.NAME] (docs/sandbox.md)", _table,
              ("—", "`[grant.NAME]` tables, one per bot of the tournament", "one bot's own ceilings and grants"),
              default={}),
    ConfigKey("isolation", "text", "auto, required or off: whether each bot sees only its own folder "
              "(docs/sandbox.md)", Words(ISOLATION_MODES),
              ('`"auto"`', ", ".join(f'`"{mode}"`' for mode in ISOLATION_MODES), "whether each bot sees only its own "
               "folder ([isolation](#isolation-and-grants)); `arena tournament new` writes `\"required\"`"),
              default="auto", option=CliOption(("--isolation",), _ISOLATION_HELP, "required")),
    ConfigKey("cluster", "text", "the address of a Dask scheduler, e.g. tcp://scheduler:8786 (docs/cluster.md)",
              _address, ('`""` (this machine)', "`tcp://HOST:PORT` or `tls://HOST:PORT`", "play the tables on a Dask "
                         "cluster ([cluster.md](cluster.md)); `--cluster` overrides it"), default=""),
    ConfigKey("on_change", "text", "refuse or replay: what a run does when a bot's files changed or a bot was "
              "taken out", Words(ON_CHANGE_MODES),
              ('`"refuse"`', ", ".join(f'`"{mode}"`' for mode in ON_CHANGE_MODES), "a bot resubmitted or withdrawn: "
               "say how, or play its tables again ([resubmission](#resubmission-and-withdrawal))"), default="refuse"),
    ConfigKey("stop", "text", 'none or sprt: "sprt" plays deals until the sequential test decides (gauntlet only, '
              "docs/organising.md)", Words(("none", "sprt")),
              ('`"none"`', '`"none"`, `"sprt"` (a gauntlet of 1 or 2 challengers, `deals` at least 20, not on a '
               "cluster)", _STOP_WHAT), default="none"),
    ConfigKey("sprt_delta1", "number", "a number of points per game above sprt_delta0: the smallest improvement "
              "worth finding", Number(-100.0, 100.0),
              ('— (required by `stop = "sprt"`)', "above `sprt_delta0`, below 100",
               "the smallest improvement worth finding, in points per game (H1)")),
    ConfigKey("sprt_delta0", "number", "a number of points per game (default 0): an improvement of no interest",
              Number(-100.0, 100.0), ("`0`", "between −100 and 100", "an improvement of no interest (H0)"), default=0.0),
    ConfigKey("sprt_alpha", "number", "a number between 0 and 0.5 (default 0.05): the false-alarm rate",
              Number(0.0, 0.5), ("`0.05`", "between 0 and 0.5", "the chance of accepting H1 when H0 holds"),
              default=0.05),
    ConfigKey("sprt_beta", "number", "a number between 0 and 0.5 (default 0.05): the rate of missing a real "
              "improvement", Number(0.0, 0.5), ("`0.05`", "between 0 and 0.5", "the chance of accepting H0 when H1 "
                                                 "holds"), default=0.05),
    ConfigKey("limits.move_timeout_s", "number", "a number of seconds", Seconds(MOVE_TIMEOUT_RANGE_S),
              ("`2.0`", "0.01 to 600", "seconds a bot has for each move"), default=2.0,
              option=CliOption(("--move-timeout",), "Seconds a bot has for each move.", 2.0)),
    ConfigKey("limits.startup_timeout_s", "number", "a number of seconds", Seconds(STARTUP_TIMEOUT_RANGE_S),
              ("`10.0`", "0.1 to 600", "seconds a bot has to answer hello"), default=10.0,
              option=CliOption(("--startup-timeout",), "Seconds a bot has to answer hello.", 10.0)),
    ConfigKey("limits.start_retry_s", "number", "a number of seconds", Seconds(START_RETRY_RANGE_S),
              (f"`{START_RETRY_S}`", "0 to 3600", "how long a start that failed outside the bot is retried before "
               "its game is void ([void games](#void-games))"), default=START_RETRY_S),
)
BY_NAME = {key.name: key for key in KEYS}
TOP_KEYS = tuple(key.name for key in KEYS if "." not in key.name)
LIMIT_KEYS = tuple(key.leaf for key in KEYS if key.name.startswith("limits."))


class KeyWords:
    """How an error names a key to the person who gave it: here, a key of the config file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def name(self, key: str) -> str:
        return key

    def where(self, key: str) -> str:
        return f"{self.path}: key {key!r}"

    def error(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.where(key)}: {problem}")

    def setting(self, key: str, value: str) -> str:
        """How to set a key to a word: `schedule = "gauntlet"`."""
        return f"{key} = {value!r}".replace("'", '"')

    def refused(self, key: str, value: Any, problem: str = "") -> ConfigError:
        """A value its key does not take; `problem` in words, else what was expected and what was given."""
        got = "" if value is None else f", got {as_written(value)}"
        return self.error(key, problem or f"expected {BY_NAME[key].expected}{got}")


class OptionWords(KeyWords):
    """Keys as the options of `arena tournament new`: its user gave options, not a file's keys."""

    def name(self, key: str) -> str:
        option = BY_NAME[key].option if key in BY_NAME else None
        if option is not None:
            return option.flags[0]
        if key.startswith("rules."):
            return f"--rule {key.split('.', 1)[1]}"
        return key

    def setting(self, key: str, value: str) -> str:
        return f"{self.name(key)} {value}"

    def where(self, key: str) -> str:
        named = self.name(key)
        return named if named != key else super().where(key)


def parse_key(key: str, data: dict[str, Any], words: KeyWords, default: Any = None) -> Any:
    """The value of `key` in `data` (a config's top table, or the table the key is under), parsed by
    its key; its default when not given (`default` when the key's own is worked out from others)."""
    spec = BY_NAME[key]
    value = data.get(spec.leaf, spec.default if default is None else default)
    if value is None:
        if spec.required:
            raise words.refused(key, None)
        return None
    try:
        return spec.parse(value)
    except Refused as refused:
        raise words.refused(key, value, str(refused)) from None


__all__ = ["BY_NAME", "KEYS", "LIMIT_KEYS", "TOP_KEYS", "CliOption", "ConfigError", "ConfigKey", "KeyWords",
           "OptionWords", "Refused", "parse_key"]
