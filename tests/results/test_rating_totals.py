"""The ratings' counts kept per block of stored games (arena/results/rating_totals.py): equal to
the same counts summed again from the games through every change a file sees, blocks merged as
the games grow, and added to a file of an older schema (the checkpoint's tables dropped) when a
run opens it (database.migrate)."""

from __future__ import annotations

import sqlite3

import numpy as np

from arena.results import rating_totals
from arena.results.ratings_read import read_ratings
from arena.results.store import ResultStore
from arena.results.voids import void_on_request
from tests.results.league_support import stored_league
from tests.results.test_standings import _store_of_random_games


def kept(db) -> list:
    return [sorted(db.execute("SELECT block, games FROM totals_block_games WHERE games != 0").fetchall()),
            sorted(db.execute("SELECT * FROM totals_block_sets WHERE games != 0").fetchall()),
            sorted(db.execute("SELECT * FROM totals_block_wins WHERE stages != 0").fetchall())]


def assert_kept_equals_summed_again(path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        before = kept(db)
        db.execute("BEGIN")
        rating_totals.rebuild(db)
        again = kept(db)
        db.execute("ROLLBACK")
    finally:
        db.close()
    assert before == again and before[0]


def stored_again(store: ResultStore, rows) -> None:
    """Store `rows` (GameRows of another file) as new games: in one transaction, as a bulk load."""
    from arena.results.rows import GAME_COLUMNS

    with store._write() as db:
        for row in rows:
            values = (row.key, row.table, row.deal, row.seating, ",".join(row.bots), row.seed, row.dealer,
                      ",".join(map(str, row.finishing_order)), row.finishing_order[-1], row.reason,
                      ",".join(map(str, row.points)), row.moves, "[]", "0,0,0", "0,0,0", "{}", 0.0)
            db.execute(f"INSERT INTO games ({', '.join(GAME_COLUMNS)}) VALUES ({', '.join('?' * len(values))})", values)


def test_block_counts_follow_games_added_superseded_voided_and_edited_by_hand(tmp_path):
    path = tmp_path / "r.db"
    store = _store_of_random_games(path)
    assert_kept_equals_summed_again(path)
    store.supersede({"b": "b: withdrawn"}, {"bots": ["a", "c", "d"]})
    assert_kept_equals_summed_again(path)
    assert void_on_request(store, ["timeout", "illegal"], "--replay-faults timeout,illegal") > 0
    assert_kept_equals_summed_again(path)
    store.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE games SET finishing_order = '2,1,0' WHERE id = (SELECT MIN(id) FROM games)")
    db.execute("DELETE FROM games WHERE id = (SELECT MAX(id) FROM games)")
    db.close()
    assert_kept_equals_summed_again(path)


def test_blocks_merge_as_the_games_grow_and_stay_fewer_than_the_history_allows(tmp_path):
    store = stored_league(tmp_path / "r.db", ["a", "b", "c", "d", "e", "f"], np.zeros(6), deals=15)  # 1,800 games
    with store._read() as db:
        (shift,) = db.execute("SELECT shift FROM totals_blocks").fetchone()
        blocks = rating_totals.block_changes(db)
    assert 1800 >> shift < rating_totals.MAX_BLOCKS <= 1800 >> (shift - 1)
    assert rating_totals.MAX_BLOCKS // 2 <= len(blocks) <= rating_totals.MAX_BLOCKS
    assert sum(games for _, games, _ in blocks) == 1800
    assert_kept_equals_summed_again(tmp_path / "r.db")
    store.close()


def test_an_older_file_is_rated_from_its_games_and_a_run_upgrades_it(tmp_path):
    path = tmp_path / "r.db"
    store = stored_league(path, ["a", "b", "c", "d"], np.array([1.0, 0.0, 0.0, -1.0]), deals=3)
    expected = read_ratings(store)
    store.close()
    db = sqlite3.connect(path, isolation_level=None)  # as an arena of schema version 2 left it
    for table in rating_totals.TABLES:
        db.execute(f"DROP TABLE {table}")
    for trigger in ("totals_blocks_in", "totals_blocks_out", "totals_blocks_change", "totals_blocks_merge"):
        db.execute(f"DROP TRIGGER {trigger}")
    db.execute("CREATE TABLE rating_checkpoint (id INTEGER PRIMARY KEY, data TEXT NOT NULL)")
    db.execute("CREATE TABLE rating_snapshots (games INTEGER PRIMARY KEY, cumulative TEXT NOT NULL)")
    db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    db.close()
    reading = ResultStore(path, read_only=True)
    older = read_ratings(reading)  # summed from the games: the same fit
    reading.close()
    assert {n: r.rating for n, r in older.bots.items()} == {n: r.rating for n, r in expected.bots.items()}
    store = ResultStore(path)
    store.upgrade()
    with store._read() as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("3",)
    assert "rating_checkpoint" not in tables and "rating_snapshots" not in tables
    assert read_ratings(store) == expected
    store.close()
    assert_kept_equals_summed_again(path)
