"""A gauntlet with `stop = "sprt"`: deals are played a few at a time, in deal order, until the
sequential test (arena/results/sprt.py) decides or the config's `deals` are all played.

The test reads only deal sets that are complete, in deal order, and stops at the first decision,
so the decision, the deal it came at and the games played are the same whatever the number of
workers, the order in which games ended, or how often the run was interrupted. The deals of the
last wave past the deciding one are played too (a wave is WAVE_DEALS deals, fixed so that what is
played does not depend on the workers) and count in the standings like any other game."""

from __future__ import annotations

import math
import time
from collections import Counter
from typing import Callable, Sequence

from arena.results.queries import points_by_deal
from arena.results.sprt import SprtState, run_test
from arena.results.store import ResultStore
from arena.schedule.games import TableSpec
from arena.schedule.tables import gauntlet_entries
from arena.tournament.config import TournamentConfig
from arena.tournament.run_plan import RunPlan
from arena.tournament.runner import Progress, RunSummary, run_tournament

WAVE_DEALS = 4
FIELD = "the field"


def sprt_tables(config: TournamentConfig) -> list[tuple[str, ...]]:
    """The bots of each table of the gauntlet in play (a withdrawn bot's are not), as
    `build_schedule` lays them out, without laying out their games: 250,000 game specs of a long
    test took 1.9 s to build for counts a formula gives."""
    gone = set(config.withdrawn)
    return [entries for entries in gauntlet_entries(list(config.bots), config.challenger_count, config.table_size)
            if not gone & set(entries)]


def sprt_state(store: ResultStore, config: TournamentConfig, tables: Sequence[tuple[str, ...]]) -> SprtState:
    """The test over the stored games' complete deal sets, in deal order; `tables`: the bots of each
    table of the schedule (`sprt_tables`), every one of which plays every seating of every deal."""
    challenger = config.bots[0]
    baseline = config.bots[1] if config.challenger_count == 2 else None
    expected: Counter = Counter()  # bot -> games it has in each deal
    for entries in tables:
        for name in set(entries):
            expected[name] += math.factorial(len(entries))  # the seatings of a deal (schedule/games.py)
    games_a_deal = sum(math.factorial(len(entries)) for entries in tables)  # the tournament's games in each deal
    sums: dict[tuple[str, int], list[float]] = {}  # (bot or FIELD, deal) -> [points, seats]
    for got in points_by_deal(store):
        key = (got.bot if got.bot in (challenger, baseline) else FIELD, got.deal)
        acc = sums.setdefault(key, [0.0, 0])
        acc[0] += got.points
        acc[1] += got.seats

    def differences():
        for deal in range(config.deals):
            mine = sums.get((challenger, deal))
            theirs = sums.get((baseline or FIELD, deal))
            if not mine or mine[1] < expected[challenger] or not theirs:
                return  # the first deal set not complete ends what the test may read
            if baseline and theirs[1] < expected[baseline]:
                return
            if not baseline and mine[1] * (config.table_size - 1) > theirs[1]:
                return
            yield mine[0] / mine[1] - theirs[0] / theirs[1], games_a_deal

    assert config.sprt is not None
    return run_test(differences(), config.sprt, challenger, baseline or FIELD)


def run_until_decided(plan: RunPlan, store: ResultStore, *, on_progress: Callable[[Progress], None] | None = None,
                      on_test: Callable[[SprtState], None] | None = None,
                      on_note: Callable[[str], None] | None = None) -> tuple[RunSummary, SprtState]:
    """Play waves of WAVE_DEALS deals of the plan's tables, each with `run_tournament`, until the
    test decides or the deals run out. Progress counts against the whole schedule."""
    config, tables = plan.config, plan.tables
    total = sum(len(t.games) for t in tables)
    started = time.monotonic()
    already = len(store.done_keys() & {g.key for t in tables for g in t.games})
    played = void = 0
    given_up: tuple[tuple[str, str], ...] = ()
    state = sprt_state(store, config, [table.entries for table in tables])
    while not state.decided and state.deal_sets < config.deals:
        first = state.deal_sets  # every deal before it is complete
        wave = range(first, min(first + WAVE_DEALS, config.deals))
        wave_tables = [TableSpec(t.index, t.entries, tuple(g for g in t.games if g.deal in wave)) for t in tables]
        before = already + played

        def shifted(progress: Progress, before: int = before) -> None:
            if on_progress:
                on_progress(Progress(before + progress.played_now, total, played + progress.played_now, started,
                                     progress.last, void=progress.void))

        summary = run_tournament(plan.with_tables(wave_tables), store, on_progress=shifted, on_note=on_note)
        played += summary.played
        void, given_up = summary.void, summary.given_up  # a wave with void games completes no deal set: the last
        state = sprt_state(store, config, [table.entries for table in tables])
        if on_test:
            on_test(state)
        if state.deal_sets <= first and not state.decided:
            break  # the wave completed no deal set: do not loop on it
    if on_progress:
        # Decided: the run is complete at what it played, and the progress line says so.
        done = already + played
        on_progress(Progress(done, done if state.decided else total, played, started))
    return RunSummary(total, already, played, False, void=void, given_up=given_up), state


__all__ = ["WAVE_DEALS", "sprt_tables", "sprt_state", "run_until_decided"]
