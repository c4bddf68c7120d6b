"""Opening a results file: writable in WAL mode with its schema, read-only without changing it (a
private copy where SQLite cannot read the write-ahead log in place), the check that it is an
arena results file, the run lock, and the transactions every read and write runs in.
arena/results/store.py says why each is as it is (durability, readers during a run)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import sqlite3
import tempfile
import urllib.parse
from pathlib import Path

from arena.results import number_order, rating_totals, totals
from arena.results.rows import READABLE_SCHEMA_VERSIONS, SCHEMA, SCHEMA_VERSION, StoreError

BUSY_TIMEOUT_S = 30.0  # how long a statement waits for another connection's lock (a checkpoint, a shell)

# The files SQLite and the run lock keep beside a results file `x.sqlite` (x.sqlite-wal, ...).
COMPANION_SUFFIXES = ("-wal", "-shm", "-journal", ".run-lock")


# How SQLite says that a file's pages or text are no longer what it wrote (a damaged disk block, a
# copy cut short, an edit by hand): "database disk image is malformed", "file is not a database",
# "Could not decode to UTF-8 column ...".
_DAMAGE_WORDS = ("malformed", "not a database", "could not decode", "corrupt")


def is_damage(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.DatabaseError) and any(word in str(exc).lower() for word in _DAMAGE_WORDS)


def damaged(path: Path, detail: str) -> StoreError:
    """The message for a damaged results file: what SQLite found, and what to do. Whoever raises it
    has written nothing to the file."""
    return StoreError(f"{path} is damaged ({detail}); nothing was written to it. Keep a copy of it, then "
                      f"restore a backup, or save what it still holds into a new file with the sqlite3 shell: "
                      f"sqlite3 {path} .recover | sqlite3 recovered.sqlite", exit_code=1)  # not the input's fault


class StoreBusy(StoreError):
    """Another program holds the database: its write lock for longer than the busy timeout, or
    (another run of this tournament) the run lock."""

    exit_code = 1  # another run holds the file: nothing was wrong with the input


def _can_write(folder: Path) -> bool:
    return os.access(folder, os.W_OK)


def open_writable(path: Path) -> sqlite3.Connection:
    """Open (and on first use create) a results file to write: WAL mode, synchronous FULL.
    Another program's SQLite file is refused before anything in it changes."""
    folder = path.parent
    if not folder.is_dir():
        raise StoreError(f"{path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        # SQLite would say only "unable to open" or fail at the first write, after a game.
        raise StoreError(f"{path}: cannot write there (no permission); results need a writable file and folder")
    db = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    try:
        tables = table_names(db, path)
        if tables:  # checked before anything changes: another program's file is left as it is
            check_is_results_file(db, path, tables)
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"{path}: cannot switch the database to WAL mode (got {mode})")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA cache_size = -65536")  # 64 MiB page cache: big scans and bulk loads
        if not tables:
            with Transaction(db, "IMMEDIATE", path):
                for statement in totals.statements(SCHEMA):
                    db.execute(statement)
                totals.create(db)
                db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
    except BaseException:
        db.close()
        raise
    return db


def migrate(db: sqlite3.Connection, path: Path) -> None:
    """A results file of an older schema made one of version 3, in one transaction. From version 1:
    the kept totals (arena/results/totals.py) summed from its games, and the index of its game
    numbers (12 s on a million games here, once). From version 2: the ratings' block counts
    (arena/results/rating_totals.py: 3.5 s on a million games), and the ratings checkpoint of
    earlier arenas dropped (its tables, rating_checkpoint and rating_snapshots: the ratings no
    longer depend on the order of the games). Version 3's games may also keep each move's think
    time with the transcript (arena/results/move_times.py); older games keep what they had. Older
    arenas then refuse the file, as they could not keep its totals or read its newer transcripts.
    Until then a file of an older version is read and written as it is: its reports sum what it
    does not keep."""
    with Transaction(db, "IMMEDIATE", path):
        version = read_meta(db, "schema_version")
        if version == SCHEMA_VERSION:
            return  # another process migrated it first
        if totals.present(db):
            for statement in totals.statements(rating_totals.SCHEMA):
                db.execute(statement)
            rating_totals.rebuild(db)
        else:
            totals.create(db)
            stored = read_meta(db, "fingerprint")
            try:
                fingerprint = json.loads(stored) if stored else None
            except ValueError:
                fingerprint = None  # the reports name a damaged fingerprint; the order falls back to by-table
            number_order.create_index(db, number_order.layout_of(fingerprint if isinstance(fingerprint, dict) else None))
        for table in _DROPPED_TABLES:
            db.execute(f"DROP TABLE IF EXISTS {table}")
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION,))


