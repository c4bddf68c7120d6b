"""Running a league (schedule = "league", issue 43): tables chosen as the run goes, until stopped.

The pool asks the feed for a table whenever a worker is free; a league's feed, when it has none
ready, fits the ratings of the games stored so far (the reader keeps its counts: a refit costs the
games stored since the last one), asks the matchmaking (schedule/matchmaking.py) for enough tables
to keep one ready per worker, keeps them in the results as queued (results/league_queue.py,
committed before any is handed out), and hands them out. A table is marked played when its last
game is stored.

A run plays the tables an earlier run left queued first (their games not yet stored), then chooses
on. It stops choosing at `--until` or once it has handed out `--games` games (whole tables: a
table is a duplicate set of deals), or when `watch` says the config or a bot changed (the session
then opens the league again with the change); the tables under way are finished, and the queued
ones wait for the next run. A Ctrl-C stops at once: what is stored is kept and the queue with it.

A bot that cannot be started or reached is paused, its tables held (tournament/feed.py). A finite
run gives it a last try when nothing else is left; a league never runs out of tables, so here the
paused bot gets a try (one held table) once it has been paused for its retry window, then after
twice that, and so on up to an hour. Its retry window is spent by then, so a ZeroMQ service still
out of reach is charged at that table, not voided again (protocol.md section 9): an outage can
hold a bot's standing still for a while, never for good. A bot charged `no_hello` (not reached, or
no hello in time) stays paused, or is paused, the same way: the league does not seat it at table
after table, each game waiting out its start-up limit; a game it plays brings it back."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from arena.play.records import FaultKind, GameRecord, VoidGame
from arena.results.league_queue import DROPPED, PLAYED, QUEUED, LeagueTable, end_table, games_by_bot, league_tables
from arena.results.league_queue import next_table_number, queue_tables
from arena.results.ratings_read import RatingsReader
from arena.results.store import ResultStore
from arena.schedule.games import GameSpec, TableSpec, table_games
from arena.schedule.matchmaking import choose_tables
from arena.tournament.feed import TableFeed, WAIT, _Wait
from arena.tournament.league_state import LeagueTally, games_per_table, league_state, matchmaking_of
from arena.tournament.pool import Pool
from arena.tournament.run_plan import RunPlan
from arena.tournament.runner import Progress, RunSummary, RunTally, play_feed
from arena.wording import count

RETRY_CAP_S = 3600.0  # the longest a paused bot waits for its next try in a league
RETRY_FLOOR_S = 1.0  # its first wait at the least: a window of 0 must not try it at every table


@dataclass(frozen=True, slots=True)
class LeagueLimits:
    """When a league run stops choosing tables (None: not for that reason)."""

    until_s: float | None = None  # seconds from the run's start (--until)
    games: int | None = None  # games handed out by this run (--games)


def league_table_spec(plan: RunPlan, table: LeagueTable) -> TableSpec:
    """A league table's games: its deals in every seating, seeded by its bots and its number (each
    table of the same bots gets cards of its own), keyed by its number."""
    config = plan.config
    return TableSpec(table.number, table.bots, table_games(table.number, table.bots, config.deals, config.seed,
                                                           copy=table.number + 1))


class LeagueFeed(TableFeed):
    """A run's tables: the queued ones first, then as many as the matchmaking chooses while the
    run goes on (see the module docstring)."""

    def __init__(self, plan: RunPlan, store: ResultStore, limits: LeagueLimits,
                 watch: Callable[[], str | None] = lambda: None, on_note: Callable[[str], None] | None = None,
                 on_chosen: Callable[[int], None] = lambda games: None) -> None:
        self.plan, self.store, self.limits, self.watch = plan, store, limits, watch
        self.on_note, self.on_chosen = on_note, on_chosen
        self.started = time.monotonic()
        self.handed_games = 0  # games of the tables handed out, each table counted once
        self._handed: set[int] = set()  # a paused bot's table is handed again at its last try
        self.stopped_by: str | None = None  # why it stopped choosing, once it has
        self._ratings = RatingsReader()
        self._left: dict[int, int] = {}  # table number -> its games not yet stored
        self._seated: dict[int, tuple[str, ...]] = {}  # table number -> its bots, while under way
        self._tally: LeagueTally | None = None  # the played tables, read at the first choice
        self._tries: dict[str, tuple[float, int]] = {}  # paused bot -> (when its next try is due, tries made)
        super().__init__(self._resumed())

    # ---- the queue an earlier run left --------------------------------------------------------

    def _resumed(self) -> list[TableSpec]:
        """The queued tables with games still to store; those whose games are all stored are marked
        played, those with a bot out of the league dropped."""
        from arena.results.voids import pending_void_keys

        done, playing = self.store.done_keys(), set(self.plan.config.playing)
        tables, dropped, gone = [], [], set[str]()
        for queued in league_tables(self.store, QUEUED):
            if not set(queued.bots) <= playing:
                end_table(self.store, queued.number, DROPPED)
                dropped.append(str(queued.number))
                gone.update(set(queued.bots) - playing)
                continue
            spec = league_table_spec(self.plan, queued)
            missing = tuple(game for game in spec.games if game.key not in done)
            if not missing:
                end_table(self.store, queued.number, PLAYED)
                continue
            tables.append(TableSpec(spec.index, spec.entries, missing))
            self._left[spec.index], self._seated[spec.index] = len(missing), spec.entries
        if dropped:  # one line for them all: a bot withdrawn often sat at every queued table
            self._say(f"league {'table' if len(dropped) == 1 else 'tables'} {', '.join(dropped)} dropped: "
                      f"{', '.join(sorted(gone))} left the league")
        void = pending_void_keys(self.store)
        return sorted(tables, key=lambda t: (not any(g.key in void for g in t.games), t.index))

    def pending(self) -> list[TableSpec]:
        """The tables ready now: at the start, those an earlier run left queued."""
        return list(self._ready)

    # ---- the pool's side ----------------------------------------------------------------------

    def next(self) -> TableSpec | _Wait | None:
        if self._limit_reached():
            return None  # what is ready stays queued in the results, for the next run
        table: TableSpec | _Wait | None = self._try_paused()
        if table is None:
            if not self.ready and self._choosing():
                self.add(self._choose())
            table = super().next()
        if isinstance(table, TableSpec) and table.index not in self._handed:
            self._handed.add(table.index)
            self.handed_games += len(table.games)
        return table

    def _try_paused(self) -> TableSpec | None:
        """A table of a paused bot's held work, once its next try is due (see the module docstring)."""
        now = time.monotonic()
        for bot, (due, tries) in sorted(self._tries.items()):
            if now >= due and bot in self.paused:
                self._tries[bot] = (now + self._retry_after(tries + 1), tries + 1)
                table = self._hand_held(bot)
                if table is not None:
                    return table
                del self.paused[bot]  # no held work: the matchmaking may seat it again, and that table is its try
        return None

    def _retry_after(self, tries: int) -> float:
        """How long a paused bot waits for its next try, after `tries` tries that did not bring it back."""
        return min(RETRY_CAP_S, max(RETRY_FLOOR_S, self.plan.config.start_retry_s) * 2 ** tries)

    def when_tried_again(self) -> str:
        return f"tried again in {self._retry_after(0):g} s, and less often each time it is still out of reach"

    @property
    def finished(self) -> bool:
        if self._limit_reached():
            return self._running == 0
        return super().finished and not self._choosing()

    def _limit_reached(self) -> bool:
        """Whether --until or --games says to hand out no more tables (those under way finish)."""
        if self.stopped_by in ("until", "games"):
            return True
        limits = self.limits
        if limits.until_s is not None and time.monotonic() - self.started >= limits.until_s:
            self.stopped_by = "until"
        elif limits.games is not None and self.handed_games >= limits.games:
            self.stopped_by = "games"
        return self.stopped_by in ("until", "games")

    def _choosing(self) -> bool:
        """Whether more tables are to be chosen: not in a frozen league (its final round robin is
        queued), not past a limit, not once the league changed."""
        if self.stopped_by is None and self.plan.config.frozen:
            self.stopped_by = "frozen"
        if self.stopped_by is None and not self._limit_reached():
            self.stopped_by = self.watch()
        return self.stopped_by is None

    def _choose(self) -> list[TableSpec]:
        """Enough tables to keep one ready per worker, chosen from a fresh fit, queued, then handed on."""
        config = self.plan.config
        names = [name for name in config.playing if name not in self.paused and name not in self.given_up]
        if len(names) < config.table_size:
            return []
        if self._tally is None:  # the league's played tables, read once a run (then kept as played)
            self._tally = LeagueTally.read(self.store)
        state = league_state(names, self._ratings.read(self.store), games_by_bot(self.store), self._tally,
                             league_tables(self.store, QUEUED), games_per_table(config))
        wanted = max(1, self.plan.worker_count(10**6) - self._running)
        if self.limits.games is not None:  # no more tables than --games has room for: each is played
            wanted = min(wanted, -(-(self.limits.games - self.handed_games) // games_per_table(config)))
        first = next_table_number(self.store)
        choices, _ = choose_tables(state, matchmaking_of(config), config.seed, first, wanted, games_per_table(config))
        chosen = [LeagueTable(first + i, choice.bots, choice.reason, choice.why) for i, choice in enumerate(choices)]
        queue_tables(self.store, chosen)
        specs = [league_table_spec(self.plan, table) for table in chosen]
        for spec in specs:
            self._left[spec.index], self._seated[spec.index] = len(spec.games), spec.entries
        self.on_chosen(sum(len(spec.games) for spec in specs))
        return specs

    # ---- the runner's side --------------------------------------------------------------------

    def voided(self, spec: GameSpec, void: VoidGame) -> str | None:
        paused = super().voided(spec, void)
        if paused is not None:  # newly paused: its first try comes one retry window later
            self._tries[paused] = (time.monotonic() + self._retry_after(0), 0)
        return paused

    def still_out(self, record: GameRecord | None) -> set[str]:
        if record is None:
            return set()
        return {record.bots[fault.seat] for fault in record.faults if fault.kind is FaultKind.NO_HELLO}

    def played(self, spec: GameSpec, record: GameRecord | None = None) -> None:
        super().played(spec, record)
        out = self.still_out(record)
        for bot in sorted(out - set(self.paused)):  # charged, not reached: paused as a void game pauses it
            self.paused[bot] = "charged no_hello"
            self._hold(bot)
            _, tries = self._tries.get(bot, (0.0, 0))
            self._tries[bot] = (time.monotonic() + self._retry_after(tries), tries)
            self._say(f"{bot} was not reached or did not say hello (charged no_hello): its tables are held "
                      f"and tried again in {self._retry_after(tries):g} s; the other tables go on")
        for bot in [bot for bot in spec.bots if bot in self._tries and bot not in out and bot not in self.paused]:
            del self._tries[bot]  # it played: back
            self._say(f"{bot} is back: it played at table {spec.table}; its held tables go on")
        left = self._left.get(spec.table)
        if left is None:
            return
        if left <= 1:
            del self._left[spec.table]
            end_table(self.store, spec.table, PLAYED)
            if self._tally is not None:  # else it is read with the table in it
                self._tally.add(spec.table, self._seated.pop(spec.table))
        else:
            self._left[spec.table] = left - 1

    def _say(self, line: str) -> None:
        if self.on_note is not None:
            self.on_note(line)


def stop_words(feed: LeagueFeed) -> str:
    """Why a league run ended, in a line (after its last table under way)."""
    queued = len(league_tables(feed.store, QUEUED))
    left = f"; {count(queued, 'table')} queued for the next run" if queued else ""
    if feed.stopped_by == "frozen":
        if not queued:
            return "league: frozen, and its final round robin is complete: the standings are final"
        return f"league: frozen; {count(queued, 'table')} of its final round robin left: run again to play them"
    if feed.stopped_by == "until":
        return f"league: --until reached after {count(feed.handed_games, 'game')} handed out{left}"
    if feed.stopped_by == "games":
        return f"league: {count(feed.handed_games, 'game')} played, as --games asked{left}"
    if feed.stopped_by:
        return f"league: {feed.stopped_by}{left}"
    return f"league: no table to choose (fewer playing bots than a table seats){left}"




def run_league(plan: RunPlan, store: ResultStore, *, pool: Pool | None = None, limits: LeagueLimits = LeagueLimits(),
               watch: Callable[[], str | None] = lambda: None,
               on_progress: Callable[[Progress], None] | None = None,
               on_note: Callable[[str], None] | None = None) -> tuple[RunSummary, str]:
    """Play the league's queued tables, then tables chosen as it goes, until a limit, a change
    `watch` reports, or a Ctrl-C (KeyboardInterrupt, after every worker and bot is stopped).
    Returns the run's summary and a line on why it stopped."""
    from arena.tournament.local_pool import WorkerPool

    already = store.game_count()
    tally = RunTally(plan, store, already, already, on_progress, on_note)
    feed = LeagueFeed(plan, store, limits, watch, on_note, on_chosen=tally.grow)
    tally.grow(sum(len(table.games) for table in feed.pending()))
    pool = WorkerPool(plan, plan.worker_count(10**6)) if pool is None else pool
    play_feed(pool, feed, tally, on_note)
    summary = RunSummary(tally.total, already, tally.played, False, void=len(tally.voided),
                         given_up=tuple(sorted(feed.given_up.items())))
    return summary, stop_words(feed)


__all__ = ["LeagueFeed", "LeagueLimits", "league_table_spec", "run_league", "stop_words", "WAIT"]
