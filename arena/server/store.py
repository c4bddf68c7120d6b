"""The league server's own file (`class.server.sqlite` beside `class.toml`): its key, the authors, the
uploads and the failed sign-ins. SQLite in WAL mode with synchronous=FULL, one transaction per
change, so that a server killed at any moment (kill -9 included) leaves it whole, each change in it
or not. Secrets are never stored: passwords as argon2 hashes, tokens and sign-up codes as SHA-256
hashes of random values (arena/server/accounts.py).

Schema (version 1):
* meta(key, value): schema_version, secret_key (signs session cookies: arena/server/auth.py).
* authors(name PRIMARY KEY, role, password_hash, token_hash, signup_hash, signup_expires,
  created_at, removed_at): an author removed keeps its row (its uploads name it), and nothing it
  held works.
* uploads(id, author, bot, state, reason, version, check_json, build_log, folder, archive,
  created_at, updated_at): state checking, entered, refused or forced.
* signin_failures(name, client, at): what the sign-in limit counts."""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from arena.errors import ArenaError

SCHEMA_VERSION = "1"
BUILD_LOG_CHARS = 20_000
STATES = ("checking", "entered", "refused", "forced")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS authors (
    name TEXT PRIMARY KEY, role TEXT NOT NULL, password_hash TEXT, token_hash TEXT,
    signup_hash TEXT, signup_expires REAL, created_at REAL NOT NULL, removed_at REAL);
