"""Void games: games the arena could not play (protocol.md section 9), kept beside the results.

A game is void when a bot at it could not be started or reached for a reason outside its code (a
service out of reach, a machine out of room, a sandbox that could not be set up). It has no result:
nothing of it enters `games`, the standings or any report's figures, and its key stays unplayed, so
a later attempt plays it with the same cards. Each void attempt is a row of `void_games`, kept
whatever comes after, so `arena games --void` shows what happened and when.

Games stored by an older arena as played, though a bot could not start (`no_hello`), can be voided
on request (`arena tournament run --replay-faults no_hello`): their rows move here whole, with the
transcript, in one transaction, and the run plays them again.

The table is created by the first run that voids a game; a file without it has no void game.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, Iterable

from arena.play.records import VoidGame
from arena.results.rows import GAME_COLUMNS, StoreError
from arena.results.store import ResultStore
from arena.schedule.games import GameSpec

SCHEMA = """
CREATE TABLE IF NOT EXISTS void_games (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,              -- the game's key: a later attempt plays it under the same key
    table_no INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    seating INTEGER NOT NULL,
    bots TEXT NOT NULL,             -- names by seat, comma-separated
    seed INTEGER NOT NULL,
    dealer INTEGER NOT NULL,
    bot TEXT NOT NULL,              -- the bot that could not be started or reached
    why TEXT NOT NULL,
    tried INTEGER NOT NULL,         -- 0: not tried (its bot had just failed at the same table, or was paused)
    extra TEXT NOT NULL,            -- JSON: the run's record (machine, versions, limits)
    voided_at REAL NOT NULL,
    stored_game TEXT,               -- JSON games row, for a stored game voided on request
    transcript BLOB                 -- and its transcript
);
CREATE INDEX IF NOT EXISTS void_games_key ON void_games (key);
"""

_IDENTITY = ("key", "table_no", "deal", "seating", "bots", "seed", "dealer")
_INSERT = ("INSERT INTO void_games (key, table_no, deal, seating, bots, seed, dealer, bot, why, tried, extra, voided_at, "
           "stored_game, transcript) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


@dataclass(frozen=True, slots=True)
class VoidRow:
    """One void attempt, as `arena games --void` lists it."""

    key: str
    table: int
    deal: int
    seating: int
    bots: tuple[str, ...]
    bot: str
    why: str
    tried: bool
    voided_at: float
    played_since: bool  # the key has been played (and stored) since
    machine: str
    on_request: bool  # a stored game voided with --replay-faults


def _create(db: Any) -> None:
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)


def _exists(db: Any) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'void_games'").fetchone() is not None


def add_void(store: ResultStore, spec: GameSpec, void: VoidGame, extra: dict[str, Any] | None = None) -> None:
    """Keep one void attempt of `spec`'s game, in one transaction. StoreError when the database cannot
    take it (a full disk, a file made read-only), as `ResultStore.add_game` says it: the run stops
    with every game stored before whole, and the void game is tried again by the next run."""
    try:
        with store._write() as db:
            _create(db)
            db.execute(_INSERT, (spec.key, spec.table, spec.deal, spec.seating, ",".join(void.bots), spec.seed,
                                 spec.dealer, void.bot, void.why, int(void.tried),
                                 json.dumps(extra or {}, sort_keys=True), time.time(), None, None))
    except sqlite3.Error as exc:
        raise StoreError(f"{store.path}: cannot store void game {spec.key}: {exc}") from None


@dataclass(frozen=True, slots=True)
class VoidCounts:
    """`arena games --void`'s figures, by game (a game tried several times counts once)."""

    games: int
    tried: int  # tried at least once, and failed
    never_tried: int  # not tried at all: its bot had just failed at the same table, or was paused
    attempts: int
    pending: int  # not played since: the next run plays them first


def void_counts(rows: Iterable[VoidRow]) -> VoidCounts:
    rows = list(rows)
    keys = {row.key for row in rows}
    tried = {row.key for row in rows if row.tried}
    return VoidCounts(games=len(keys), tried=len(tried), never_tried=len(keys - tried), attempts=len(rows),
                      pending=len({row.key for row in rows if not row.played_since}))


def pending_void_keys(store: ResultStore) -> set[str]:
    """The keys of void games not played since: a run plays these first."""
    with store._read() as db:
        if not _exists(db):
            return set()
        return {key for (key,) in db.execute(
            "SELECT DISTINCT v.key FROM void_games v WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.key = v.key)")}


def void_rows(store: ResultStore) -> list[VoidRow]:
    """Every void attempt, oldest first."""
    with store._read() as db:
        if not _exists(db):
            return []
        rows = db.execute(
            "SELECT v.key, v.table_no, v.deal, v.seating, v.bots, v.bot, v.why, v.tried, v.voided_at, v.extra, "
            "v.stored_game IS NOT NULL, EXISTS (SELECT 1 FROM games g WHERE g.key = v.key) "
            "FROM void_games v ORDER BY v.id").fetchall()
    found = []
    for key, table, deal, seating, bots, bot, why, tried, at, extra, on_request, played in rows:
        try:
            machine = str(json.loads(extra).get("machine", ""))
        except (ValueError, AttributeError):
            machine = ""
        found.append(VoidRow(key, table, deal, seating, tuple(bots.split(",")), bot, why, bool(tried), at,
                             bool(played), machine, bool(on_request)))
    return found


def void_on_request(store: ResultStore, kinds: Iterable[str], note: str) -> int:
    """Move every stored game with a fault of one of `kinds` out of the results into void_games
    (whole, with its transcript), in ONE transaction; returns how many. `note` says how it was
    asked for ("--replay-faults no_hello"). The next run plays them again with the same cards."""
    wanted = sorted(set(kinds))
    if not wanted:
        return 0
    marks = ", ".join("?" * len(wanted))
    columns = ", ".join(f"g.{column}" for column in GAME_COLUMNS)
    moved = 0
    with store._write() as db:
        _create(db)
        found = db.execute(
            f"SELECT g.id, {columns}, t.data FROM games g LEFT JOIN transcripts t ON t.game_id = g.id "
            f"WHERE g.id IN (SELECT game_id FROM faults WHERE kind IN ({marks})) ORDER BY g.id", wanted).fetchall()
        now = time.time()
        for row in found:
            game_id, values, transcript = row[0], dict(zip(GAME_COLUMNS, row[1:-1])), row[-1]
            faults = [fault for fault in json.loads(values["faults"]) if fault.get("kind") in wanted]
            bots = values["bots"].split(",")
            culprits = list(dict.fromkeys(bots[fault["seat"]] for fault in faults))
            why = f"voided on request ({note}): " + "; ".join(
                f"{bots[fault['seat']]} {fault['kind']}: {fault['detail']}" for fault in faults[:3])
            db.execute(_INSERT, (*(values[column] for column in _IDENTITY), ",".join(culprits), why, 1,
                                 values["extra"], now, json.dumps(values, sort_keys=True), transcript))
            for table, column in (("seat_results", "game_id"), ("faults", "game_id"), ("transcripts", "game_id"),
                                  ("games", "id")):
                db.execute(f"DELETE FROM {table} WHERE {column} = ?", (game_id,))
            moved += 1
    return moved


__all__ = ["VoidCounts", "VoidRow", "add_void", "pending_void_keys", "void_counts", "void_rows", "void_on_request"]
