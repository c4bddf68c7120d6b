"""A league's tables (issue 43), kept beside its games: each table its matchmaking chose, in the
order chosen, with the reason and the sentence saying why, and whether it is still queued.

A table is written here, committed, before any of its games is handed to a worker: a run killed
at any moment finds the tables it had chosen, and the next run plays the queued ones first with the
same bots and cards (a table's games follow from its number and bots: schedule/games.py), so
nothing is chosen twice or lost. A table is marked played once its last game is stored; one whose
bot left the league (withdrawn) is marked dropped, its games never played.

The table is created by the first league run; a file without it has no league table."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Any, Iterable

from arena.results.rows import StoreError
from arena.results.store import ResultStore

QUEUED, PLAYED, DROPPED = "queued", "played", "dropped"

SCHEMA = """
CREATE TABLE IF NOT EXISTS league_tables (
    number INTEGER PRIMARY KEY,     -- the table's index: its games' keys are t<number>-d..-s..
    bots TEXT NOT NULL,             -- its bots in entry order, comma-separated
    reason TEXT NOT NULL,           -- information, fairness, starving, exploration or final
    why TEXT NOT NULL,              -- the sentence for people
    chosen_at REAL NOT NULL,
    status TEXT NOT NULL,           -- queued, played or dropped
    ended_at REAL                   -- when it was played or dropped
)
"""
# The queue, read by every refresh of a league's live board and page (results/league_view.py):
# a handful of rows found without reading a long league's every table.
QUEUE_INDEX = "CREATE INDEX IF NOT EXISTS league_tables_queued ON league_tables (number) WHERE status = 'queued'"
# Whether a league's final round robin is queued, and how much of it is left, read by every board:
# its tables found without reading the league's every table (a long league has hundreds of thousands).
REASON_INDEX = "CREATE INDEX IF NOT EXISTS league_tables_by_reason ON league_tables (reason, status)"


@dataclass(frozen=True, slots=True)
class LeagueTable:
    """One table a league chose."""

    number: int
    bots: tuple[str, ...]
    reason: str
    why: str
    chosen_at: float = 0.0
    status: str = QUEUED
    ended_at: float | None = None


def _exists(db: Any) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'league_tables'").fetchone() is not None


def queue_tables(store: ResultStore, tables: Iterable[LeagueTable]) -> None:
    """Keep newly chosen tables as queued, in one transaction (StoreError: the disk would not take it)."""
    now = time.time()
    try:
        with store._write() as db:
            db.execute(SCHEMA)
            db.execute(QUEUE_INDEX)
            db.execute(REASON_INDEX)
            db.executemany("INSERT INTO league_tables (number, bots, reason, why, chosen_at, status) "
                           "VALUES (?, ?, ?, ?, ?, ?)",
                           [(t.number, ",".join(t.bots), t.reason, t.why, now, QUEUED) for t in tables])
    except sqlite3.Error as exc:
        raise StoreError(f"{store.path}: cannot keep the league's next tables: {exc}") from None


def end_table(store: ResultStore, number: int, status: str) -> None:
    """A queued table played (its last game stored) or dropped (a bot of it left the league)."""
    try:
        with store._write() as db:
            db.execute("UPDATE league_tables SET status = ?, ended_at = ? WHERE number = ? AND status = ?",
                       (status, time.time(), number, QUEUED))
    except sqlite3.Error as exc:
        raise StoreError(f"{store.path}: cannot mark league table {number} {status}: {exc}") from None


def league_tables(store: ResultStore, status: str | None = None) -> list[LeagueTable]:
    """The league's tables in the order chosen (only those of `status`, when given)."""
    with store._read() as db:
        if not _exists(db):
            return []
        where, args = ("WHERE status = ?", (status,)) if status else ("", ())
        rows = db.execute(f"SELECT number, bots, reason, why, chosen_at, status, ended_at FROM league_tables {where} "
                          "ORDER BY number", args).fetchall()
    return [LeagueTable(number, tuple(bots.split(",")), reason, why, chosen_at, state, ended_at)
            for number, bots, reason, why, chosen_at, state, ended_at in rows]


def played_tables(store: ResultStore) -> tuple[list[int], list[tuple[tuple[str, ...], int, int]]]:
    """The played tables, summed for a league's tally: their numbers in order, and for each set of
    bots seated together, how many tables it had and the number of its last."""
    with store._read() as db:
        if not _exists(db):
            return [], []
        numbers = [number for (number,) in db.execute(
            "SELECT number FROM league_tables WHERE status = ? ORDER BY number", (PLAYED,))]
        seated = db.execute("SELECT bots, COUNT(*), MAX(number) FROM league_tables WHERE status = ? GROUP BY bots",
                            (PLAYED,)).fetchall()
    return numbers, [(tuple(bots.split(",")), tables, last) for bots, tables, last in seated]


def tables_of_reason(store: ResultStore, reason: str) -> tuple[int, int]:
    """How many tables were chosen for `reason`, and how many of those are still queued."""
    with store._read() as db:
        if not _exists(db):
            return 0, 0
        tables, queued = db.execute("SELECT COUNT(*), COUNT(CASE WHEN status = ? THEN 1 END) FROM league_tables "
                                    "WHERE reason = ?", (QUEUED, reason)).fetchone()
    return tables, queued


def next_table_number(store: ResultStore) -> int:
    """The number the league's next table takes: one past its last (0 for the first)."""
    with store._read() as db:
        if not _exists(db):
            return 0
        (last,) = db.execute("SELECT MAX(number) FROM league_tables").fetchone()
    return 0 if last is None else last + 1


def queued_games_left(store: ResultStore, games_per_table: int) -> int:
    """The games of the queued tables not stored yet."""
    with store._read() as db:
        if not _exists(db):
            return 0
        tables, stored = db.execute(
            "SELECT COUNT(*), (SELECT COUNT(*) FROM games g JOIN league_tables l ON g.table_no = l.number "
            "WHERE l.status = ?) FROM league_tables WHERE status = ?", (QUEUED, QUEUED)).fetchone()
    return max(0, tables * games_per_table - stored)


def games_by_bot(store: ResultStore) -> dict[str, int]:
    """Each bot's games in the standings (superseded ones not), from the kept totals."""
    with store._read() as db:
        return {name: games for name, games in db.execute(
            "SELECT b.name, SUM(p.games) FROM totals_places p JOIN bots b ON b.id = p.bot GROUP BY b.name")}


__all__ = ["QUEUED", "PLAYED", "DROPPED", "LeagueTable", "queue_tables", "end_table", "league_tables", "games_by_bot",
           "next_table_number", "played_tables", "queued_games_left", "tables_of_reason"]