# Tables earlier arenas kept that this one drops on upgrade: the ratings checkpoint, made dead by
# ratings fitted from counts (arena/results/ratings.py).
_DROPPED_TABLES = ("rating_checkpoint", "rating_snapshots")


def open_read_only(path: Path) -> tuple[sqlite3.Connection, str | None]:
    """Open a results file to read without changing it; returns the connection and the folder of
    a private copy made to read it (None when it is read in place), for the caller to remove."""
    real = path.resolve()
    uri = f"file:{urllib.parse.quote(str(real))}?mode=ro"
    if not _can_write(real.parent):
        # SQLite cannot open a WAL file read-only in a folder it cannot write (no -shm can
        # be made), only as immutable, which ignores the write-ahead log. A run that was
        # killed leaves its last committed games there, so with a log we read a copy of
        # both files (else the standings leave those games out).
        wal = real.with_name(real.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            snapshot_dir = tempfile.mkdtemp(prefix="arena-results-")
            copy = Path(snapshot_dir) / real.name
            try:
                shutil.copyfile(real, copy)
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
            except OSError as exc:
                shutil.rmtree(snapshot_dir, ignore_errors=True)
                raise StoreError(f"{path}: cannot read it ({exc.strerror or exc})") from None
            return sqlite3.connect(str(copy), isolation_level=None, check_same_thread=False), snapshot_dir
        uri += "&immutable=1"
    db = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    return db, None


def table_names(db: sqlite3.Connection, path: Path) -> set[str]:
    try:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        if is_damage(exc) and "not a database" not in str(exc):  # another program's file is no results file
            raise damaged(path, str(exc)) from None
        raise StoreError(f"{path}: not a usable results database ({exc})") from None


def read_meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def check_is_results_file(db: sqlite3.Connection, path: Path, tables: set[str] | None = None) -> None:
    """StoreError unless `db` is an arena results file of the schema this arena reads."""
    tables = table_names(db, path) if tables is None else tables
    try:
        version = read_meta(db, "schema_version") if {"meta", "games"} <= tables else None
    except sqlite3.DatabaseError as exc:  # a `meta` table of another program, or a damaged one
        if is_damage(exc):
            raise damaged(path, str(exc)) from None
        version = None
    if version is None:
        what = f"tables {', '.join(sorted(tables)[:6])}" if tables else "no tables"
        raise StoreError(f"{path} is not an arena results database (an SQLite file with {what}); "
                         "give the results a file of their own")
    if version not in READABLE_SCHEMA_VERSIONS:
        raise StoreError(f"{path}: results schema version {version}, this arena reads versions "
                         f"{', '.join(READABLE_SCHEMA_VERSIONS[:-1])} and {READABLE_SCHEMA_VERSIONS[-1]} (a newer arena wrote it?)")


def acquire_run_lock(path: Path) -> int:
    """Claim these results for one run (see `ResultStore.lock_for_run`); returns the lock's file
    descriptor, whose closing releases it. StoreBusy names the run that holds it."""
    real = path.resolve()  # the same file under another name (a symlink) is the same tournament
    lock_path = real.with_name(real.name + ".run-lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StoreError(f"{lock_path}: cannot create the run lock ({exc.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 200).decode("utf-8", errors="replace").strip() or "another process"
        os.close(fd)
        raise StoreBusy(f"{path} is being written by another run of this tournament ({holder}); "
                        "wait for it to end or stop it (arena standings works meanwhile)") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()} on {os.uname().nodename}\n".encode(), 0)
    return fd


class Transaction:
    """`with Transaction(db, mode, path) as db:` one transaction: committed on a normal exit, rolled
    back on an exception. A lock held past the busy timeout is StoreBusy, naming what to do; a
    damaged file met inside is the StoreError of `damaged`, not SQLite's own exception."""

    def __init__(self, db: sqlite3.Connection, mode: str, path: Path) -> None:
        self.db, self.mode, self.path = db, mode, path

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.db.execute(f"BEGIN {self.mode}")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreBusy(f"{self.path} stayed locked by another program for {BUSY_TIMEOUT_S:g} s ({exc}): close "
                                "what holds it (an sqlite3 shell in a transaction, a backup) and run again") from None
            raise
        return self.db

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.db.execute("COMMIT")
            return
        try:
            self.db.execute("ROLLBACK")
        except sqlite3.DatabaseError:
            if not is_damage(exc):
                raise
        if is_damage(exc):
            raise damaged(self.path, str(exc)) from None
