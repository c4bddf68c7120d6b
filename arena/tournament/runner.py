"""Running a tournament: play what is not yet stored, tables in parallel worker processes.

The parent process is the only writer of the results database and commits each game
in its own transaction as soon as a worker reports it, so a game counts as done
exactly when its row is committed. Workers start a table's bots once, play that
table's missing games, and close the bots. Killing the parent at any moment (even
SIGKILL) loses only games in flight; the workers and their bots die with it.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from arena import __version__
from arena.protocol import PROTOCOL_VERSION
from arena.submission.manifest import BotManifest
from arena.play.records import GameRecord, VoidGame
from arena.schedule.numbers import BY_TABLE
from arena.schedule.games import SEEDS_BY_BOTS, GameSpec, TableSpec
from arena.results.store import ResultStore
from arena.sandbox.isolation import Isolation, find_isolation
from arena.tournament.config import TournamentConfig
from arena.tournament.feed import TableFeed
from arena.tournament.local_pool import WorkerPool
from arena.tournament.pool import Pool


@dataclass(frozen=True, slots=True)
class Progress:
    done: int  # games stored, including those from earlier runs
    total: int
    played_now: int  # games played in this run
    started_at: float
    last: GameRecord | None = None
    void: int = 0  # games of this run that could not be played (arena/results/voids.py)


@dataclass(frozen=True, slots=True)
class RunSummary:
    total: int
    already_done: int
    played: int
    interrupted: bool
    void: int = 0  # games the run could not play: void, to be played by the next run
    given_up: tuple[tuple[str, str], ...] = ()  # (bot, why) paused to the end of the run


def build_schedule(config: TournamentConfig) -> list[TableSpec]:
    """The tournament's tables to play. A balanced one is a search of up to a few seconds: build it
    once per command and pass it on (`run_tournament(tables=...)`). The tables of a withdrawn bot
    are left out; every other table keeps the index (the game keys) it has with them."""
    tables = config.kind.tables(config.layout_of_tables())
    gone = set(config.withdrawn)
    return [table for table in tables if not gone & set(table.entries)] if gone else tables


def describe_schedule(config: TournamentConfig, tables: Sequence[TableSpec]) -> str | None:
    """The run's line on its schedule (a balanced one's evenness, a gauntlet's challengers), or None."""
    return config.kind.describe(tables, config.bots, config.withdrawn, config.challenger_count, config.table_size)


def fingerprint(config: TournamentConfig, manifests: dict[str, BotManifest], versions: dict[str, str]) -> dict[str, object]:
    """What stored results depend on: change any of it and old results no longer fit, except
    `deals` and `bots`, which may grow, or shrink while no stored game is of what is dropped
    (`results.changes.compare`). Results stored before game numbers went by deal have no
    `game_numbers` key (BY_TABLE): their fingerprints still match."""
    numbering = {} if config.layout == BY_TABLE else {"game_numbers": config.layout}
    # Results seeded by their bots (all before paired gauntlets) have no `deal_seeds` key.
    seeds = {} if config.deal_seeds == SEEDS_BY_BOTS else {"deal_seeds": config.deal_seeds}
    withdrawn = {"withdrawn": ",".join(config.withdrawn)} if config.withdrawn else {}
    return {
        **numbering,
        **seeds,
        **withdrawn,
        "bots": ",".join(config.bots),
        "bot_versions": ",".join(f"{name}={versions.get(name, '')}" for name in config.bots),
        "rules": repr(sorted(config.rules.to_options().items())),
        "seed": config.seed,
        "table_size": config.table_size,
        "deals": config.deals,
        "schedule": config.kind.label(config.tables, config.challenger_count),
    }


def limits_changed(stored: dict | None, now: dict) -> list[str]:
    """How the limits in `now` (a run_record) differ from a stored game's, one line per change.

    Limits are not part of the fingerprint: an organiser may raise a time limit that proves too
    tight on the machine at hand, and every game keeps the limits it was played with. A resumed
    run says so rather than mixing conditions silently."""
    if stored is None:
        return []
    changes = _changed_keys("", stored.get("time_limits") or {}, now["time_limits"])
    old_sandbox = stored.get("sandbox") or {}
    for name, limits in now["sandbox"].items():
        changes += _changed_keys(f"{name}: ", old_sandbox.get(name) or {}, limits)
    if "isolation" in stored and stored["isolation"] != now["isolation"]:
        changes.append(f"isolation was {_isolation_words(stored['isolation'])}, now {_isolation_words(now['isolation'])}")
    return changes


def builds_changed(stored: dict | None, now: dict) -> list[str]:
    """Bots whose copy differs from the one the last stored game ran, at the same version: a build
    that is not reproducible, rebuilt after the build cache was cleared. Said, not refused: the
    games differ in what ran, and each records its own."""
    if stored is None:
        return []
    old_builds, versions = stored.get("builds") or {}, stored.get("versions") or {}
    changes = []
    for name, digest in (now.get("builds") or {}).items():
        before = old_builds.get(name) if isinstance(old_builds, dict) else None
        if before and digest and before != digest and versions.get(name) == now["versions"].get(name):
            changes.append(f"{name}'s build was {before}, now {digest}, of the same version {versions.get(name)}: "
                           "its build is not reproducible, or the build cache was cleared; each game records the "
                           "build it ran (arena games --format json: builds)")
    return changes


def _isolation_words(record: dict) -> str:
    return "none" if record.get("tool") == "none" else str(record.get("tool"))


