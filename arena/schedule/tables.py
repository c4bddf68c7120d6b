"""The tables of each schedule: which bots meet at which table.

Round robin: every combination of `table_size` entries is a table. Each table plays
`deals` deals, and each deal in every seating of its bots (3! = 6 for three) with
the same cards: duplicate play, so the luck of the deal cancels out. A game's seed
is derived from (tournament seed, the table's entries, deal number), never from the
order of play, so results do not depend on workers or interruptions.

Balanced schedule (for many entries): instead of all C(n, k) combinations, a chosen
number of tables in which every entry plays equally many tables and every pair of entries
meets equally often, as far as the search finds such a layout (see `balanced_tables`).

Gauntlet (cutechess-cli's and fastchess's name): the first entries are challengers, and each
plays every combination of the other entries (the field), never another challenger. For testing
one bot, or a few versions of it, against a field without playing the field's own tables.
"""

from __future__ import annotations

import itertools
import math

from arena.schedule.balanced import balanced_tables
from arena.schedule.games import (CHALLENGER_SLOT, SEEDS_BY_BOTS, SEEDS_BY_FIELD, ScheduleError, TableSpec,
                                  check_entries, table_games)
from arena.schedule.numbers import PAIRED


def round_robin(entries: list[str], table_size: int, deals: int, seed: int, layout: str = PAIRED) -> list[TableSpec]:
    """Every combination of `table_size` entries, each playing `deals` duplicate deals.

    PAIRED lays the tables out in colex order (by their last entry, then the one before, ...):
    the tables of the first n entries then come first whatever follows, so an entry added at the
    end of the list only adds tables after the others, and no table changes its index (its key).
    Older layouts keep the lex order they were stored with."""
    check_entries(entries, table_size, deals)
    n = len(entries)
    combos = _colex(n, table_size) if layout == PAIRED else list(itertools.combinations(range(n), table_size))
    return [
        TableSpec(i, entries_of, table_games(i, entries_of, deals, seed))
        for i, entries_of in enumerate(tuple(entries[x] for x in combo) for combo in combos)
    ]


def _colex(n: int, k: int) -> list[tuple[int, ...]]:
    """The k-combinations of range(n) in colex order (by their last member, then the one before):
    those of the first m come first whatever n is, so growing n only adds combinations after them."""
    return sorted(itertools.combinations(range(n), k), key=lambda combo: combo[::-1])


def gauntlet(entries: list[str], challengers: int, table_size: int, deals: int, seed: int,
             seeds: str = SEEDS_BY_FIELD) -> list[TableSpec]:
    """Each of the first `challengers` entries at a table with every combination of
    `table_size - 1` of the others, each table playing `deals` duplicate deals.

    Tables go field combination by combination, in colex order, with the challengers innermost:
    an entry added at the end of the field only adds tables after the others (as in
    `round_robin`), so stored games keep their keys and numbers. A challenger sits first at its
    table, so it takes the same seat in the same seating at every table of a field combination;
    with SEEDS_BY_FIELD those tables also get the same cards, deal by deal, and the challengers'
    difference per deal set is paired (arena/results/sprt.py). SEEDS_BY_BOTS: the seeds of
    results stored before, which named the challenger too."""
    check_entries(entries, table_size, deals)
    if not 1 <= challengers < len(entries):
        raise ScheduleError(f"a gauntlet needs 1 to {len(entries) - 1} challengers, not {challengers}")
    heads, field = entries[:challengers], entries[challengers:]
    if len(field) < table_size - 1:
        raise ScheduleError(f"the {len(field)} entries after the challengers cannot fill the other "
                            f"{table_size - 1} seats of a table")
    tables: list[TableSpec] = []
    for entries_of in gauntlet_entries(entries, challengers, table_size):
        seeded_as = None if seeds == SEEDS_BY_BOTS else (CHALLENGER_SLOT, *entries_of[1:])
        tables.append(TableSpec(len(tables), entries_of,
                                table_games(len(tables), entries_of, deals, seed, seeded_as=seeded_as)))
    return tables


def gauntlet_entries(entries: list[str], challengers: int, table_size: int) -> list[tuple[str, ...]]:
    """The bots of each table of a `gauntlet`, in its order, without laying out the games (the
    SPRT's counts need no more)."""
    heads, field = entries[:challengers], entries[challengers:]
    return [(head, *(field[x] for x in combo)) for combo in _colex(len(field), table_size - 1) for head in heads]


def gauntlet_table_count(entries: int, challengers: int, table_size: int) -> int:
    return challengers * math.comb(entries - challengers, table_size - 1)


def balanced_schedule(entries: list[str], table_size: int, tables: int, deals: int, seed: int) -> list[TableSpec]:
    combos = balanced_tables(entries, table_size, tables, seed)
    seen: dict[tuple[str, ...], int] = {}
    specs = []
    for i, combo in enumerate(combos):
        specs.append(TableSpec(i, combo, table_games(i, combo, deals, seed, copy=seen.get(combo, 0))))
        seen[combo] = seen.get(combo, 0) + 1
    return specs


def pair_meetings(tables: list[TableSpec]) -> dict[tuple[str, str], int]:
    """How many tables each pair of entries shared."""
    counts: dict[tuple[str, str], int] = {}
    for table in tables:
        for pair in itertools.combinations(sorted(table.entries), 2):
            counts[pair] = counts.get(pair, 0) + 1
    return counts
