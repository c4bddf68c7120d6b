"""The games of a schedule: a game's spec (key, seats, cards), a table's, and each table's games,
every deal in every seating with the same cards (duplicate play). A game's seed is derived from
(tournament seed, the table's entries, deal number), never from the order of play, so results
do not depend on workers or interruptions."""

from __future__ import annotations

import itertools
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
    # Set as a run hands the table out: its bots whose retry window of the run is spent (protocol.md
    # section 9), so that a service of theirs out of reach is charged at once.
    retried: tuple[str, ...] = ()


class ScheduleError(ValueError):
    """A schedule that cannot be built from these entries and sizes."""


def game_key(table: int, deal: int, seating: int) -> str:
    """The stable key of a game: table, deal and seating (e.g. t0003-d0001-s02)."""
    return f"t{table:04d}-d{deal:04d}-s{seating:02d}"


def seatings(entries: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every seating of a table's bots, in a fixed order (itertools order of permutations)."""
    return list(itertools.permutations(entries))


# How a table's deals are seeded (recorded with the schedule, so stored results keep theirs):
# BY_BOTS names the table's bots; BY_FIELD, a gauntlet's since paired cards, names the field's bots
# and the challenger's seat, so every challenger meets a field combination with the same cards.
SEEDS_BY_BOTS, SEEDS_BY_FIELD = "bots", "field"
SEED_SCHEMES = (SEEDS_BY_BOTS, SEEDS_BY_FIELD)
# Stands for the challenger in a BY_FIELD table's name: no bot name can be it (protocol.md, names).
CHALLENGER_SLOT = "*"


def table_games(index: int, entries: tuple[str, ...], deals: int, seed: int, copy: int = 0,
                seeded_as: tuple[str, ...] | None = None) -> tuple[GameSpec, ...]:
    """`copy`: how many tables of these same bots come before this one (a balanced schedule
    with more tables than combinations); each copy gets cards of its own. `seeded_as`: the names
    the deals are seeded by, when not the bots' own (a gauntlet's challenger slot)."""
    n = len(entries)
    games = []
    table_id = "|".join(seeded_as or entries)  # the seed names the bots, not the table's position in the list
    if copy:
        table_id += f"#{copy}"
    for deal in range(deals):
        deal_seed = derive_seed(seed, "table", table_id, "deal", deal)
        dealer = deal % n  # every seat deals equally often over n deals
        for s, seating in enumerate(seatings(entries)):
            key = game_key(index, deal, s)
            games.append(GameSpec(key, index, deal, s, seating, deal_seed, dealer))
    return tuple(games)


def check_entries(entries: list[str], table_size: int, deals: int) -> None:
    """ScheduleError unless the entries are distinct and fill a table of 2 to 5, with a deal or more."""
    if len(set(entries)) != len(entries):
        raise ScheduleError("entries must have distinct names")
    if not 2 <= table_size <= 5:
        raise ScheduleError(f"table size must be 2 to 5, not {table_size}")
    if len(entries) < table_size:
        raise ScheduleError(f"{len(entries)} entries cannot fill a table of {table_size}")
    if deals < 1:
        raise ScheduleError("deals must be at least 1")
