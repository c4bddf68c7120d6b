"""Tournament schedules: which bots meet at which table, in which seatings, with which cards.

Round robin: every combination of `table_size` entries is a table. Each table plays
`deals` deals, and each deal in every seating of its bots (3! = 6 for three) with
the same cards: duplicate play, so the luck of the deal cancels out. A game's seed
is derived from (tournament seed, the table's entries, deal number), never from the
order of play, so results do not depend on workers or interruptions.

Balanced schedule (for many entries): instead of all C(n, k) combinations, tables
are drawn so that every pair of entries meets equally often (see `balanced_tables`).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from math import comb

from arena.game.seeds import derive_seed


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game to play: stable key, the bots by seat, and its cards (seed, dealer)."""

    key: str  # e.g. "t0003-d0001-s02": table, deal, seating
    table: int
    deal: int
    seating: int
    bots: tuple[str, ...]  # entry name per seat
    seed: int
    dealer: int


@dataclass(frozen=True, slots=True)
class TableSpec:
    index: int
    entries: tuple[str, ...]  # the table's bots, in entry order
    games: tuple[GameSpec, ...]


class ScheduleError(ValueError):
    """A schedule that cannot be built from these entries and sizes."""


def seatings(entries: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every seating of a table's bots, in a fixed order (itertools order of permutations)."""
    return list(itertools.permutations(entries))


def table_games(index: int, entries: tuple[str, ...], deals: int, seed: int) -> tuple[GameSpec, ...]:
    n = len(entries)
    games = []
    table_id = "|".join(entries)  # the seed names the bots, not the table's position in the list
    for deal in range(deals):
        deal_seed = derive_seed(seed, "table", table_id, "deal", deal)
        dealer = deal % n  # every seat deals equally often over n deals
        for s, seating in enumerate(seatings(entries)):
            key = f"t{index:04d}-d{deal:04d}-s{s:02d}"
            games.append(GameSpec(key, index, deal, s, seating, deal_seed, dealer))
    return tuple(games)


def round_robin(entries: list[str], table_size: int, deals: int, seed: int) -> list[TableSpec]:
    """Every combination of `table_size` entries, each playing `deals` duplicate deals."""
    _check(entries, table_size, deals)
    return [
        TableSpec(i, combo, table_games(i, combo, deals, seed))
        for i, combo in enumerate(itertools.combinations(entries, table_size))
    ]


def balanced_tables(entries: list[str], table_size: int, tables: int, seed: int) -> list[tuple[str, ...]]:
    """`tables` combinations chosen so that pair meetings are as even as possible.

    Greedy with a seeded tie-break: each next table is the combination whose pairs have
    met least so far (sum of squared meeting counts after adding it is smallest). For
    designs that exist exactly (e.g. 7 entries, tables of 3, 7 tables: the Fano plane)
    this reaches perfect balance; otherwise pair counts differ by at most a small amount,
    which `pair_meetings` reports.
    """
    _check(entries, table_size, 1)
    rng = random.Random(derive_seed(seed, "balanced"))
    meetings = {pair: 0 for pair in itertools.combinations(entries, 2)}
    chosen: list[tuple[str, ...]] = []
    candidates = list(itertools.combinations(entries, table_size))
    use_count = {c: 0 for c in candidates}
    for _ in range(tables):
        rng.shuffle(candidates)

        def cost(combo: tuple[str, ...]) -> tuple[int, int]:
            return (sum((meetings[p] + 1) ** 2 - meetings[p] ** 2 for p in itertools.combinations(combo, 2)), use_count[combo])

        best = min(candidates, key=cost)
        chosen.append(best)
        use_count[best] += 1
        for pair in itertools.combinations(best, 2):
            meetings[pair] += 1
    return chosen


def balanced_schedule(entries: list[str], table_size: int, tables: int, deals: int, seed: int) -> list[TableSpec]:
    combos = balanced_tables(entries, table_size, tables, seed)
    return [TableSpec(i, combo, table_games(i, combo, deals, seed)) for i, combo in enumerate(combos)]


def pair_meetings(tables: list[TableSpec]) -> dict[tuple[str, str], int]:
    """How many tables each pair of entries shared."""
    counts: dict[tuple[str, str], int] = {}
    for table in tables:
        for pair in itertools.combinations(sorted(table.entries), 2):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def round_robin_size(entries: int, table_size: int) -> int:
    return comb(entries, table_size)


def _check(entries: list[str], table_size: int, deals: int) -> None:
    if len(set(entries)) != len(entries):
        raise ScheduleError("entries must have distinct names")
    if not 2 <= table_size <= 5:
        raise ScheduleError(f"table size must be 2 to 5, not {table_size}")
    if len(entries) < table_size:
        raise ScheduleError(f"{len(entries)} entries cannot fill a table of {table_size}")
    if deals < 1:
        raise ScheduleError("deals must be at least 1")
