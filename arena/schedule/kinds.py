"""The four schedules a tournament may have, one class each, chosen by name in one place
(`schedule_kind`): what its tables are, how many, what a config must and must not give for it,
how it ranks, how its results are labelled in a fingerprint, and how a run describes it.

Every other module asks the kind, never compares the schedule's name: a new kind is one class
here (gomill picks its Competition subclass in one function likewise)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import ClassVar, Sequence

from arena.schedule.games import SEEDS_BY_BOTS, SEEDS_BY_FIELD, TableSpec
from arena.schedule.numbers import BY_TABLE, PAIRED
from arena.schedule.tables import balanced_schedule, gauntlet, gauntlet_table_count, pair_meetings, round_robin
from arena.wording import count


@dataclass(frozen=True, slots=True)
class Layout:
    """What a kind needs to lay out its tables: the config's entries and numbers."""

    entries: tuple[str, ...]
    table_size: int
    deals: int
    seed: int
    tables: int | None = None  # balanced only
    challengers: int = 1  # gauntlet only
    numbering: str = PAIRED  # how stored results number their tables (schedule.numbers)
    seeds: str | None = None  # how stored results seed their deals (schedule.games); None: a new tournament's


class ScheduleKind:
    """One kind of schedule. Subclasses say what differs."""

    name: ClassVar[str]
    words: ClassVar[str]  # how a sentence names it: "a round robin"
    takes_tables: ClassVar[bool] = False  # the config's `tables`
    takes_challengers: ClassVar[bool] = False  # the config's `challengers`
    why_no_tables: ClassVar[str] = ""  # a config that gives `tables` to a kind that takes none: why, and what to do
    new_seeds: ClassVar[str] = SEEDS_BY_BOTS  # how a new tournament of this kind seeds its deals (schedule.games)
    new_layout: ClassVar[str] = PAIRED  # how a new tournament of this kind numbers its games (schedule.numbers)
    # A league's tables are chosen as it plays (arena/tournament/league_run.py): `tables` lays out none,
    # and a run goes on until it is stopped.
    open_ended: ClassVar[bool] = False

    def tables(self, layout: Layout) -> list[TableSpec]:
        raise NotImplementedError

    def table_count(self, entries: int, table_size: int, tables: int | None, challengers: int) -> int:
        raise NotImplementedError

    def label(self, tables: int | None, challengers: int) -> str:
        """What stored results record of the schedule (their fingerprint's `schedule`)."""
        raise NotImplementedError

    def tables_in_play(self, layout: Layout, withdrawn: Sequence[str]) -> int:
        """How many tables are played once `withdrawn` bots' tables are not. By laying them out,
        unless a kind can count them."""
        gone = set(withdrawn)
        return sum(1 for table in self.tables(layout) if not gone & set(table.entries))

    def describe(self, tables: Sequence[TableSpec], entries: Sequence[str], withdrawn: Sequence[str],
                 challengers: int, table_size: int) -> str | None:
        """A run's line on its schedule (`entries`: the config's, `withdrawn`: those whose tables are
        no longer played), or None when there is nothing to say."""
        return None


class RoundRobin(ScheduleKind):
    name = "round_robin"
    words = "a round robin"
    why_no_tables = '(a round robin plays every combination); add schedule = "balanced" or drop it'

    def tables(self, layout: Layout) -> list[TableSpec]:
        return round_robin(list(layout.entries), layout.table_size, layout.deals, layout.seed, layout.numbering)

    def table_count(self, entries: int, table_size: int, tables: int | None, challengers: int) -> int:
        return math.comb(entries, table_size)

    def label(self, tables: int | None, challengers: int) -> str:
        return "round_robin:"

    def tables_in_play(self, layout: Layout, withdrawn: Sequence[str]) -> int:
        return math.comb(len(set(layout.entries) - set(withdrawn)), layout.table_size)


class Balanced(ScheduleKind):
    name = "balanced"
    words = "a balanced schedule"
    takes_tables = True

    def tables(self, layout: Layout) -> list[TableSpec]:
        assert layout.tables is not None  # the config refuses a balanced schedule without it
        return balanced_schedule(list(layout.entries), layout.table_size, layout.tables, layout.deals, layout.seed)

    def table_count(self, entries: int, table_size: int, tables: int | None, challengers: int) -> int:
        return tables if tables is not None else math.comb(entries, table_size)

    def label(self, tables: int | None, challengers: int) -> str:
        # "balanced2": the second balanced search lays tables out differently from the first,
        # so results stored under the first must not be resumed with it.
        return f"balanced2:{tables}"

    def describe(self, tables: Sequence[TableSpec], entries: Sequence[str], withdrawn: Sequence[str],
                 challengers: int, table_size: int) -> str | None:
        """How even it is: tables per entry and meetings per pair, as ranges."""
        entries = [name for name in entries if name not in withdrawn]
        per_entry = tables_per_entry(tables, entries)
        meetings = pair_meetings(list(tables))
        per_pair = [meetings.get(pair, 0) for pair in itertools.combinations(sorted(entries), 2)] or [0]

        def span(values: list[int]) -> str:
            return count(min(values), "table") if min(values) == max(values) else f"{min(values)} to {max(values)} tables"

        text = (f"{count(len(tables), 'table')}; each bot plays {span(per_entry)}; "
                f"each pair of bots meets at {span(per_pair)}")
        if min(per_entry) != max(per_entry):
            text += " (bots play unequal numbers of games: compare points per game, not total points)"
        return f"balanced schedule: {text}"


