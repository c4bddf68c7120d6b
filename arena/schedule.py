"""Tournament schedules: which bots meet at which table, in which seatings, with which cards.

Round robin: every combination of `table_size` entries is a table. Each table plays
`deals` deals, and each deal in every seating of its bots (3! = 6 for three) with
the same cards: duplicate play, so the luck of the deal cancels out. A game's seed
is derived from (tournament seed, the table's entries, deal number), never from the
order of play, so results do not depend on workers or interruptions.

Balanced schedule (for many entries): instead of all C(n, k) combinations, a chosen
number of tables in which every pair of entries meets equally often where such a design
exists, and as nearly equally as possible otherwise (see `balanced_tables`).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

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


def game_key(table: int, deal: int, seating: int) -> str:
    """The stable key of a game: table, deal and seating (e.g. t0003-d0001-s02)."""
    return f"t{table:04d}-d{deal:04d}-s{seating:02d}"


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
            key = game_key(index, deal, s)
            games.append(GameSpec(key, index, deal, s, seating, deal_seed, dealer))
    return tuple(games)


def round_robin(entries: list[str], table_size: int, deals: int, seed: int) -> list[TableSpec]:
    """Every combination of `table_size` entries, each playing `deals` duplicate deals."""
    _check(entries, table_size, deals)
    return [
        TableSpec(i, combo, table_games(i, combo, deals, seed))
        for i, combo in enumerate(itertools.combinations(entries, table_size))
    ]


def balanced_tables(entries: list[str], table_size: int, tables: int, seed: int, steps: int = 40_000) -> list[tuple[str, ...]]:
    """`tables` combinations chosen so that every pair of entries meets as equally often as possible.

    A greedy start (each next table the one whose pairs have met least), then a seeded local
    search that replaces one table at a time by another combination whenever that does not
    raise the sum of squared pair counts (sideways moves let it leave plateaus). Where an
    exactly balanced design exists (7 entries, tables of 3, 7 tables: the Fano plane; 10
    entries, 30 tables) it finds one in practice; otherwise counts end within one or two of
    each other, which `pair_meetings` reports. The result depends only on the arguments.
    """
    _check(entries, table_size, 1)
    rng = random.Random(derive_seed(seed, "balanced"))
    pairs_of = {c: list(itertools.combinations(c, 2)) for c in itertools.combinations(entries, table_size)}
    candidates = list(pairs_of)
    meetings = {pair: 0 for pair in itertools.combinations(entries, 2)}

    def add(combo: tuple[str, ...], step: int) -> None:
        for pair in pairs_of[combo]:
            meetings[pair] += step

    chosen: list[tuple[str, ...]] = []
    for _ in range(tables):
        rng.shuffle(candidates)
        best = min(candidates, key=lambda c: sum(meetings[p] for p in pairs_of[c]))
        chosen.append(best)
        add(best, 1)
    for _ in range(steps):
        if max(meetings.values()) - min(meetings.values()) <= 0:
            break
        i = rng.randrange(tables)
        new = candidates[rng.randrange(len(candidates))]
        old = chosen[i]
        add(old, -1)
        gain = sum(2 * meetings[p] + 1 for p in pairs_of[new]) - sum(2 * meetings[p] + 1 for p in pairs_of[old])
        if gain <= 0:
            chosen[i] = new
            add(new, 1)
        else:
            add(old, 1)
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


def _check(entries: list[str], table_size: int, deals: int) -> None:
    if len(set(entries)) != len(entries):
        raise ScheduleError("entries must have distinct names")
    if not 2 <= table_size <= 5:
        raise ScheduleError(f"table size must be 2 to 5, not {table_size}")
    if len(entries) < table_size:
        raise ScheduleError(f"{len(entries)} entries cannot fill a table of {table_size}")
    if deals < 1:
        raise ScheduleError("deals must be at least 1")
