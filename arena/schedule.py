"""Tournament schedules: which bots meet at which table, in which seatings, with which cards.

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


# How a tournament lays out its games (the fingerprint's `game_numbers`): the order of its
# tables and the numbers of its games. New results are PAIRED; older ones keep their own.
PAIRED = "paired"  # tables in colex order, numbers from (table, deal) pairs: neither more deals nor more bots renumber
BY_DEAL = "by_deal"  # tables in lex order, numbers deal by deal: more deals renumber nothing, more bots would
BY_TABLE = "by_table"  # tables in lex order, numbers table by table: the first arenas' results
LAYOUTS = (PAIRED, BY_DEAL, BY_TABLE)


def pair_index(table: int, deal: int) -> int:
    """Szudzik's pairing of two whole numbers: a one-to-one map onto 0, 1, 2, ... in which every
    (table, deal) below m in both comes before every pair with m in either. It depends on the pair
    alone, never on how many tables or deals there are, so adding either renumbers nothing."""
    return deal * deal + table if table < deal else table * table + table + deal


def unpair_index(index: int) -> tuple[int, int]:
    """(table, deal) of a `pair_index`."""
    m = math.isqrt(index)
    rest = index - m * m
    return (rest, m) if rest < m else (m, rest - m)


@dataclass(frozen=True, slots=True)
class GameNumbers:
    """Tournament game numbers, as bots see them in the `game` line and replays take them. The same
    in every run, so a bot that seeds itself from the number plays the same way after a resume.

    PAIRED: (table, deal) by `pair_index`, seatings innermost. A game keeps its number when deals
    or bots are added (colex tables keep their index: `round_robin`), so an extended tournament is
    exactly the one it would have been with those deals and bots from the start. The price: the
    numbers of a schedule leave gaps (protocol.md lets them).
    BY_DEAL: all tables' first deal, then all tables' second deal, and so on, seatings innermost.
    BY_TABLE: table by table. Both number 1 to `total` without gaps."""

    tables: int
    deals: int
    seatings: int
    layout: str = PAIRED

    @property
    def total(self) -> int:
        """How many games the schedule has."""
        return self.tables * self.deals * self.seatings

    @property
    def highest(self) -> int:
        """The highest game number of the schedule: `total`, unless numbers leave gaps."""
        if self.total == 0:
            return 0
        if self.layout == PAIRED:
            # pair_index grows with each of its arguments: the far corner has the highest.
            return (pair_index(self.tables - 1, self.deals - 1) + 1) * self.seatings
        return self.total

    def of(self, spec: GameSpec) -> int:
        if self.layout == PAIRED:
            index = pair_index(spec.table, spec.deal)
        elif self.layout == BY_DEAL:
            index = spec.deal * self.tables + spec.table
        else:
            index = spec.table * self.deals + spec.deal
        return index * self.seatings + spec.seating + 1

    def key_of(self, number: int) -> str | None:
        """The key of the game with this number (the inverse of `of`); None if there is none."""
        if not 1 <= number <= self.highest:
            return None
        index, seating = divmod(number - 1, self.seatings)
        if self.layout == PAIRED:
            table, deal = unpair_index(index)
        elif self.layout == BY_DEAL:
            deal, table = divmod(index, self.tables)
        else:
            table, deal = divmod(index, self.deals)
        if table >= self.tables or deal >= self.deals:
            return None
        return game_key(table, deal, seating)


def seatings(entries: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every seating of a table's bots, in a fixed order (itertools order of permutations)."""
    return list(itertools.permutations(entries))


def table_games(index: int, entries: tuple[str, ...], deals: int, seed: int, copy: int = 0) -> tuple[GameSpec, ...]:
    """`copy`: how many tables of these same bots come before this one (a balanced schedule
    with more tables than combinations); each copy gets cards of its own."""
    n = len(entries)
    games = []
    table_id = "|".join(entries)  # the seed names the bots, not the table's position in the list
    if copy:
        table_id += f"#{copy}"
    for deal in range(deals):
        deal_seed = derive_seed(seed, "table", table_id, "deal", deal)
        dealer = deal % n  # every seat deals equally often over n deals
        for s, seating in enumerate(seatings(entries)):
            key = game_key(index, deal, s)
            games.append(GameSpec(key, index, deal, s, seating, deal_seed, dealer))
    return tuple(games)


def round_robin(entries: list[str], table_size: int, deals: int, seed: int, layout: str = PAIRED) -> list[TableSpec]:
    """Every combination of `table_size` entries, each playing `deals` duplicate deals.

    PAIRED lays the tables out in colex order (by their last entry, then the one before, ...):
    the tables of the first n entries then come first whatever follows, so an entry added at the
    end of the list only adds tables after the others, and no table changes its index (its key).
    Older layouts keep the lex order they were stored with."""
    _check(entries, table_size, deals)
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


def gauntlet(entries: list[str], challengers: int, table_size: int, deals: int, seed: int) -> list[TableSpec]:
    """Each of the first `challengers` entries at a table with every combination of
    `table_size - 1` of the others, each table playing `deals` duplicate deals.

    Tables go field combination by combination, in colex order, with the challengers innermost:
    an entry added at the end of the field only adds tables after the others (as in
    `round_robin`), so stored games keep their keys and numbers. A table's bots are in entry
    order, as in a round robin, so the same bots get the same cards in either schedule."""
    _check(entries, table_size, deals)
    if not 1 <= challengers < len(entries):
        raise ScheduleError(f"a gauntlet needs 1 to {len(entries) - 1} challengers, not {challengers}")
    heads, field = entries[:challengers], entries[challengers:]
    if len(field) < table_size - 1:
        raise ScheduleError(f"the {len(field)} entries after the challengers cannot fill the other "
                            f"{table_size - 1} seats of a table")
    combos = _colex(len(field), table_size - 1)
    tables = []
    for combo in combos:
        for head in heads:
            entries_of = (head, *(field[x] for x in combo))
            tables.append(TableSpec(len(tables), entries_of, table_games(len(tables), entries_of, deals, seed)))
    return tables


def gauntlet_table_count(entries: int, challengers: int, table_size: int) -> int:
    return challengers * math.comb(entries - challengers, table_size - 1)


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
    _check(entries, table_size, 1)
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


def _check(entries: list[str], table_size: int, deals: int) -> None:
    if len(set(entries)) != len(entries):
        raise ScheduleError("entries must have distinct names")
    if not 2 <= table_size <= 5:
        raise ScheduleError(f"table size must be 2 to 5, not {table_size}")
    if len(entries) < table_size:
        raise ScheduleError(f"{len(entries)} entries cannot fill a table of {table_size}")
    if deals < 1:
        raise ScheduleError("deals must be at least 1")
