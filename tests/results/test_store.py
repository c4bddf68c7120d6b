"""The results journal: round trips, idempotence, fingerprints, concurrent readers, SIGKILL safety."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from arena.game import Rules, game_points, replay
from arena.play.records import Fault, FaultKind, GameRecord
from arena.schedule.tables import round_robin
from arena.play.selfplay import play_random_game
from arena.results.changes import FingerprintDiff
from arena.results.store import ResultStore
from arena.results.rows import StoreError
from tests.db_support import connected

ROOT = Path(__file__).resolve().parents[2]
RULES = Rules()


def row_count(db: Path, table: str) -> int:
    """Rows in one table, read on a connection of its own (the store has no SQL for other layers)."""
    raw = sqlite3.connect(db)
    try:
        return raw.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        raw.close()


def games(entries=("a", "b", "c"), deals=1, seed=5):
    out = []
    for table in round_robin(list(entries), 3, deals, seed):
        for spec in table.games:
            g = play_random_game(RULES, spec.seed, spec.dealer)
            faults = (Fault(1, FaultKind.TIMEOUT, "no move within 2 s", 3),) if spec.seating == 2 else ()
            record = GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, RULES), faults,
                                ((0.001, 0.003),) * 3, len(g.moves))
            out.append((spec, record))
    return out


def test_round_trip(tmp_path):
    store = ResultStore(tmp_path / "r.db")
    played = games()
    for spec, record in played:
        store.add_game(spec, record, {"move_timeout_s": 2.0})
    rows = list(store.rows())
    assert [r.key for r in rows] == [s.key for s, _ in played]
    assert [r.id for r in rows] == list(range(1, len(played) + 1))
    for row, (spec, record) in zip(rows, played):
        assert (row.table, row.deal, row.seating, row.bots, row.seed, row.dealer) == \
               (spec.table, spec.deal, spec.seating, spec.bots, spec.seed, spec.dealer)
        assert row.finishing_order == record.outcome.finishing_order
        assert row.skitgubbe == record.outcome.skitgubbe
        assert row.reason == record.outcome.reason.value
        assert row.points == record.points and row.moves == record.moves
        assert row.transcript == record.transcript
        assert row.think_mean_ms == (2.0, 2.0, 2.0) and row.think_max_ms == (3.0, 3.0, 3.0)
        assert row.extra == {"move_timeout_s": 2.0}
        assert row.faults == ((({"seat": 1, "kind": "timeout", "detail": "no move within 2 s", "move": 3}),) if spec.seating == 2 else ())
    assert store.get_game(played[3][0].key) == rows[3]
    with pytest.raises(StoreError, match="no game"):
        store.get_game("t9999-d0000-s00")
    with pytest.raises(StoreError, match="no game"):
        store.get_game("4")  # a database row id is not a key (the CLI turns game numbers into keys)
    store.close()
    again = ResultStore(tmp_path / "r.db")  # reopening an existing file
    assert again.game_count() == len(played)
    again.close()


def test_add_game_is_idempotent_and_done_keys(tmp_path):
    store = ResultStore(tmp_path / "r.db")
    played = games()
    for spec, record in played[:4]:
        store.add_game(spec, record)
    store.add_game(*played[0])
    store.add_game(*played[2])
    assert store.game_count() == 4
    assert store.done_keys() == {s.key for s, _ in played[:4]}
    assert row_count(tmp_path / "r.db", "seat_results") == 12
    store.close()


def test_fingerprint(tmp_path):
    store = ResultStore(tmp_path / "r.db")
    fp = {"bots": {"a": "hash1", "b": "hash2"}, "rules": {"ace_high": True}, "seed": 1, "table_size": 3, "deals": 2,
          "schedule": "round_robin"}
    store.check_fingerprint(fp)
    store.check_fingerprint(dict(fp))  # same: fine
    store.close()
    store = ResultStore(tmp_path / "r.db")
    store.check_fingerprint(fp)
    with pytest.raises(StoreError) as err:
        store.check_fingerprint({**fp, "seed": 2})
    assert "seed" in str(err.value) and "was 1, now 2" in str(err.value) and "deals" not in str(err.value)
    with pytest.raises(StoreError) as err:
        store.check_fingerprint({**fp, "bots": {"a": "hash1", "b": "hash3"}, "deals": 3})
    message = str(err.value)
    assert "bots" in message and "deals" in message and "hash3" in message and "rules" not in message
    assert store.fingerprint() == fp
    store.close()


def test_deals_may_rise_but_not_fall_below_a_stored_deal(tmp_path):
    """More deals of the same tables keep every stored game's key, cards and number; fewer would
    leave stored games outside the schedule, still counted, unless none of the dropped deals was
    played: a raise stopped before its first new game can be taken back."""
    store = ResultStore(tmp_path / "r.db")
    fp = {"bots": "a,b,c", "seed": 1, "table_size": 3, "deals": 2, "schedule": "round_robin:", "game_numbers": "by_deal"}
    assert store.check_fingerprint(fp) is None
    for spec, record in games(deals=2):
        store.add_game(spec, record)
    assert store.check_fingerprint({**fp, "deals": 5}).deals_from == 2  # the deals it had
    assert store.fingerprint()["deals"] == 5 and store.check_fingerprint({**fp, "deals": 5}) == FingerprintDiff({})
    assert store.check_fingerprint({**fp, "deals": 3}).deals_from == 5  # deals 3 and 4 have no stored game
    assert store.fingerprint()["deals"] == 3
    with pytest.raises(StoreError, match="deals: was 3, now 1 \\(deals may rise, to play more, but not fall below a "
                                         "deal with stored games"):
        store.check_fingerprint({**fp, "deals": 1})  # deal 1 (the second) has stored games
    with pytest.raises(StoreError, match="seed: was 1, now 2"):  # with another change, nothing is changed
        store.check_fingerprint({**fp, "deals": 6, "seed": 2})
    assert store.fingerprint()["deals"] == 3
    store.close()


def test_results_numbered_table_by_table_resume_but_take_no_more_deals(tmp_path):
    """Fingerprints stored before game numbers went by deal have no game_numbers key."""
    store = ResultStore(tmp_path / "r.db")
    fp = {"bots": "a,b,c", "seed": 1, "table_size": 3, "deals": 2, "schedule": "round_robin:"}
    store.check_fingerprint(fp)
    assert store.check_fingerprint(dict(fp)) == FingerprintDiff({})
    with pytest.raises(StoreError, match="numbered games table by table, which another number of deals would renumber"):
        store.check_fingerprint({**fp, "deals": 3})
    with pytest.raises(StoreError, match="numbered games table by table"):  # fewer too, even with no game stored
        store.check_fingerprint({**fp, "deals": 1})
    store.close()


def test_a_changed_rule_option_is_named_in_the_refusal(tmp_path):
    """The fingerprint holds every option: the message must name the changed one, not print two
    long lists cut off before their difference."""
    from arena.game import Rules
    from arena.tournament.config import TournamentConfig
    from arena.tournament.runner import fingerprint

    def rules_print(**options):
        config = TournamentConfig(name="t", path=tmp_path / "t.toml", seed=1, bots=("a", "b", "c"), table_size=3,
                                  deals=1, rules=Rules(**options), workers=1)
        return fingerprint(config, {}, {})

    store = ResultStore(tmp_path / "r.db")
    store.check_fingerprint(rules_print())
    with pytest.raises(StoreError) as err:
        store.check_fingerprint(rules_print(ace_high=True))
    assert "rules: ace_high was False, now True" in str(err.value)
    store.close()


def test_not_a_database(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError):
        ResultStore(bad)


@pytest.mark.parametrize("tables", [("users",), ("games", "meta"), ("games", "notes")])
@pytest.mark.parametrize("read_only", [False, True])
def test_another_programs_sqlite_file_is_refused_and_left_as_it_was(tmp_path, tables, read_only):
    # A `database` key pointing at some other program's file: a run used to add our tables to
    # it (and switch it to WAL), and a foreign `games` or `meta` gave "schema version None".
    path = tmp_path / "theirs.db"
    with connected(path) as db:
        for name in tables:
            db.execute(f"CREATE TABLE {name} (x TEXT)")
    before = path.read_bytes()
    with pytest.raises(StoreError) as error:
        ResultStore(path, read_only=read_only)
    assert "is not an arena results database (an SQLite file with tables " + ", ".join(sorted(tables)) in str(error.value)
    assert path.read_bytes() == before
    assert not (tmp_path / "theirs.db-wal").exists()


def test_reader_works_while_writer_holds_a_transaction(tmp_path):
    writer = ResultStore(tmp_path / "r.db")
    played = games()
    writer.add_game(*played[0])
    reader = ResultStore(tmp_path / "r.db")
    with writer._write() as db:  # an open write transaction, as while a game is being committed
        db.execute("INSERT INTO meta VALUES ('x', 'y')")
        started = time.perf_counter()
        assert reader.game_count() == 1
        assert [r.key for r in reader.rows()] == [played[0][0].key]
        assert time.perf_counter() - started < 1.0  # not blocked by the writer
    writer.add_game(*played[1])
    assert reader.game_count() == 2
    reader.close()
    writer.close()


def test_a_reader_in_a_folder_it_cannot_write_still_sees_games_in_the_write_ahead_log(tmp_path, monkeypatch):
    # A killed run leaves its last commits in r.db-wal. Where the reader cannot write the
    # folder, SQLite opens the file only as immutable, which ignores that log: the standings
    # left those games out. (As root every folder is writable, hence the stand-in.)
    writer = ResultStore(tmp_path / "r.db")
    writer._db.execute("PRAGMA wal_autocheckpoint = 0")  # keep every commit in the log, as a killed run may
    played = games()
    for spec, record in played:
        writer.add_game(spec, record)
    published = tmp_path / "published"
    published.mkdir()
    for name in ("r.db", "r.db-wal"):
        shutil.copyfile(tmp_path / name, published / name)
    writer.close()
    with contextlib.closing(sqlite3.connect(f"file:{published / 'r.db'}?mode=ro&immutable=1", uri=True)) as immutable:
        assert immutable.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'games'").fetchone()[0] == 0

    monkeypatch.setattr("arena.results.database._can_write", lambda folder: False)
    reader = ResultStore(published / "r.db", read_only=True)
    assert reader.game_count() == len(played) == 6
    assert [r.key for r in reader.rows()] == [spec.key for spec, _ in played]
    snapshot = Path(reader._snapshot_dir)
    reader.close()
    assert not snapshot.exists()
    assert sorted(p.name for p in published.iterdir()) == ["r.db", "r.db-wal"]  # untouched


def test_a_private_copy_made_to_read_another_programs_file_is_removed(tmp_path, monkeypatch):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    db = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute("CREATE TABLE users (x TEXT)")
    for name in ("t.db", "t.db-wal"):
        shutil.copyfile(tmp_path / name, theirs / name)
    db.close()
    monkeypatch.setattr("arena.results.database._can_write", lambda folder: False)
    copies = set(Path(tempfile.gettempdir()).glob("arena-results-*"))
    with pytest.raises(StoreError, match="tables users"):
        ResultStore(theirs / "t.db", read_only=True)
    assert set(Path(tempfile.gettempdir()).glob("arena-results-*")) == copies


WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from arena.game import Rules, game_points
    from arena.play.records import GameRecord
    from arena.schedule.tables import round_robin
    from arena.play.selfplay import play_random_game
    from arena.results.store import ResultStore
    rules = Rules()
    store = ResultStore({db!r})
    for table in round_robin(["a", "b", "c", "d", "e", "f"], 3, 30, 3):
        for spec in table.games:
            g = play_random_game(rules, spec.seed, spec.dealer)
            rec = GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, rules), (), ((0.001,),) * 3, len(g.moves))
            store.add_game(spec, rec, {{"pad": "x" * 3000}})
""")


