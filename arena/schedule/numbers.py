"""How a tournament lays out and numbers its games (the fingerprint's `game_numbers`): the order of
its tables and the game numbers bots are told and replays take."""

from __future__ import annotations

from typing import Protocol

import math
from dataclasses import dataclass

from arena.schedule.games import game_key

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


class Placed(Protocol):
    """A game by its place in the schedule: a spec, or a stored row of it."""

    @property
    def table(self) -> int: ...

    @property
    def deal(self) -> int: ...

    @property
    def seating(self) -> int: ...


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

    def of(self, spec: Placed) -> int:
        return self.number(spec.table, spec.deal, spec.seating)

    def number(self, table: int, deal: int, seating: int) -> int:
        """The number of the game at this table, deal and seating."""
        if self.layout == PAIRED:
            index = pair_index(table, deal)
        elif self.layout == BY_DEAL:
            index = deal * self.tables + table
        else:
            index = table * self.deals + deal
        return index * self.seatings + seating + 1

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
