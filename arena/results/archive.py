"""Games taken out of the standings and kept, and the bot versions a tournament has seen.

When an author resubmits a bot, its games under the earlier version are superseded: they move,
whole, from the tables the standings read (`games`, `transcripts`, `seat_results`, `faults`) into
`superseded_games`, with when and why, in the same transaction as the fingerprint that names the
new version. A bot taken out of a tournament (withdrawn) leaves the same way. Nothing is dropped:
`arena games --superseded` lists them, `arena standings --history` sums them up; and the current
tables stay exactly what standings read, at full speed, with each game key stored once.

`bot_versions` keeps, per bot, every version a run has seen, when first, and its files' digests, so
that a refusal can name the files that changed. Both tables are created in files of older arenas
the first time a run opens them; a reader of an older file finds none and sees no superseded game.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Iterable, Iterator

from arena.results.rows import GAME_COLUMNS

# A superseded game keeps the columns of its games row, named as there.
_COLUMN_LIST = ", ".join(GAME_COLUMNS)

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS superseded_games (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL,       -- its id in games (a later game may reuse it there)
    {_COLUMN_LIST},                  -- as in games
    transcript BLOB,
    superseded_at REAL NOT NULL,
    why TEXT NOT NULL               -- "a: version 1a2b3c4d5e6f, now 6f5e4d3c2b1a" or "a: withdrawn"
);
CREATE INDEX IF NOT EXISTS superseded_games_key ON superseded_games (key);
CREATE TABLE IF NOT EXISTS bot_versions (
    bot TEXT NOT NULL,
    version TEXT NOT NULL,
    first_seen REAL NOT NULL,
    files TEXT NOT NULL,            -- JSON {{relative path: sha256 prefix}}
    PRIMARY KEY (bot, version)
);
"""


def create_tables(db: sqlite3.Connection) -> None:
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)


def has_tables(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'superseded_games'").fetchone() \
        is not None


def supersede(db: sqlite3.Connection, bot: str, why: str, now: float) -> int:
    """Move every current game `bot` played into superseded_games (inside the caller's write
    transaction); returns how many moved."""
    db.execute("CREATE TEMP TABLE IF NOT EXISTS moving (id INTEGER PRIMARY KEY)")
    db.execute("DELETE FROM moving")
    db.execute("INSERT INTO moving SELECT s.game_id FROM seat_results s JOIN bots b ON b.id = s.bot WHERE b.name = ?",
               (bot,))
    moved = db.execute("SELECT COUNT(*) FROM moving").fetchone()[0]
    if moved:
        columns = ", ".join("g." + c for c in GAME_COLUMNS)
        db.execute(f"INSERT INTO superseded_games (game_id, {_COLUMN_LIST}, transcript, superseded_at, why) "
                   f"SELECT g.id, {columns}, t.data, ?, ? FROM games g LEFT JOIN transcripts t ON t.game_id = g.id "
                   "WHERE g.id IN (SELECT id FROM moving) ORDER BY g.id", (now, why))
        for table, column in (("seat_results", "game_id"), ("faults", "game_id"), ("transcripts", "game_id"),
                              ("games", "id")):
            db.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT id FROM moving)")
    db.execute("DELETE FROM moving")
    return moved


def superseded_rows(db: sqlite3.Connection, with_transcripts: bool = False,
                    key: str | None = None) -> Iterator[tuple[tuple, float, str]]:
    """(games-row tuple, superseded_at, why) of every superseded game (of `key` only, when given),
    in the order they left."""
    if not has_tables(db):
        return iter(())
    tail = ", transcript" if with_transcripts else ""
    where, params = ("WHERE key = ?", (key,)) if key is not None else ("", ())
    rows = db.execute(f"SELECT game_id, {_COLUMN_LIST}{tail}, superseded_at, why FROM superseded_games {where} "
                      "ORDER BY id", params)
    return ((row[:-2], row[-2], row[-1]) for row in rows.fetchall())


def record_versions(db: sqlite3.Connection, versions: Iterable[tuple[str, str, dict[str, str]]], now: float) -> None:
    """Remember (bot, version, files) as seen now, unless seen before."""
    db.executemany("INSERT OR IGNORE INTO bot_versions VALUES (?, ?, ?, ?)",
                   [(bot, version, now, json.dumps(files, sort_keys=True)) for bot, version, files in versions])


def version_files(db: sqlite3.Connection, bot: str, version: str) -> dict[str, str] | None:
    """The files' digests of a version a run has seen, or None (not seen, or an older arena's file)."""
    if not has_tables(db):
        return None
    row = db.execute("SELECT files FROM bot_versions WHERE bot = ? AND version = ?", (bot, version)).fetchone()
    return None if row is None else json.loads(row[0])


def versions_seen(db: sqlite3.Connection) -> list[tuple[str, str, float]]:
    """(bot, version, first seen) for every version a run has seen, oldest first."""
    if not has_tables(db):
        return []
    return db.execute("SELECT bot, version, first_seen FROM bot_versions ORDER BY first_seen, bot").fetchall()