CREATE INDEX IF NOT EXISTS authors_token ON authors (token_hash);
CREATE INDEX IF NOT EXISTS authors_signup ON authors (signup_hash);
CREATE TABLE IF NOT EXISTS uploads (
    id INTEGER PRIMARY KEY, author TEXT NOT NULL, bot TEXT NOT NULL, state TEXT NOT NULL, reason TEXT,
    version TEXT, check_json TEXT, build_log TEXT, folder TEXT NOT NULL, archive TEXT NOT NULL,
    created_at REAL NOT NULL, updated_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS uploads_bot ON uploads (bot, id);
CREATE TABLE IF NOT EXISTS signin_failures (name TEXT NOT NULL, client TEXT NOT NULL, at REAL NOT NULL);
"""


@dataclass(frozen=True)
class Upload:
    id: int
    author: str
    bot: str
    state: str
    reason: str | None
    version: str | None
    check: dict[str, Any] | None
    build_log: str | None
    folder: str
    archive: str
    created_at: float
    updated_at: float

    def as_dict(self, with_logs: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "bot": self.bot, "author": self.author, "state": self.state,
                               "reason": self.reason, "version": self.version, "when": when(self.created_at)}
        if with_logs:
            out.update(build_log=self.build_log, check=self.check, check_text=check_text(self.check))
        return out


def when(at: float) -> str:
    return dt.datetime.fromtimestamp(at, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def check_text(check: dict[str, Any] | None) -> str:
    """A check's rows, a line each: PASS name: detail."""
    if not check:
        return ""
    def verdict(row: dict) -> str:
        return "SKIP" if row.get("skipped") else "PASS" if row.get("passed") else "FAIL"
    return "\n".join(f"{verdict(row)} {row.get('name')}: {row.get('detail') or ''}"
                     for row in check.get("checks") or [] if isinstance(row, dict))


class OwnerError(ArenaError):
    """An upload of a bot another author entered first."""


def _tail(log: str) -> str:
    """A build log within BUILD_LOG_CHARS, its end kept: a compiler's errors come last."""
    if len(log) <= BUILD_LOG_CHARS:
        return log
    return f"[the first {len(log) - BUILD_LOG_CHARS:,} characters left out]\n" + log[-BUILD_LOG_CHARS:]


class ServerStore:
    """The server's file (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        from arena.tournament.output_files import refuse_unwritable

        self.path = Path(path)
        self._lock = threading.RLock()
        self._readers = threading.local()  # each thread's connection for reads (see rows())
        self._reader_connections: list[sqlite3.Connection] = []
        refuse_unwritable(self.path, "the server file")
        try:
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = FULL")
            with self._write():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                found = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                if found is None:
                    self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
                    self.db.execute("INSERT INTO meta VALUES ('secret_key', ?)", (secrets.token_urlsafe(32),))
                elif found[0] != SCHEMA_VERSION:
                    raise ArenaError(f"{self.path}: a server file of schema {found[0]}, which this arena does not know")
        except sqlite3.Error as exc:
            raise ArenaError(f"{self.path}: cannot use the server file: {exc}") from None

    # ---- transactions --------------------------------------------------------------------------

    class _Transaction:
        def __init__(self, db: sqlite3.Connection, lock: threading.RLock) -> None:
            self.db, self.lock = db, lock

        def __enter__(self) -> sqlite3.Connection:
            self.lock.acquire()
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except BaseException:
                self.lock.release()
                raise
            return self.db

        def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
            try:
                self.db.execute("COMMIT" if kind is None else "ROLLBACK")
            finally:
                self.lock.release()

    def _write(self) -> ServerStore._Transaction:
        """One transaction; the pages' loop and the results' thread share the connection, one at a time."""
        return ServerStore._Transaction(self.db, self._lock)

    def _rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        """A read, on this thread's own connection: in WAL mode it waits on no writer, so that the
        pages' loop never waits behind a commit of the results' thread or of an upload's check
        (which held the shared connection's lock through its fsync: the slowest pages)."""
        return self._reader().execute(sql, args).fetchall()

    def _reader(self) -> sqlite3.Connection:
        db = getattr(self._readers, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA query_only = ON")
            self._readers.db = db
            with self._lock:
                self._reader_connections.append(db)
        return db

    def close(self) -> None:
        with self._lock:
            for db in self._reader_connections:
                db.close()
            self._reader_connections.clear()
        self.db.close()

    # ---- authors (arena/server/accounts.py decides; these keep its facts) -----------------------

    _AUTHOR = "SELECT name, role, password_hash, created_at FROM authors"

    def author_row(self, name: str) -> tuple | None:
        """(name, role, password hash, created at) of the author, None if there is no such author."""
        rows = self._rows(f"{self._AUTHOR} WHERE name = ? AND removed_at IS NULL", (name,))
        return rows[0] if rows else None

    def author_rows(self) -> list[tuple]:
        return self._rows(f"{self._AUTHOR} WHERE removed_at IS NULL ORDER BY created_at, name")

    def author_row_by_token(self, token_hash: str) -> tuple | None:
        """As author_row, with the token's hash after it."""
        rows = self._rows("SELECT name, role, password_hash, created_at, token_hash FROM authors "
                         "WHERE token_hash = ? AND removed_at IS NULL", (token_hash,))
        return rows[0] if rows else None

    def signup_name(self, code_hash: str, now: float) -> str | None:
        rows = self._rows("SELECT name FROM authors WHERE signup_hash = ? AND signup_expires > ? AND removed_at IS NULL",
                         (code_hash, now))
        return rows[0][0] if rows else None

    def password_hash(self, name: str) -> str | None:
        rows = self._rows("SELECT password_hash FROM authors WHERE name = ? AND removed_at IS NULL", (name,))
        return rows[0][0] if rows else None

    def add_author(self, name: str, role: str, token_hash: str, signup_hash: str, signup_expires: float) -> tuple | None:
        """The author added, in one transaction; or, without adding, (name, removed at) of the author
        whose name is the same but for case, or the same and not removed. A removed author of the
        same name is replaced: back, with new credentials and nothing of the old ones."""
        with self._write() as db:
            taken = db.execute("SELECT name, removed_at FROM authors WHERE lower(name) = lower(?)", (name,)).fetchone()
            if taken is not None and (taken[0] != name or taken[1] is None):
                return taken
            if taken is not None:
                db.execute("DELETE FROM authors WHERE name = ?", (name,))
            db.execute("INSERT INTO authors (name, role, token_hash, signup_hash, signup_expires, created_at) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (name, role, token_hash, signup_hash, signup_expires, time.time()))
        return None

    def redeem_signup(self, name: str, code_hash: str, password_hash: str) -> bool:
        """The password set and the sign-up code spent, if it is still the author's."""
        with self._write() as db:
            return bool(db.execute("UPDATE authors SET password_hash = ?, signup_hash = NULL, signup_expires = NULL "
                                   "WHERE name = ? AND signup_hash = ?", (password_hash, name, code_hash)).rowcount)

    def count_signin(self, name: str, client: str, window_s: float, ceilings: tuple[int, int]) -> tuple[int, float]:
        """A sign-in counted as failed, in the transaction that checks the limits (`ceilings`: of the
        name's and of the client's failures within `window_s`): (its id, 0.0); or, over a limit,
        (0, when the failure that holds it back happened), nothing counted."""
        now = time.time()
        with self._write() as db:
            for column, value, ceiling in (("name", name, ceilings[0]), ("client", client, ceilings[1])):
                oldest = db.execute(f"SELECT at FROM signin_failures WHERE {column} = ? AND at > ? ORDER BY at DESC "
                                    "LIMIT 1 OFFSET ?", (value, now - window_s, ceiling - 1)).fetchone()
                if oldest is not None:
                    return 0, oldest[0]
            attempt = db.execute("INSERT INTO signin_failures VALUES (?, ?, ?)", (name, client, now)).lastrowid
            db.execute("DELETE FROM signin_failures WHERE at < ?", (now - 86400,))
        return attempt or 0, 0.0

    def forget_signin(self, attempt: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM signin_failures WHERE rowid = ?", (attempt,))

    def remove_author(self, name: str) -> bool:
        with self._write() as db:
            return bool(db.execute("UPDATE authors SET removed_at = ?, token_hash = NULL, password_hash = NULL, "
                                   "signup_hash = NULL WHERE name = ? AND removed_at IS NULL",
                                   (time.time(), name)).rowcount)

    def set_token(self, name: str, token_hash: str) -> bool:
        with self._write() as db:
            return bool(db.execute("UPDATE authors SET token_hash = ? WHERE name = ? AND removed_at IS NULL",
                                   (token_hash, name)).rowcount)

    def set_signup(self, name: str, code_hash: str, expires: float) -> bool:
        with self._write() as db:
            return bool(db.execute("UPDATE authors SET signup_hash = ?, signup_expires = ? WHERE name = ? "
                                   "AND removed_at IS NULL", (code_hash, expires, name)).rowcount)

    def secret_key(self) -> str:
        return self._rows("SELECT value FROM meta WHERE key = 'secret_key'")[0][0]

    def base_url(self) -> str | None:
        """The address the server was last served at (`arena serve --url`): sign-up links start with it."""
        found = self._rows("SELECT value FROM meta WHERE key = 'base_url'")
        return found[0][0] if found else None

    def set_base_url(self, url: str) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('base_url', ?)", (url,))

    # ---- uploads ---------------------------------------------------------------------------------

    def add_upload(self, author: str, bot: str, folder: str, archive: Path, any_bot: bool = False) -> Upload:
        """Record an upload as checking; its archive is moved beside the others first (a crash
        between the two leaves a stray file, never an upload without its archive). A bot another
        author uploaded first is refused (OwnerError) in the same transaction, unless `any_bot`
        (the organiser): two authors sending one new name at once cannot both have it."""
        archives = self.path.with_name(f"{self.path.name.removesuffix('.server.sqlite')}.uploads") / "archives"
        archives.mkdir(parents=True, exist_ok=True)
        kept = archives / f"{secrets.token_hex(8)}.archive"
        os.replace(archive, kept)
        now = time.time()
        with self._write() as db:
            owner = db.execute("SELECT author FROM uploads WHERE bot = ? ORDER BY id LIMIT 1", (bot,)).fetchone()
            if owner is not None and owner[0] != author and not any_bot:
                kept.unlink(missing_ok=True)
                raise OwnerError(f"{bot} is another author's bot: name yours otherwise in its bot.toml")
            cursor = db.execute("INSERT INTO uploads (author, bot, state, folder, archive, created_at, updated_at) "
                                "VALUES (?, ?, 'checking', ?, ?, ?, ?)", (author, bot, folder, str(kept), now, now))
            upload_id = int(cursor.lastrowid or 0)
        found = self.upload(upload_id)
        assert found is not None
        return found

    def set_upload(self, upload_id: int, state: str, *, reason: str | None = None, version: str | None = None,
                   check: dict[str, Any] | None = None, build_log: str | None = None) -> None:
        if state not in STATES:
            raise ValueError(f"no upload state {state!r}")
        with self._write() as db:
            db.execute("UPDATE uploads SET state = ?, reason = COALESCE(?, reason), version = COALESCE(?, version), "
                       "check_json = COALESCE(?, check_json), build_log = COALESCE(?, build_log), updated_at = ? "
                       "WHERE id = ?", (state, reason, version, None if check is None else json.dumps(check),
                                        None if build_log is None else _tail(build_log), time.time(),
                                        upload_id))

    _COLUMNS = ("id, author, bot, state, reason, version, check_json, build_log, folder, archive, created_at, "
                "updated_at")

    def _uploads(self, where: str = "", args: tuple = (), order: str = "id DESC") -> Iterator[Upload]:
        for row in self._rows(f"SELECT {self._COLUMNS} FROM uploads {where} ORDER BY {order}", args):
            check = json.loads(row[6]) if row[6] else None
            yield Upload(row[0], row[1], row[2], row[3], row[4], row[5], check, row[7], row[8], row[9], row[10], row[11])

    def upload(self, upload_id: int) -> Upload | None:
        return next(self._uploads("WHERE id = ?", (upload_id,)), None)

    def uploads(self, bot: str | None = None, author: str | None = None) -> list[Upload]:
        """Newest first; of one bot or one author when given."""
        terms = [(f"{column} = ?", value) for column, value in (("bot", bot), ("author", author)) if value is not None]
        where = ("WHERE " + " AND ".join(term for term, _ in terms)) if terms else ""
        return list(self._uploads(where, tuple(value for _, value in terms)))

    def latest_upload(self, bot: str) -> Upload | None:
        return next(self._uploads("WHERE bot = ?", (bot,)), None)

    def waiting_uploads(self) -> list[int]:
        return [row[0] for row in self._rows("SELECT id FROM uploads WHERE state = 'checking' ORDER BY id")]

    def recover_uploads(self) -> list[int]:
        """The uploads a stopped server left checking: the server checks them again."""
        return self.waiting_uploads()

    def bot_owners(self) -> dict[str, str]:
        """Each uploaded bot's author: who first uploaded a bot of that name."""
        return {bot: author for bot, author in self._rows(
            "SELECT bot, author FROM uploads u WHERE id = (SELECT MIN(id) FROM uploads WHERE bot = u.bot)")}


__all__ = ["STATES", "OwnerError", "ServerStore", "Upload", "check_text", "when"]
