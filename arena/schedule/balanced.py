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
    counts = _Counts(len(entries), table_size, tables)
    chosen = [counts.greedy_table(rng) for _ in range(tables)]
    steps = min(250_000, 20_000 + 4_000 * tables) if steps is None else steps
    best = _anneal(chosen, counts, rng, steps)
    return [tuple(entries[x] for x in table) for table in best]


class _Counts:
    """What the cost counts of a layout of `tables` tables of k of n entries (entries as 0..n-1):
    tables per entry, meetings per pair, copies per table; and how even they can be at best."""

    def __init__(self, n: int, k: int, tables: int) -> None:
        self.n, self.k = n, k
        self.tables_of = [0] * n  # tables per entry
        self.met = [[0] * n for _ in range(n)]  # met[x][y], x < y: tables shared
        self.copies: dict[tuple[int, ...], int] = {}
        self.entry_weight, self.copy_weight = k * (k - 1), n * n
        # As even as arithmetic allows: then no layout is fairer, and the search can stop.
        self.pair_spread = 0 if tables * math.comb(k, 2) % math.comb(n, 2) == 0 else 1
        self.entry_spread = 0 if tables * k % n == 0 else 1
        self.most_copies = -(-tables // math.comb(n, k))

    def add(self, table: tuple[int, ...], step: int) -> int:
        """Count `table` in (step 1) or out (-1); returns the change of cost."""
        delta = 0
        for x in table:
            delta += self.entry_weight * (2 * self.tables_of[x] * step + 1)
            self.tables_of[x] += step
        for x, y in itertools.combinations(table, 2):
            delta += 2 * self.met[x][y] * step + 1
            self.met[x][y] += step
        c = self.copies.get(table, 0)
        delta += self.copy_weight * (2 * c * step + 1)
        self.copies[table] = c + step
        return delta

    def greedy_table(self, rng: random.Random) -> tuple[int, ...]:
        """A table of the entries that have played least and met its members least, counted in."""
        members: list[int] = []
        pool = list(range(self.n))
        rng.shuffle(pool)
        for _ in range(self.k):
            pick = min((x for x in pool if x not in members),
                       key=lambda x: (self.tables_of[x], sum(self.met[min(x, o)][max(x, o)] for o in members)))
            members.append(pick)
        table = tuple(sorted(members))
        self.add(table, 1)
        return table

    def even(self) -> bool:
        meetings = [self.met[x][y] for x, y in itertools.combinations(range(self.n), 2)]
        return (max(meetings) - min(meetings) <= self.pair_spread
                and max(self.tables_of) - min(self.tables_of) <= self.entry_spread
                and max(self.copies.values()) <= self.most_copies)


def _swap_in(table: tuple[int, ...], leaving: int, coming: int) -> tuple[int, ...]:
    return tuple(sorted([x for x in table if x != leaving] + [coming]))


Move = tuple[list[int], list[tuple[int, ...]], list[tuple[int, ...]]]  # slots, their tables before, after


def _move(chosen: list[tuple[int, ...]], counts: _Counts, rng: random.Random) -> Move | None:
    """A random move: (the slots, their tables before, after), or None for one that changes nothing."""
    i = rng.randrange(len(chosen))
    old_i = chosen[i]
    leaving = old_i[rng.randrange(counts.k)]
    if rng.random() < 0.5:  # an entry from outside takes one seat of table i
        coming = rng.randrange(counts.n)
        if coming in old_i:
            return None
        return [i], [old_i], [_swap_in(old_i, leaving, coming)]
    j = rng.randrange(len(chosen))  # two entries change places between tables i and j
    old_j = chosen[j]
    coming = old_j[rng.randrange(counts.k)]
    if i == j or coming in old_i or leaving in old_j:
        return None
    return [i, j], [old_i, old_j], [_swap_in(old_i, leaving, coming), _swap_in(old_j, coming, leaving)]


def _anneal(chosen: list[tuple[int, ...]], counts: _Counts, rng: random.Random, steps: int) -> list[tuple[int, ...]]:
    """The seeded annealing search from `chosen`: the best layout seen, or the first even one."""
    hot, cold = 2.0, 0.05  # temperature, in cost units, at the first and the last step
    cost = best_cost = 0
    best = list(chosen)
    for step in range(steps):
        if step % 256 == 0 and counts.even():
            return list(chosen)
        temperature = hot * (cold / hot) ** (step / steps)
        move = _move(chosen, counts, rng)
        if move is None:
            continue
        where, before, after = move
        delta = sum(counts.add(t, -1) for t in before) + sum(counts.add(t, 1) for t in after)
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            for slot, table in zip(where, after):
                chosen[slot] = table
            cost += delta
            if cost < best_cost:
                best_cost, best = cost, list(chosen)
        else:
            for t in after:
                counts.add(t, -1)
            for t in before:
                counts.add(t, 1)
    return best
