"""The balanced schedule's search: a chosen number of tables in which every entry plays equally many
tables and every pair of entries meets equally often, as far as the search finds such a layout."""

from __future__ import annotations

import itertools
import math
import random

from arena.game.seeds import derive_seed
from arena.schedule.games import ScheduleError, check_entries


def balanced_tables(entries: list[str], table_size: int, tables: int, seed: int,
                    steps: int | None = None) -> list[tuple[str, ...]]:
    """`tables` tables of `table_size` entries, each entry at as equally many tables as possible,
    every pair meeting as equally often as possible, and no table repeated while others are free.

    Fairness first: standings rank by cumulative points, so an entry at more tables would
    gain simply by playing more. The cost is a weighted sum of squares (tables per entry,
    meetings per pair, copies per table), lowest when each is even. A greedy start fills
    each table with the entries that have played least and met its members least; then a
    seeded annealing search moves one entry to another table's seat, or swaps two entries
    between tables, and keeps the best layout seen. It stops as soon as every count is as
    even as arithmetic allows. It finds exact designs where they exist in most cases we tried
    (7 entries in 7 tables of three, 13 in 26, 15 in 35; 8 entries in 14 tables of four, 9 in
    18, 12 in 33), not all (16 entries in 20 tables of four with some seeds, 21 entries in 21
    tables of five); then pair counts end one or two apart. `pair_meetings` reports them.
    Work grows with `tables`, not with C(n, k). The result depends only on the arguments.
    """
    check_entries(entries, table_size, 1)
    if tables < 1:
        raise ScheduleError("a balanced schedule needs at least one table")
    if tables * table_size < len(entries):  # an entry without a table would be ranked on 0 games
        raise ScheduleError(f"{tables} tables of {table_size} leave some of the {len(entries)} entries without a game")
    rng = random.Random(derive_seed(seed, "balanced"))
    n, k = len(entries), table_size
    tables_of = [0] * n  # tables per entry
    met = [[0] * n for _ in range(n)]  # met[x][y], x < y: tables shared
    copies: dict[tuple[int, ...], int] = {}
    entry_weight, copy_weight = k * (k - 1), n * n

    def add(table: tuple[int, ...], step: int) -> int:
        """Count `table` in (step 1) or out (-1); returns the change of cost."""
        delta = 0
        for x in table:
            delta += entry_weight * (2 * tables_of[x] * step + 1)
            tables_of[x] += step
        for x, y in itertools.combinations(table, 2):
            delta += 2 * met[x][y] * step + 1
            met[x][y] += step
        c = copies.get(table, 0)
        delta += copy_weight * (2 * c * step + 1)
        copies[table] = c + step
        return delta

    chosen: list[tuple[int, ...]] = []
    for _ in range(tables):
        members: list[int] = []
        pool = list(range(n))
        rng.shuffle(pool)
        for _ in range(k):
            pick = min((x for x in pool if x not in members),
                       key=lambda x: (tables_of[x], sum(met[min(x, o)][max(x, o)] for o in members)))
            members.append(pick)
        chosen.append(tuple(sorted(members)))
        add(chosen[-1], 1)

    # As even as arithmetic allows: then no layout is fairer, and the search can stop.
    pair_spread = 0 if tables * math.comb(k, 2) % math.comb(n, 2) == 0 else 1
    entry_spread = 0 if tables * k % n == 0 else 1
    most_copies = -(-tables // math.comb(n, k))

    def even() -> bool:
        meetings = [met[x][y] for x, y in itertools.combinations(range(n), 2)]
        return (max(meetings) - min(meetings) <= pair_spread and max(tables_of) - min(tables_of) <= entry_spread
                and max(copies.values()) <= most_copies)

    def swap_in(table: tuple[int, ...], leaving: int, coming: int) -> tuple[int, ...]:
        return tuple(sorted([x for x in table if x != leaving] + [coming]))

    steps = min(250_000, 20_000 + 4_000 * tables) if steps is None else steps
    hot, cold = 2.0, 0.05  # temperature, in cost units, at the first and the last step
    cost = best_cost = 0
    best = list(chosen)
    for step in range(steps):
        if step % 256 == 0 and even():
            best = list(chosen)
            break
        temperature = hot * (cold / hot) ** (step / steps)
        i = rng.randrange(tables)
        old_i = chosen[i]
        leaving = old_i[rng.randrange(k)]
        if rng.random() < 0.5:  # an entry from outside takes one seat of table i
            coming = rng.randrange(n)
            if coming in old_i:
                continue
            before, after = [old_i], [swap_in(old_i, leaving, coming)]
            where = [i]
        else:  # two entries change places between tables i and j
            j = rng.randrange(tables)
            old_j = chosen[j]
            coming = old_j[rng.randrange(k)]
            if i == j or coming in old_i or leaving in old_j:
                continue
            before, after = [old_i, old_j], [swap_in(old_i, leaving, coming), swap_in(old_j, coming, leaving)]
            where = [i, j]
        delta = sum(add(t, -1) for t in before) + sum(add(t, 1) for t in after)
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            for slot, table in zip(where, after):
                chosen[slot] = table
            cost += delta
            if cost < best_cost:
                best_cost, best = cost, list(chosen)
        else:
            for t in after:
                add(t, -1)
            for t in before:
                add(t, 1)
    return [tuple(entries[x] for x in table) for table in best]