class Gauntlet(ScheduleKind):
    name = "gauntlet"
    words = "a gauntlet"
    takes_challengers = True
    why_no_tables = "(a gauntlet plays each challenger against every combination of the others); drop it"
    new_seeds = SEEDS_BY_FIELD  # the challengers get the same cards: their difference is paired

    def tables(self, layout: Layout) -> list[TableSpec]:
        return gauntlet(list(layout.entries), layout.challengers, layout.table_size, layout.deals, layout.seed,
                        layout.seeds or self.new_seeds)

    def table_count(self, entries: int, table_size: int, tables: int | None, challengers: int) -> int:
        return gauntlet_table_count(entries, challengers, table_size)

    def label(self, tables: int | None, challengers: int) -> str:
        return f"gauntlet:{challengers}"

    def tables_in_play(self, layout: Layout, withdrawn: Sequence[str]) -> int:
        heads = [name for name in layout.entries[:layout.challengers] if name not in withdrawn]
        field = [name for name in layout.entries[layout.challengers:] if name not in withdrawn]
        return len(heads) * math.comb(len(field), layout.table_size - 1)

    def describe(self, tables: Sequence[TableSpec], entries: Sequence[str], withdrawn: Sequence[str],
                 challengers: int, table_size: int) -> str | None:
        """Who challenges whom, and how many tables that makes."""
        heads = [name for name in entries[:challengers] if name not in withdrawn]
        entries = [name for name in entries if name not in withdrawn]
        field = len(entries) - len(heads)
        combos = (f"each of the other {count(field, 'bot')}" if table_size == 2
                  else f"every {table_size - 1} of the other {count(field, 'bot')}")
        text = f"{', '.join(heads)} against {combos}: {count(len(tables), 'table')}; bots are ranked by points per game"
        if len(set(tables_per_entry(tables, entries))) > 1:
            text += ", since challengers and the others play unequal numbers of games"
        return f"gauntlet: {text}"


class League(ScheduleKind):
    """Tables chosen one after another by the league's matchmaking (schedule/matchmaking.py) from
    the ratings of the games stored so far; none is laid out ahead. Its games are numbered table by
    table (BY_TABLE), so game numbers grow with the league, never with a pairing's squares."""

    name = "league"
    words = "a league"
    why_no_tables = "(a league chooses its tables as it plays, until it is stopped); drop it"
    new_layout = BY_TABLE
    open_ended = True
    # Game numbers take table indices up to this; a league of 1,000 tables a day runs for 27 centuries.
    TABLES_CEILING: ClassVar[int] = 1_000_000_000

    def tables(self, layout: Layout) -> list[TableSpec]:
        return []

    def table_count(self, entries: int, table_size: int, tables: int | None, challengers: int) -> int:
        return 0

    def label(self, tables: int | None, challengers: int) -> str:
        return "league:"

    def tables_in_play(self, layout: Layout, withdrawn: Sequence[str]) -> int:
        return 0

    def describe(self, tables: Sequence[TableSpec], entries: Sequence[str], withdrawn: Sequence[str],
                 challengers: int, table_size: int) -> str | None:
        playing = [name for name in entries if name not in withdrawn]
        return (f"league: {count(len(playing), 'bot')}; each table is chosen from the ratings of the games stored so "
                "far (arena games CONFIG --queue shows the next tables and why); it plays until stopped")


KINDS: dict[str, ScheduleKind] = {kind.name: kind for kind in (RoundRobin(), Balanced(), Gauntlet(), League())}
NAMES = tuple(KINDS)
DEFAULT = RoundRobin.name


def schedule_kind(name: str) -> ScheduleKind:
    """The kind of schedule of that name; KeyError for one there is none of (configs check first)."""
    return KINDS[name]


def kind_for_options(tables: int | None, challengers: int | None) -> str:
    """What `arena tournament new` makes of its options when no schedule is named: balanced with
    --tables, a gauntlet with --challengers, else a round robin."""
    return Balanced.name if tables is not None else Gauntlet.name if challengers is not None else RoundRobin.name


def tables_per_entry(tables: Sequence[TableSpec], entries: Sequence[str]) -> list[int]:
    return [sum(name in t.entries for t in tables) for name in entries]


def label_words(label: object) -> str | None:
    """A fingerprint's schedule label ("gauntlet:2") as a config says it; None for one no kind
    writes (an older arena's "balanced:N" is said by the caller)."""
    name, _, number = str(label).partition(":")
    if name == RoundRobin.name:
        return RoundRobin.words
    if name == League.name:
        return League.words
    if name == Gauntlet.name and number.isdigit():
        return f"{Gauntlet.words} with challengers = {number}"
    if name == "balanced2" and number.isdigit():
        return f"{Balanced.words} with tables = {number}"
    if name == Balanced.name and number.isdigit():
        return f"{Balanced.words} with tables = {number}, laid out by an older arena's search"
    return None


__all__ = ["Layout", "ScheduleKind", "RoundRobin", "Balanced", "Gauntlet", "League", "KINDS", "NAMES", "DEFAULT",
           "schedule_kind", "kind_for_options", "tables_per_entry", "label_words"]
