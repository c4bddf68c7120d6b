"""The results journal: one SQLite row per finished game, committed one game per transaction.

Durability. The database runs in WAL journal mode with ``synchronous = FULL``: a game
counts as done only once its row is committed, and FULL makes each commit reach the
disk (an fsync of the WAL) before `add_game` returns, so a committed game survives even
a power cut or an OS crash, not just a crash of the arena (NORMAL would already be safe
against SIGKILL of the process, but could lose the last commits on power loss). The
cost, one fsync per game, is small next to the time bots take to play a game. SQLite's
WAL makes every transaction atomic: a writer killed with SIGKILL at any moment leaves
the database intact and loses at most the game it was writing, which is played again
on resume (its key is not in `done_keys`).

Readers. Another process may open the same file while a run is writing (standings or
replays during a run): WAL lets readers and the single writer work at once, every read
here is a short transaction, and a busy timeout covers the moments of a checkpoint.

Schema (version 3; rows.py has it):

* ``games``: one row per game, everything but the transcript (kept small so that scans
  stay fast); ``key`` is the `GameSpec.key` and is UNIQUE, so a game is never stored twice.
* ``transcripts(game_id, data)``: the zlib-compressed transcript text, with each move's think
  time after it (arena/results/move_times.py; games stored before version 3 have none).
* ``seat_results``: one row per (game, seat), clustered by (bot, game) for the standings'
  aggregates; ``bot`` is an id into ``bots(id, name)``. Covering index on
  (bot, table_no, deal, points) for the per-deal-set means; index games(bots,
  finishing_order) for head-to-head and places by seat.
* ``faults``: one row per fault, for counts by kind.
* ``meta(key, value)``: schema version and the tournament fingerprint (JSON).
* ``totals_*``: sums of the above kept by triggers (arena/results/totals.py), which the reports
  read instead of the games; index ``games_by_number`` walks games in game-number order
  (number_order.py), ``games_finished_at`` finds the first and last finished.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from arena.play.records import GameRecord
from arena.results import archive, number_order, totals
from arena.results.changes import FingerprintDiff, as_stored, compare
from arena.results.database import (Transaction, acquire_run_lock, check_is_results_file, damaged, is_damage,
                                    migrate, open_read_only, open_writable, read_meta)
from arena.results.rows import (FAULT_COLUMNS, GAME_COLUMNS, SCHEMA_VERSION, SEAT_COLUMNS, DamagedRow, GameRow,
                                StoreError, decode_row, encode_game, insert_sql)
from arena.schedule.games import GameSpec

_INSERT_GAME = insert_sql("games", GAME_COLUMNS, "INSERT OR IGNORE")  # a key already stored is skipped
_INSERT_SEAT = insert_sql("seat_results", SEAT_COLUMNS)
_INSERT_FAULT = insert_sql("faults", FAULT_COLUMNS)
# A games row as `decode_row` reads it: its id, then its columns.
_SELECT_GAME = ", ".join(f"g.{column}" for column in ("id", *GAME_COLUMNS))


@dataclass(frozen=True, slots=True)
class SupersededGame:
    """A game out of the standings: of a bot's earlier version, or of a bot withdrawn."""

    row: GameRow
    superseded_at: float  # time.time() when it left
    why: str


