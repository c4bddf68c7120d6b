"""A league's tables as people read them (issue 43): the queue of the next tables, the tables chosen
so far, and, for each stored game of a league, why its table was chosen.

results/league_queue.py keeps the tables (number, bots, reason, the sentence saying why, when
chosen, queued/played/dropped); this reads them for `arena games --queue` and `--tables`, the
games list and a game's replay (its table's choice, looked up by the game's table number: a
league's game keys are t<number>-d..-s..), and the standings' league part (the live page, the
standings page, the live board). Each read is a short transaction; a page of games looks up the
choices of its own tables only, so a long league's list is not slowed by its length."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection

from arena.results.league_queue import QUEUED, LeagueTable, _exists
from arena.results.store import ResultStore

LATEST = 5  # ended tables the standings' league part names, newest first
_COLUMNS = "number, bots, reason, why, chosen_at, status, ended_at"


@dataclass(frozen=True, slots=True)
class ChosenTable:
    """A table the league chose, with how many of its games are stored: a queued table has some
    while a worker plays it, or when a run stopped in its middle; a played one fewer than all once
    a bot of it was resubmitted (its games superseded)."""

    table: LeagueTable
    stored: int
    games: int  # a table's games: every deal in every seating


@dataclass(frozen=True, slots=True)
class LeagueView:
    """The league's part of the standings: its queue, next first; the tables that ended last,
    newest first; and how many tables it chose in all."""

    queued: tuple[ChosenTable, ...]
    latest: tuple[LeagueTable, ...]
    chosen: int


def choice_dict(table: LeagueTable) -> dict[str, Any]:
    """Why a game's table was chosen, as JSON gives it (`table_choice` of a game, a replay)."""
    return {"number": table.number, "reason": table.reason, "why": table.why, "chosen_at": table.chosen_at}


def table_dict(item: LeagueTable | ChosenTable) -> dict[str, Any]:
    """A league table as a JSON object (`arena games --queue --format json`, the standings' JSON),
    with its games stored and in all when known."""
    table = item.table if isinstance(item, ChosenTable) else item
    found = {**choice_dict(table), "bots": list(table.bots), "status": table.status, "ended_at": table.ended_at}
    return {**found, "games_stored": item.stored, "games": item.games} if isinstance(item, ChosenTable) else found


def view_dict(view: LeagueView) -> dict[str, Any]:
    """The league's part of the standings' JSON: its queue (next first), latest tables, tables chosen."""
    return {"queued": [table_dict(item) for item in view.queued], "latest": [table_dict(t) for t in view.latest],
            "tables_chosen": view.chosen}


def _table(row: tuple) -> LeagueTable:
    number, bots, reason, why, chosen_at, status, ended_at = row
    return LeagueTable(number, tuple(bots.split(",")), reason, why, chosen_at, status, ended_at)


def _in_chunks(store: ResultStore, numbers: Collection[int], query: str) -> list[tuple]:
    """The rows of `query` (its `{}` the placeholders of a chunk) for these numbers, 500 at a time
    (SQLite's bound on parameters kept well clear of); none for a file of no league."""
    wanted = sorted(set(numbers))
    rows: list[tuple] = []
    with store._read() as db:
        if not wanted or not _exists(db):
            return rows
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            rows += db.execute(query.format(", ".join("?" * len(chunk))), chunk).fetchall()
    return rows


def table_choices(store: ResultStore, numbers: Collection[int]) -> dict[int, LeagueTable]:
    """The league tables of these numbers (the tables of a page of games), by number; those there
    are none of (a file of no league) left out."""
    rows = _in_chunks(store, numbers, f"SELECT {_COLUMNS} FROM league_tables WHERE number IN ({{}})")
    return {row[0]: _table(row) for row in rows}


def chosen_tables(store: ResultStore, *, queued_only: bool = False, bots: tuple[str, ...] = (),
                  newest_first: bool = False, limit: int = 0) -> list[LeagueTable]:
    """The tables the league chose (only the queued ones, with `queued_only`), those seating every
    one of `bots`, by number (the newest first, with `newest_first`), at most `limit` (0: all)."""
    terms = ["status = ?"] if queued_only else []
    args: list[Any] = [QUEUED] if queued_only else []
    for name in bots:
        terms.append("instr(',' || bots || ',', ',' || ? || ',') > 0")
        args.append(name)
    where = f" WHERE {' AND '.join(terms)}" if terms else ""
    tail = " LIMIT ?" if limit else ""
    with store._read() as db:
        if not _exists(db):
            return []
        rows = db.execute(f"SELECT {_COLUMNS} FROM league_tables{where} ORDER BY number"
                          f"{' DESC' if newest_first else ''}{tail}", [*args, *([limit] if limit else [])]).fetchall()
    return [_table(row) for row in rows]


def stored_by_table(store: ResultStore, numbers: Collection[int]) -> dict[int, int]:
    """How many games of each of these tables are stored (in the standings), by table number."""
    rows = _in_chunks(store, numbers, "SELECT table_no, COUNT(*) FROM games WHERE table_no IN ({}) GROUP BY table_no")
    return {number: stored for number, stored in rows}


def with_stored(store: ResultStore, tables: list[LeagueTable], games_per_table: int) -> list[ChosenTable]:
    """The tables, each with its games stored."""
    stored = stored_by_table(store, [table.number for table in tables])
    return [ChosenTable(table, stored.get(table.number, 0), games_per_table) for table in tables]


def league_view(store: ResultStore, games_per_table: int, latest: int = LATEST) -> LeagueView:
    """The queue (next first, each with its games stored), the `latest` tables ended, and the count."""
    with store._read() as db:
        if not _exists(db):
            return LeagueView((), (), 0)
        queued = [_table(row) for row in db.execute(  # the literal, so that the queue's partial index serves
            f"SELECT {_COLUMNS} FROM league_tables WHERE status = '{QUEUED}' ORDER BY number")]
        ended = [_table(row) for row in db.execute(
            f"SELECT {_COLUMNS} FROM league_tables WHERE status != ? ORDER BY number DESC LIMIT ?", (QUEUED, latest))]
        chosen = db.execute("SELECT COALESCE(MAX(number) + 1, 0) FROM league_tables").fetchone()[0]
    return LeagueView(tuple(with_stored(store, queued, games_per_table)), tuple(ended), chosen)


__all__ = ["LATEST", "ChosenTable", "LeagueView", "choice_dict", "table_dict", "view_dict", "table_choices", "chosen_tables",
           "stored_by_table", "with_stored", "league_view"]