def test_survives_sigkill_of_the_writer(tmp_path):
    db = tmp_path / "r.db"
    ResultStore(db).close()
    reader = ResultStore(db)
    for round_no, wait_for in enumerate((40, 25)):
        before = reader.game_count()
        proc = subprocess.Popen([sys.executable, "-c", WRITER.format(root=str(ROOT), db=str(db))])
        try:
            deadline = time.monotonic() + 60
            while reader.game_count() < before + wait_for:  # reading while the other process writes
                assert proc.poll() is None, "the writer ended early"
                assert time.monotonic() < deadline
                time.sleep(0.01)
            time.sleep(0.013 * (round_no + 1))
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        assert proc.returncode == -signal.SIGKILL
    reader.close()
    store = ResultStore(db)
    assert store.integrity_check() == "ok"
    with connected(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = list(store.rows())
    assert len(rows) >= 40 and len({r.key for r in rows}) == len(rows)
    assert row_count(db, "seat_results") == 3 * len(rows)
    assert row_count(db, "transcripts") == len(rows)
    for row in rows:  # every stored game is complete: its transcript replays to its stored outcome
        game = replay(row.transcript)
        assert game.outcome.finishing_order == row.finishing_order
        assert row.extra == {"pad": "x" * 3000}
    store.close()


def test_the_run_lock_holds_under_another_name_of_the_same_file(tmp_path):
    first = ResultStore(tmp_path / "r.db")
    first.lock_for_run()
    (tmp_path / "alias.db").symlink_to(tmp_path / "r.db")
    second = ResultStore(tmp_path / "alias.db")
    with pytest.raises(StoreError, match="another run of this tournament"):
        second.lock_for_run()
    first.close()
    second.lock_for_run()  # free once the first run ends
    second.close()


def test_each_moves_think_time_and_a_faults_stderr_are_kept_and_older_games_have_none(tmp_path):
    """Schema version 3: a game keeps each move's think time (in 10 µs units, arena/results/
    move_times.py) with its transcript and a fault's stderr tail with the fault; a game stored
    without them reads back with none, and its transcript is the same."""
    import dataclasses
    import random

    store = ResultStore(tmp_path / "r.db")
    (spec, record), (old_spec, old_record) = games()[:2]
    rng = random.Random(3)
    think = tuple(None if i % 7 == 3 else rng.uniform(0, 0.02) for i in range(record.moves))
    stderr = "Traceback (most recent call last):\n  <b>boom</b>\nValueError: x"
    record = dataclasses.replace(record, move_think_s=think, faults=(Fault(0, FaultKind.ILLEGAL, "Kd: no", 2, stderr),))
    store.add_game(spec, record)
    store.add_game(old_spec, old_record)  # as an arena before version 3 stored it: no think times
    row, old_row = store.get_game(spec.key), store.get_game(old_spec.key)
    assert row.transcript == record.transcript and old_row.transcript == old_record.transcript
    assert [None if t is None else round(t, 5) for t in row.move_think_s] == \
           [None if t is None else round(t, 5) for t in think]
    assert old_row.move_think_s is None
    assert row.faults == ({"seat": 0, "kind": "illegal", "detail": "Kd: no", "move": 2, "stderr": stderr},)
    store.close()


def test_a_version_2_file_is_read_as_it_is_and_a_run_makes_it_version_3(tmp_path):
    path = tmp_path / "r.db"
    store = ResultStore(path)
    for spec, record in games()[:3]:
        store.add_game(spec, record)
    store.close()
    with connected(path) as raw:
        raw.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    raw.close()
    reader = ResultStore(path, read_only=True)
    assert [row.move_think_s for row in reader.rows()] == [None] * 3
    reader.close()
    writer = ResultStore(path)
    writer.upgrade()  # what a run does once it holds the run lock
    writer.close()
    with connected(path) as raw:
        assert raw.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("3",)
        assert raw.execute("SELECT COUNT(*) FROM totals_games").fetchone() is not None  # its totals kept as they were
    raw.close()


def test_a_full_disk_while_a_void_game_is_kept_is_a_store_error_as_for_a_played_game(tmp_path):
    """The organiser's trial: a disk full while a void game was recorded gave a traceback, where one
    while a played game was stored stops the run with a sentence (StoreError)."""
    from arena.play.records import VoidGame
    from arena.results.voids import add_void, void_rows

    store = ResultStore(tmp_path / "r.db")
    spec, record = games()[0]
    store.add_game(spec, record)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "database or disk is full"
    void = VoidGame(2, spec.bots, "a", "never connected")
    with pytest.raises(StoreError, match=r"cannot store void game .*database or disk is full"):
        add_void(store, spec, void)
    store._db.execute("PRAGMA max_page_count = 1073741823")
    assert store.game_count() == 1 and void_rows(store) == []  # what was stored before is whole
    add_void(store, spec, void)
    assert [row.bot for row in void_rows(store)] == ["a"]


def test_void_counts_tell_the_games_never_tried_from_those_that_failed(tmp_path):
    """`arena games --void` counted every void game alike: those whose start failed, and those never
    tried because their bot had just failed at the same table (or was paused)."""
    from arena.play.records import VoidGame
    from arena.results.voids import add_void, void_counts, void_rows

    store = ResultStore(tmp_path / "r.db")
    specs = [spec for spec, _ in games()][:4]
    add_void(store, specs[0], VoidGame(1, specs[0].bots, "a", "never connected"))  # tried, failed
    add_void(store, specs[0], VoidGame(1, specs[0].bots, "a", "never connected"))  # and again
    for spec in specs[1:3]:
        add_void(store, spec, VoidGame(2, spec.bots, "a", "not tried: a could not be started", tried=False))
    add_void(store, specs[3], VoidGame(4, specs[3].bots, "a", "not tried", tried=False))
    add_void(store, specs[3], VoidGame(4, specs[3].bots, "a", "never connected"))  # tried later: failed
    counts = void_counts(void_rows(store))
    assert (counts.games, counts.tried, counts.never_tried, counts.attempts, counts.pending) == (4, 2, 2, 6, 4)