class ResultStore:
    """The results journal of one tournament (see the module docstring for durability and schema)."""

    def __init__(self, path: Path | str, *, read_only: bool = False) -> None:
        """Open (and on first use create) a results file. `read_only` is for the report commands:
        they must never change the file, nor turn some other SQLite file into a results file."""
        self.path = Path(path)
        self.read_only = read_only
        self._run_lock_fd: int | None = None
        self._snapshot_dir: str | None = None  # a read-only copy's folder (see database.open_read_only)
        self._bot_ids: dict[str, int] = {}
        try:
            if read_only:
                self._db, self._snapshot_dir = open_read_only(self.path)
                try:
                    check_is_results_file(self._db, self.path)
                except BaseException:
                    self.close()  # also removes a private copy made for reading
                    raise
                return
            self._db = open_writable(self.path)
        except sqlite3.DatabaseError as exc:
            if is_damage(exc):
                raise damaged(self.path, str(exc)) from None
            raise StoreError(f"{self.path}: not a usable results database ({exc})") from None

    def check_whole(self) -> None:
        """StoreError (`database.damaged`) unless SQLite's quick_check finds every page whole. A run
        calls it before it writes anything: a game added to a damaged file could be lost with it,
        and the organiser's copy must stay as it was for a recovery. It reads the whole file (0.3 s
        for 200,000 games when the file is in the OS cache, 3.4 s when not)."""
        try:
            found = [row[0] for row in self._db.execute("PRAGMA quick_check").fetchall()]
        except sqlite3.DatabaseError as exc:
            raise damaged(self.path, str(exc)) from None
        if found != ["ok"]:
            raise damaged(self.path, "; ".join(found[:3]))

    def upgrade(self) -> None:
        """Make a file of an older schema one of this arena's (database.migrate); a run calls it once
        it holds the run lock and has found the file whole."""
        if self._meta("schema_version") != SCHEMA_VERSION:
            migrate(self._db, self.path)

    def lock_for_run(self) -> None:
        """Claim these results for one run; a second run of the same tournament is refused.

        Two runs at once would each play every missing game (the UNIQUE key keeps one row, but
        the other's work is thrown away) and each show its own board. The claim is an flock on
        `<database>.run-lock`: the kernel drops it when the run ends in any way, SIGKILL
        included, so a killed run never leaves a stale claim behind. Readers (standings,
        replay) do not take it."""
        if self._run_lock_fd is None:
            self._run_lock_fd = acquire_run_lock(self.path)

    # ---- transactions ------------------------------------------------------------------------

    def _write(self) -> Transaction:
        return Transaction(self._db, "IMMEDIATE", self.path)

    def _read(self) -> Transaction:
        """`with store._read() as db:` one read transaction (a consistent snapshot). The other modules of
        arena/results/ read through it too (queries, standings_sql, ratings); SQL stays in this package."""
        return Transaction(self._db, "DEFERRED", self.path)

    def _meta(self, key: str) -> str | None:
        return read_meta(self._db, key)

    # ---- fingerprint -------------------------------------------------------------------------

    def check_fingerprint(self, fingerprint: dict[str, object]) -> FingerprintDiff | None:
        """First run: store it, and return None. Later runs: it must match, else StoreError naming
        what changed (`changes.compare`: `deals` and `bots` may change). When they change,
        the stored fingerprint becomes the config's; the diff says what the results had."""
        new = as_stored(fingerprint)
        with self._write():
            stored = self._meta("fingerprint")
            if stored is None:
                self._db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (json.dumps(new, sort_keys=True),))
                number_order.create_index(self._db, number_order.layout_of(new))
                return None
            diff = self._diff(json.loads(stored), new)
            self._refuse(diff)
            if new != json.loads(stored):
                self._db.execute("UPDATE meta SET value = ? WHERE key = 'fingerprint'", (json.dumps(new, sort_keys=True),))
            return diff

    def check_fits(self, stored: dict, fingerprint: dict[str, object]) -> None:
        """StoreError, as `check_fingerprint` raises it, unless `fingerprint` fits `stored`; writes nothing."""
        with self._read():
            self._refuse(self._diff(stored, as_stored(fingerprint)))

    def _refuse(self, diff: FingerprintDiff) -> None:
        if diff.changes:
            raise StoreError(f"{self.path} holds results of a different tournament ({', '.join(diff.changes)} "
                             "changed): " + "; ".join(diff.changes.values())
                             + ". Use a new results file, or restore the old settings to resume.")

    def diff_from(self, stored: dict, fingerprint: dict[str, object]) -> FingerprintDiff:
        """How `fingerprint` stands to the `stored` one (read by `fingerprint()`), by the rule the
        run's check applies, for the reports: they change nothing."""
        with self._read():
            return self._diff(stored, as_stored(fingerprint))

    def _diff(self, old: dict, new: dict) -> FingerprintDiff:
        # Which deals and bots have stored games matters only when they differ (queries over all games).
        deals_played = bots_played = None
        if old.get("deals") != new.get("deals"):
            row = self._db.execute("SELECT MAX(deal) FROM games").fetchone()
            deals_played = 0 if row[0] is None else row[0] + 1
        if old.get("bots") != new.get("bots"):
            bots_played = self._bots_played()
        return compare(old, new, deals_played, bots_played)

    def bots_played(self) -> set[str]:
        """The bots with a current (not superseded) stored game."""
        with self._read():
            return self._bots_played()

    def _bots_played(self) -> set[str]:
        return {name for (name,) in self._db.execute(
            "SELECT name FROM bots WHERE EXISTS (SELECT 1 FROM seat_results WHERE bot = bots.id)")}

    def fingerprint(self) -> dict | None:
        with self._read():
            stored = self._meta("fingerprint")
        try:
            return None if stored is None else json.loads(stored)
        except ValueError as exc:
            raise damaged(self.path, f"its tournament fingerprint is not JSON: {exc}") from None

    # ---- writing -----------------------------------------------------------------------------

    def _bot_id(self, name: str) -> int:
        bot_id = self._bot_ids.get(name)
        if bot_id is None:
            self._db.execute("INSERT OR IGNORE INTO bots (name) VALUES (?)", (name,))
            bot_id = self._db.execute("SELECT id FROM bots WHERE name = ?", (name,)).fetchone()[0]
            self._bot_ids[name] = bot_id
        return bot_id

    def add_game(self, spec: GameSpec, record: GameRecord, extra: dict | None = None) -> None:
        """Store one finished game in one transaction; a key already stored is left as it is.
        Raises StoreError when the database cannot take it (disk full, file made read-only...):
        the transaction is rolled back, so every game stored before stays whole."""
        try:
            self.add_encoded([encode_game(spec, record, extra)])
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot store game {spec.key}: {exc}") from None

    def add_encoded(self, games: Iterable[tuple[tuple, bytes, list[tuple], list[tuple]]]) -> int:
        """Store pre-encoded games (see `encode_game`) in ONE transaction; returns how many were new.

        `add_game` calls it with one game; bulk loaders (benchmarks, imports) with many.
        """
        added = 0
        with self._write() as db:
            for game, blob, seats, fault_rows in games:
                cur = db.execute(_INSERT_GAME, game)
                if cur.rowcount == 0:
                    continue  # already stored: idempotent on the key
                game_id = cur.lastrowid
                added += 1
                db.execute("INSERT INTO transcripts VALUES (?, ?)", (game_id, blob))
                db.executemany(
                    _INSERT_SEAT,
                    [(self._bot_id(s[0]), game_id, *s[1:]) for s in seats],
                )
                if fault_rows:
                    db.executemany(
                        _INSERT_FAULT,
                        [(game_id, f[0], self._bot_id(f[1]), f[2], f[3], f[4]) for f in fault_rows],
                    )
        return added

    # ---- superseded games and bot versions (arena/results/archive.py) --------------------------

    def supersede(self, whys: dict[str, str], fingerprint: dict[str, object]) -> int:
        """In ONE transaction: move every current game of each bot in `whys` (bot -> why) out of the
        standings into superseded_games, and store `fingerprint` (the new versions, the withdrawn
        bots) as the tournament's. A run killed at any moment finds either all of it or none."""
        moved = 0
        with self._write() as db:
            archive.create_tables(db)
            now = time.time()
            for bot, why in whys.items():
                moved += archive.supersede(db, bot, why, now)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)",
                       (json.dumps(as_stored(fingerprint), sort_keys=True),))
        return moved

    def superseded(self, with_transcripts: bool = False, key: str | None = None) -> list[SupersededGame]:
        """Every superseded game (of `key` only, when given), in the order they left the standings."""
        with self._read() as db:
            found = list(archive.superseded_rows(db, with_transcripts, key))
        return [SupersededGame(self._decoded(row), at, why) for row, at, why in found]

    def record_versions(self, seen: list[tuple[str, str, dict[str, str]]]) -> None:
        """Remember each (bot, version, files' digests) a run starts with, the first time it is seen."""
        with self._write() as db:
            archive.create_tables(db)
            archive.record_versions(db, seen, time.time())

    def version_files(self, bot: str, version: str) -> dict[str, str] | None:
        with self._read() as db:
            return archive.version_files(db, bot, version)

    def versions_seen(self) -> list[tuple[str, str, float]]:
        with self._read() as db:
            return archive.versions_seen(db)

    # ---- reading -----------------------------------------------------------------------------

    def done_keys(self) -> set[str]:
        with self._read() as db:
            return {row[0] for row in db.execute("SELECT key FROM games")}

    def last_extra(self) -> dict | None:
        """The `extra` record (limits in force, versions) of the game stored last, if any."""
        with self._read() as db:
            row = db.execute("SELECT extra FROM games ORDER BY id DESC LIMIT 1").fetchone()
        try:
            return None if row is None else json.loads(row[0])
        except ValueError as exc:
            raise damaged(self.path, f"the last game's record is not JSON: {exc}") from None

    def start_failures(self) -> list[tuple[str, int, str]]:
        """(bot, games, the latest reason) for each bot that missed games because it could not start.

        The latest, not any one: a first game's "2 failed starts in a row" summed up six games
        whose later ones said that no more starts were tried."""
        with self._read() as db:
            return db.execute(
                "SELECT b.name, COUNT(DISTINCT f.game_id), (SELECT l.detail FROM faults l WHERE l.bot = f.bot "
                "AND l.kind = 'no_hello' ORDER BY l.game_id DESC LIMIT 1) FROM faults f JOIN bots b ON b.id = f.bot "
                "WHERE f.kind = 'no_hello' GROUP BY b.name ORDER BY b.name").fetchall()

    def game_count(self) -> int:
        with self._read() as db:
            if totals.present(db):
                return (db.execute("SELECT games FROM totals_games").fetchone() or (0,))[0]
            return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def game_count_now(self) -> int | None:
        """The games stored, or None when the file cannot be read at this moment (locked, damaged):
        for a display that can keep its own count rather than fail."""
        try:
            return self.game_count()
        except (StoreError, sqlite3.Error):
            return None

    def rows(self, with_transcripts: bool = True, chunk: int = 2000, after_id: int = 0) -> Iterator[GameRow]:
        """Every game in commit order (those stored after the game of id `after_id`), read in short
        transactions of `chunk` games."""
        last = after_id
        tail = ", t.data FROM games g LEFT JOIN transcripts t ON t.game_id = g.id" if with_transcripts else " FROM games g"
        query = f"SELECT {_SELECT_GAME}{tail} WHERE g.id > ? ORDER BY g.id LIMIT ?"
        while True:
            with self._read() as db:
                batch = db.execute(query, (last, chunk)).fetchall()
            if not batch:
                return
            for row in batch:
                yield self._decoded(row)
            last = batch[-1][0]

    def last_game_id(self) -> int:
        """The id of the game stored last (0 for none): `rows(after_id=...)` then reads the later ones."""
        with self._read() as db:
            return db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0]

    def get_game(self, key: str) -> GameRow:
        """The stored game with this key (the CLI turns a game number into its key first)."""
        text = key.strip()
        if not text.isprintable() or text.encode("utf-8", errors="replace").decode("utf-8") != text:
            raise StoreError(f"no game {text!r} in {self.path} (give a game key like t0000-d0000-s00 or a game number)")
        base = f"SELECT {_SELECT_GAME}, t.data FROM games g LEFT JOIN transcripts t ON t.game_id = g.id WHERE "
        with self._read() as db:
            row = db.execute(base + "g.key = ?", (text,)).fetchone()
        if row is None:
            raise StoreError(f"no game {text!r} in {self.path} (give a game key like t0000-d0000-s00 or a game number)")
        game = self._decoded(row)
        try:
            game.transcript  # decoded here, so that a damaged one is named with its file
        except DamagedRow as exc:
            raise damaged(self.path, str(exc)) from None
        return game

    def _decoded(self, row: tuple) -> GameRow:
        try:
            return decode_row(row)
        except DamagedRow as exc:
            raise damaged(self.path, str(exc)) from None

    def integrity_check(self) -> str:
        return self._db.execute("PRAGMA integrity_check").fetchone()[0]

    def close(self) -> None:
        try:
            self._db.close()
        except (sqlite3.Error, AttributeError):  # AttributeError: closed before it was opened
            pass
        if self._run_lock_fd is not None:
            os.close(self._run_lock_fd)  # releases the run lock
            self._run_lock_fd = None
        if self._snapshot_dir is not None:
            shutil.rmtree(self._snapshot_dir, ignore_errors=True)
            self._snapshot_dir = None

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
