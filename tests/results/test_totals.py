"""The totals the results keep beside the games (arena/results/totals.py, issue 34): kept by
triggers through every change a file sees, equal to the same sums taken again from the games, and
added to a file of schema version 1 when a run opens it."""

from __future__ import annotations

import math
import sqlite3
import time

import pytest

from arena.results import totals
from arena.results.database import migrate
from arena.results.queries import games_summary, points_by_deal
from arena.results.rows import StoreError
from arena.results.standings_sql import compute_standings
from arena.results.store import ResultStore
from arena.results.voids import void_on_request
from tests.results.test_standings import _store_of_random_games
from tests.db_support import connected


def kept(db) -> dict[str, list]:
    """Every totals table's rows that count (a row summed down to zero is none)."""
    count_column = {"totals_orders": "games", "totals_places": "games", "totals_seat_places": "games", "totals_deal_sets": "sets", "totals_deals": "seats",
                    "totals_faults": "faults", "totals_games": "1"}
    # The ratings' block counts have a test of their own (test_rating_totals.py): their count of
    # changes is not what a sum taken again gives.
    return {table: sorted(db.execute(f"SELECT * FROM {table} WHERE {count_column[table]} != 0").fetchall())
            for table in totals.TABLES if table in count_column}


def assert_kept_equals_summed_again(path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        before = kept(db)
        db.execute("BEGIN")
        totals.rebuild(db)
        again = kept(db)
        db.execute("ROLLBACK")
    finally:
        db.close()
    assert before == again
    assert before["totals_games"][0][1] > 0


def standings_figures(store):
    s = compute_standings(store, ["a", "b", "c", "d"])
    return ([(b.bot, b.games, b.points, b.places, b.wins, b.skitgubbe, b.faults, b.faults_by_kind, b.deal_sets,
              *(None if math.isnan(x) else round(x, 9) for x in (b.ci95_low, b.ci95_high))) for b in s.bots], s.head_to_head, s.places_by_seat,
            s.faults_by_kind, s.games)


def test_totals_follow_games_added_superseded_voided_and_deleted_by_hand(tmp_path):
    path = tmp_path / "r.db"
    store = _store_of_random_games(path)
    assert_kept_equals_summed_again(path)
    store.supersede({"b": "b: withdrawn"}, {"bots": ["a", "c", "d"]})  # deletes b's games: the triggers subtract
    assert_kept_equals_summed_again(path)
    assert void_on_request(store, ["timeout", "illegal"], "--replay-faults timeout,illegal") > 0
    assert_kept_equals_summed_again(path)
    store.close()
    with connected(path) as db:  # as a kill mid-table, simulated by hand, leaves a file
        ids = [i for (i,) in db.execute("SELECT id FROM games ORDER BY id DESC LIMIT 5")]
        for table, column in (("seat_results", "game_id"), ("faults", "game_id"), ("games", "id")):
            db.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(i,) for i in ids])
    db.close()
    assert_kept_equals_summed_again(path)


def test_standings_from_totals_equal_those_summed_from_the_games(tmp_path, monkeypatch):
    store = _store_of_random_games(tmp_path / "r.db")
    store.supersede({"d": "d: withdrawn"}, {"bots": ["a", "b", "c"]})
    from_totals = standings_figures(store)
    by_deal = sorted((p.bot, p.deal, p.points, p.seats) for p in points_by_deal(store))
    summary = games_summary(store)
    monkeypatch.setattr(totals, "present", lambda db: False)  # as a file of version 1 is read
    assert standings_figures(store) == from_totals
    assert sorted((p.bot, p.deal, p.points, p.seats) for p in points_by_deal(store)) == by_deal
    assert games_summary(store) == summary and summary.games == from_totals[-1] > 0
    store.close()


def as_version_1(path) -> None:
    """Make `path` what an arena of schema version 1 wrote: no totals, no triggers, no order index."""
    with connected(path) as db:
        for name, kind in db.execute("SELECT name, type FROM sqlite_master WHERE name LIKE 'totals%' "
                                     "OR name IN ('games_by_number', 'games_finished_at')").fetchall():
            db.execute(f"DROP {kind.upper()} IF EXISTS {name}")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    db.close()


def test_a_version_1_file_is_read_as_it_is_and_upgraded_by_a_run(tmp_path):
    path = tmp_path / "r.db"
    store = _store_of_random_games(path)
    expected = standings_figures(store)
    store.close()
    as_version_1(path)
    reader = ResultStore(path, read_only=True)
    assert standings_figures(reader) == expected and reader.game_count() == expected[-1]
    reader.close()
    with connected(path) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("1",)  # unchanged
    db.close()
    writer = ResultStore(path)  # opened to write: still version 1 until a run upgrades it
    assert not totals.present(writer._db) and standings_figures(writer) == expected
    writer.upgrade()  # what a run does once it holds the run lock and found the file whole
    assert standings_figures(writer) == expected
    writer.close()
    with connected(path) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("3",)
        assert db.execute("SELECT 1 FROM sqlite_master WHERE name = 'games_by_number'").fetchone() is not None
    db.close()
    assert_kept_equals_summed_again(path)
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, path)  # a second migration (another process was first) changes nothing
    db.close()
    assert_kept_equals_summed_again(path)


def test_a_file_of_a_newer_schema_is_refused_by_name(tmp_path):
    path = tmp_path / "r.db"
    ResultStore(path).close()
    with connected(path) as db:
        db.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    db.close()
    for read_only in (True, False):
        with pytest.raises(StoreError, match="schema version 4, this arena reads versions 1, 2 and 3"):
            ResultStore(path, read_only=read_only)


def test_games_summary_finds_the_first_and_last_finished_by_index(tmp_path):
    store = _store_of_random_games(tmp_path / "r.db")
    summary = games_summary(store)
    assert summary.first_finished_at <= summary.last_finished_at <= time.time()
    with store._read() as db:
        plan = " ".join(str(row) for row in db.execute("EXPLAIN QUERY PLAN SELECT MIN(finished_at) FROM games"))
    assert "games_finished_at" in plan
    store.close()
