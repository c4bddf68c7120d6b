"""`arena games` by SQL (arena/results/games_page.py): the same lines, in the same order, and the same
count as game_lines over every stored game sorted by number, for every filter, sort and layout, with
number_order's index and without; and a page reads a page, not every game."""

from __future__ import annotations

import itertools
import random
import shutil

import pytest

from arena.game import Rules, game_points
from arena.play.records import Fault, FaultKind, GameRecord
from arena.play.selfplay import play_random_game
from arena.results import games_page, number_order
from arena.results.games_list import game_lines
from arena.results.games_page import GameFilter, count_current, current_games, current_lines, games_query
from arena.results.store import ResultStore
from arena.schedule.numbers import LAYOUTS, PAIRED, GameNumbers
from arena.schedule.tables import round_robin

ENTRIES = ["a", "b", "c", "d", "e"]
DEALS = 4
FILTERS = [GameFilter(bots, faults, skitgubbe)
           for bots in [(), ("a",), ("a", "b"), ("e", "c"), ("zz",)]  # zz: a bot without games
           for faults in (False, True)
           for skitgubbe in (None, "a", "c", "zz")]


def _build(path) -> int:
    """A round robin of five bots at tables of three, stored shuffled (as workers finish games), a
    third of the games with a fault or two of any kind (`dead` among them, not counted); returns
    how many tables."""
    rules = Rules()
    tables = round_robin(ENTRIES, 3, DEALS, seed=3)
    specs = [spec for table in tables for spec in table.games]
    random.Random(5).shuffle(specs)
    rng = random.Random(9)
    store = ResultStore(path)
    for spec in specs:
        game = play_random_game(rules, spec.seed ^ spec.seating, spec.dealer)
        faults = tuple(Fault(rng.randrange(3), rng.choice(list(FaultKind)), "f", 1)
                       for _ in range(rng.choice((0, 0, 0, 0, 1, 2))))
        store.add_game(spec, GameRecord(1, spec.bots, game.outcome, game.transcript,
                                        game_points(game.outcome, rules), faults, ((0.001,),) * 3, len(game.moves)),
                       {"versions": {name: "v1" for name in spec.bots}})
    store.close()
    return len(tables)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("games_page")
    return folder / "results.db", _build(folder / "results.db")


@pytest.fixture(params=[(layout, indexed) for layout in LAYOUTS for indexed in (False, True)],
                ids=lambda param: f"{param[0]}-{'index' if param[1] else 'no index'}")
def stored(request, built, tmp_path):
    """(the store, read-only as `arena games` opens it, and its numbers) for one layout, with
    number_order's index for that layout or without."""
    (path, tables), (layout, indexed) = built, request.param
    copy = tmp_path / "results.db"
    shutil.copyfile(path, copy)
    if indexed:
        with ResultStore(copy) as store, store._write() as db:
            number_order.create_index(db, layout)
    store = ResultStore(copy, read_only=True)
    yield store, GameNumbers(tables, DEALS, 6, layout)
    store.close()


def old_way(store, numbers, wanted: GameFilter, by_number: bool, rows: list | None = None) -> list:
    """What `arena games` listed before: every game read, sorted by number, filtered in Python."""
    rows = list(store.rows(with_transcripts=False)) if rows is None else rows
    if by_number:
        rows = sorted(rows, key=numbers.of)
    return list(game_lines(rows, numbers.of, bots=wanted.bots, faults_only=wanted.faults_only,
                           skitgubbe=wanted.skitgubbe))


def test_the_stored_games_are_shuffled_and_the_filters_are_not_empty(built):
    path, _ = built
    with ResultStore(path, read_only=True) as store:
        ids = [row.key for row in store.rows(with_transcripts=False)]
        assert ids != sorted(ids)  # stored out of number order
        numbers = GameNumbers(10, DEALS, 6, PAIRED)
        for wanted in (GameFilter(("a", "b"), True), GameFilter(("e", "c"), True, "c"), GameFilter((), False, "a")):
            assert old_way(store, numbers, wanted, True)  # each filter finds some games, not all
        assert len(old_way(store, numbers, GameFilter((), True), True)) < len(ids)


def test_sql_lists_and_counts_what_every_game_sorted_in_python_listed(stored, monkeypatch):
    store, numbers = stored
    monkeypatch.setattr(games_page, "CHUNK", 7)  # the rest read in many chunks
    monkeypatch.setattr(games_page, "MAX_PAGE", 8)  # a page of 10 read as 8, then the rest by id
    rows = list(store.rows(with_transcripts=False))
    for wanted, by_number in itertools.product(FILTERS, (True, False)):
        expected = old_way(store, numbers, wanted, by_number, rows)
        said = f"{wanted}, by {'number' if by_number else 'id'}"
        assert list(current_lines(store, numbers, wanted, by_number=by_number, page=5)) == expected, said
        # SQL alone selects them (game_lines, the final word, drops none): the count holds.
        selected = current_games(store, numbers.layout, wanted, by_number=by_number, page=5)
        assert [row.key for row in selected] == [line.key for line in expected], said
        page = current_lines(store, numbers, wanted, by_number=by_number, page=10)
        assert list(itertools.islice(page, 10)) == expected[:10], said  # --limit 10, the table's page
        assert count_current(store, wanted) == len(expected), said


def test_a_page_walks_the_index_and_reads_only_its_rows(stored, monkeypatch):
    store, numbers = stored
    indexed = store._db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (number_order.INDEX,)).fetchone() is not None
    for wanted in (GameFilter(), GameFilter(("a",)), GameFilter(("a", "b"))):
        for after in (None, (3, 0) if numbers.layout == PAIRED else (1, 2, 0)):
            query, params = games_query(numbers.layout, wanted, after=after, size=10)
            plan = " | ".join(row[3] for row in store._db.execute("EXPLAIN QUERY PLAN " + query, params))
            if indexed:  # in number order as stored: no sort of every game; past a game, a seek to it
                assert "games_by_number" in plan and "TEMP B-TREE" not in plan, plan
                assert after is None or plan.startswith("SEARCH"), plan
    statements: list[str] = []
    decoded = []
    read = store._decoded
    monkeypatch.setattr(store, "_decoded", lambda row: decoded.append(row) or read(row))
    store._db.set_trace_callback(statements.append)
    try:
        lines = list(itertools.islice(current_lines(store, numbers, GameFilter(("a",)), page=10), 10))
    finally:
        store._db.set_trace_callback(None)
    assert len(lines) == len(decoded) == 10
    assert [s for s in statements if s.lstrip().upper().startswith("SELECT")] == [statements[1]]  # one query


def test_the_order_terms_split_where_the_order_by_lists_them():
    for layout, order_by in number_order.ORDER_BY.items():
        terms = games_page._terms_of(order_by)
        assert ", ".join(terms) == order_by and terms[-1] == "seating"
        assert all(term.count("(") == term.count(")") for term in terms)
    assert games_page._terms_of("g.id") == ["g.id"]