def _changed_keys(prefix: str, old: dict, new: dict) -> list[str]:
    return [f"{prefix}{key} was {old[key]}, now {value}" for key, value in new.items()
            if key in old and old[key] != value]


def run_record(config: TournamentConfig, manifests: dict[str, BotManifest], versions: dict[str, str],
               isolation: Isolation | None = None, builds: dict[str, str] | None = None) -> dict:
    """What every stored game records about how it was played: bot versions, the digest of what
    ran for each (its prepared copy, build outputs included: arena/submission/prepared.py), the
    limits in force, and the isolation (who the bots ran as, and what they could see)."""
    from arena.sandbox.guard import describe
    from arena.sandbox.limits import ceilings_from, grant
    from arena.sandbox.guard import tcp_asked

    def limits_of(m: BotManifest) -> dict:
        own = config.grants.get(m.name) or {}
        given = grant(dict(m.limits), ceilings_from(config.sandbox, own), tcp_asked=tcp_asked(m),
                      tcp_granted=bool(own.get("zmq_tcp")))
        return describe(given.limits, network=not given.limits.no_network)

    return {
        # The engine and the protocol the game was refereed by: a replay page names them.
        "arena": __version__,
        "protocol": PROTOCOL_VERSION,
        "versions": {name: versions.get(name, "") for name in config.playing},
        **({"builds": {name: builds.get(name, "") for name in config.playing}} if builds else {}),
        "time_limits": {"move_timeout_s": config.move_timeout_s, "startup_timeout_s": config.startup_timeout_s},
        "sandbox": {name: limits_of(m) for name, m in manifests.items() if not m.is_service},
        "isolation": (isolation or find_isolation(config.isolation)).record(),
        "machine": socket.gethostname(),  # a cluster's games name their worker instead
    }


def pending_tables(tables: list[TableSpec], done: set[str]) -> list[TableSpec]:
    out = []
    for table in tables:
        missing = tuple(g for g in table.games if g.key not in done)
        if missing:
            out.append(TableSpec(table.index, table.entries, missing))
    return out


def play_order(todo: list[TableSpec], void_keys: set[str]) -> list[TableSpec]:
    """Tables with a void game first (an earlier run could not play it), then the longest first,
    which keeps the workers busy to the end."""
    return sorted(todo, key=lambda t: (not any(g.key in void_keys for g in t.games), -len(t.games)))


def run_tournament(
    config: TournamentConfig,
    manifests: dict[str, BotManifest],
    store: ResultStore,
    *,
    workers: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    log_dir=None,
    versions: dict[str, str] | None = None,
    tables: list[TableSpec] | None = None,
    pool: Pool | None = None,
    builds: dict[str, str] | None = None,
    on_note: Callable[[str], None] | None = None,
) -> RunSummary:
    """Play every scheduled game that is not yet stored (`tables`: the schedule, if the caller has
    built it already). Returns when all are stored or void, or raises KeyboardInterrupt (after
    stopping every worker and bot) if interrupted. `pool`: what plays the tables (a started
    ClusterPool); by default the local worker pool. Either has start, games and stop, and the
    runner uses them alike; a pool's `where` (game key -> machine, isolation, builds) overrides
    the run's record. `builds`: each bot's build digest (its prepared copy), recorded with every
    game. `on_note`: a line for the organiser while the run goes on (a bot paused)."""
    from arena.results.voids import add_void, pending_void_keys

    tables = build_schedule(config) if tables is None else tables
    total = sum(len(t.games) for t in tables)
    done = store.done_keys()
    todo = pending_tables(tables, done)
    already = total - sum(len(t.games) for t in todo)
    started = time.monotonic()
    played = 0
    voided: set[str] = set()  # keys void in this run and not played since
    if on_progress:
        on_progress(Progress(already, total, 0, started))
    if not todo:
        return RunSummary(total, already, 0, False)
    n_workers = max(1, min(workers or config.workers, len(todo)))
    # Probed once, here: the isolation each stored game records is the one its bots ran under.
    isolation = find_isolation(config.isolation)
    extra = run_record(config, manifests, versions or {}, isolation, builds)
    if pool is None:
        pool = WorkerPool(n_workers, manifests, config, log_dir, isolation)
    where = pool.where
    feed = TableFeed(play_order(todo, pending_void_keys(store)))
    finished = False
    try:
        pool.start()
        for spec, item in pool.games(feed):
            record = {**extra, **where[spec.key]} if spec.key in where else extra
            if isinstance(item, VoidGame):
                add_void(store, spec, item, record)  # kept, out of the standings: played again later
                paused = feed.voided(spec, item)
                if paused is not None and on_note is not None:
                    on_note(f"{paused} could not be started or reached ({item.why}): its tables are paused for this "
                            "run and tried again at its end; the other tables go on")
            else:
                store.add_game(spec, item, record)  # the game is done once this commit returns
                played += 1
                feed.played(spec)
            (voided.add if isinstance(item, VoidGame) else voided.discard)(spec.key)
            if on_progress:
                last = None if isinstance(item, VoidGame) else item
                on_progress(Progress(already + played, total, played, started, last, void=len(voided)))
        untried = feed.untried()
        for spec, item in untried:
            add_void(store, spec, item, extra)
            voided.add(spec.key)
        if untried and on_progress:
            on_progress(Progress(already + played, total, played, started, None, void=len(voided)))
        finished = True
    finally:
        pool.stop(wait_s=5.0 if finished else 0.0)
    return RunSummary(total, already, played, False, void=total - already - played,
                      given_up=tuple(sorted(feed.given_up.items())))

