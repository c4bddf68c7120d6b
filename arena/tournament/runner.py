"""Running a tournament: play what is not yet stored, tables in parallel worker processes.

The parent process is the only writer of the results database and commits each game
in its own transaction as soon as a worker reports it, so a game counts as done
exactly when its row is committed. Workers start a table's bots once, play that
table's missing games, and close the bots. Killing the parent at any moment (even
SIGKILL) loses only games in flight; the workers and their bots die with it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from arena.submission.manifest import BotManifest
from arena.play.records import GameRecord, VoidGame
from arena.schedule.numbers import BY_TABLE
from arena.schedule.games import SEEDS_BY_BOTS, GameSpec, TableSpec
from arena.results.store import ResultStore
from arena.tournament.config import TournamentConfig
from arena.tournament.feed import TableFeed
from arena.tournament.local_pool import WorkerPool
from arena.tournament.pool import Pool
from arena.tournament.run_plan import RunPlan, build_schedule, run_record


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


def describe_schedule(config: TournamentConfig, tables: Sequence[TableSpec]) -> str | None:
    """The run's line on its schedule (a balanced one's evenness, a gauntlet's challengers), or None."""
    if config.frozen:
        return (f"league: frozen; its final round robin of {len(config.playing)} bots is played, and the standings "
                "count those games alone")
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


def pending_tables(tables: Sequence[TableSpec], done: set[str]) -> list[TableSpec]:
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


def run_tournament(plan: RunPlan, store: ResultStore, *, pool: Pool | None = None,
                   on_progress: Callable[[Progress], None] | None = None,
                   on_note: Callable[[str], None] | None = None) -> RunSummary:
    """Play every game of `plan.tables` that is not yet stored. Returns when all are stored or void,
    or raises KeyboardInterrupt (after stopping every worker and bot) if interrupted. `pool`: what
    plays the tables (a started ClusterPool); by default the local worker pool, of the plan's size.
    Either has start, games and stop, and the runner uses them alike; a pool's `where` (game key ->
    machine, isolation, builds) overrides the plan's record. `on_note`: a line for the organiser
    while the run goes on (a bot paused)."""
    from arena.results.voids import pending_void_keys

    tables = list(plan.tables)
    total = sum(len(t.games) for t in tables)
    todo = pending_tables(tables, store.done_keys())
    run = RunTally(plan, store, total - sum(len(t.games) for t in todo), total, on_progress, on_note)
    run.progress()
    if not todo:
        return RunSummary(total, run.already, 0, False)
    pool = WorkerPool(plan, plan.worker_count(len(todo))) if pool is None else pool
    feed = TableFeed(play_order(todo, pending_void_keys(store)))
    play_feed(pool, feed, run, on_note)
    return RunSummary(total, run.already, run.played, False, void=total - run.already - run.played,
                      given_up=tuple(sorted(feed.given_up.items())))


def play_feed(pool: Pool, feed: TableFeed, tally: RunTally, on_note: Callable[[str], None] | None) -> None:
    """Play what `feed` hands out on `pool`, each game kept as it comes; the pool stopped whatever
    happens (its workers given a moment to end by themselves when the feed ran dry)."""
    finished = False
    try:
        pool.start()
        for spec, item in pool.games(feed, on_note=on_note):
            tally.keep(spec, item, pool.where.get(spec.key), feed)
        tally.keep_untried(feed.untried())
        finished = True
    finally:
        pool.stop(wait_s=5.0 if finished else 0.0)


class RunTally:
    """The runner's count of one call (a league's too: arena/tournament/league_run.py): what it stored, what is void, and the progress it reports."""

    def __init__(self, plan: RunPlan, store: ResultStore, already: int, total: int,
                 on_progress: Callable[[Progress], None] | None, on_note: Callable[[str], None] | None) -> None:
        self.plan, self.results, self.already, self.total = plan, store, already, total
        self.on_progress, self.on_note = on_progress, on_note
        self.started = time.monotonic()
        self.played = 0
        self.voided: set[str] = set()  # keys void in this run and not played since

    def grow(self, games: int) -> None:
        """More games to play: a league's, as it chooses tables."""
        self.total += games

    def progress(self, last: GameRecord | None = None) -> None:
        if self.on_progress:
            self.on_progress(Progress(self.already + self.played, self.total, self.played, self.started, last,
                                      void=len(self.voided)))

    def keep(self, spec: GameSpec, item: GameRecord | VoidGame, where: Mapping[str, Any] | None,
              feed: TableFeed) -> None:
        """One game the pool yielded, stored (the game is done once this commit returns) or kept
        void, out of the standings, to be played again later."""
        from arena.results.voids import add_void

        record = {**self.plan.record, **where} if where else dict(self.plan.record)
        if isinstance(item, VoidGame):
            add_void(self.results, spec, item, record)
            paused = feed.voided(spec, item)
            if paused is not None and self.on_note is not None:
                self.on_note(f"{paused} could not be started or reached ({item.why}): its tables are paused for "
                             f"this run and {feed.when_tried_again()}; the other tables go on")
            self.voided.add(spec.key)
            self.progress()
            return
        self.results.add_game(spec, item, record)
        self.played += 1
        feed.played(spec, item)
        self.voided.discard(spec.key)
        self.progress(item)

    def keep_untried(self, untried: Sequence[tuple[GameSpec, VoidGame]]) -> None:
        """The games of paused bots never tried again: void, for the next run."""
        from arena.results.voids import add_void

        for spec, item in untried:
            add_void(self.results, spec, item, dict(self.plan.record))
            self.voided.add(spec.key)
        if untried:
            self.progress()


__all__ = ["Progress", "RunSummary", "build_schedule", "builds_changed", "describe_schedule", "fingerprint",
           "limits_changed", "pending_tables", "play_feed", "play_order", "run_record", "run_tournament",
           "RunTally"]
