"""Standings maths on hand-computed cases, and the SQL path agreeing with the Python path."""

from __future__ import annotations

import math

import pytest

from arena.game import Rules, game_points
from arena.game.rules import Scoring
from arena.play.records import Fault, FaultKind, GameRecord
from arena.schedule.tables import round_robin
from arena.play.selfplay import play_random_game
from arena.results.standings import standings_from_rows, t975
from arena.results.standings_sql import compute_standings
from arena.results.rows import GameRow
from arena.results.store import ResultStore
from tests.db_support import connected


def row(i, table, deal, bots, order, points, faults=()):
    return GameRow(id=i, key=f"g{i}", table=table, deal=deal, bots=tuple(bots), finishing_order=tuple(order),
                   points=tuple(points), faults=tuple(faults))


def fault(seat, kind):
    return {"seat": seat, "kind": kind, "detail": "x", "move": 1}


def placement(order):
    pts = [0] * len(order)
    for k, seat in enumerate(order, start=1):
        pts[seat] = len(order) - k
    return pts


ORDERS = [  # (table, deal, finishing order); bots always A, B, C by seat
    (0, 0, (0, 1, 2)), (0, 0, (1, 0, 2)),
    (0, 1, (0, 2, 1)), (0, 1, (0, 1, 2)),
    (1, 0, (2, 1, 0)), (1, 0, (2, 0, 1)),
]
FAULTS = {1: [fault(0, "timeout")], 2: [fault(0, "timeout"), fault(2, "illegal")]}


def main_rows():
    return [row(i, t, d, "ABC", o, placement(o), FAULTS.get(i, ())) for i, (t, d, o) in enumerate(ORDERS, start=1)]


def test_points_ranks_and_wins_tie_break():
    s = standings_from_rows(main_rows())
    assert [b.bot for b in s.bots] == ["A", "C", "B"]  # B and C: 5 points, 5/6 per game; C has 2 wins, B 1
    a, c, b = s.bots
    assert (a.rank, a.games, a.points, a.wins, a.skitgubbe, a.places) == (1, 6, 8, 3, 1, (3, 2, 1))
    assert (c.rank, c.points, c.wins, c.skitgubbe, c.places) == (2, 5, 2, 3, (2, 1, 3))
    assert (b.rank, b.points, b.wins, b.skitgubbe, b.places) == (3, 5, 1, 2, (1, 3, 2))
    assert a.points_per_game == pytest.approx(8 / 6)
    assert s.games == 6


def test_ci_over_deal_sets_hand_computed():
    s = standings_from_rows(main_rows())
    # A's deal-set means: (0,0) 1.5, (0,1) 2.0, (1,0) 0.5 -> mean 4/3, s^2 = 7/12, k = 3, t(0.975, 2) = 4.303
    a = s.bot("A")
    half = 4.303 * math.sqrt(7 / 12) / math.sqrt(3)
    assert a.deal_sets == 3
    assert a.ci95_low == pytest.approx(4 / 3 - half, abs=1e-12)
    assert a.ci95_high == pytest.approx(4 / 3 + half, abs=1e-12)
    # B: 1.5, 0.5, 0.5 -> mean 5/6, s^2 = 1/3; C: 0, 0.5, 2 -> mean 5/6, s^2 = 13/12
    b, c = s.bot("B"), s.bot("C")
    assert b.ci95_half_width == pytest.approx(4.303 * math.sqrt(1 / 3 / 3), abs=1e-12)
    assert c.ci95_half_width == pytest.approx(4.303 * math.sqrt(13 / 12 / 3), abs=1e-12)
    assert (c.ci95_low + c.ci95_high) / 2 == pytest.approx(5 / 6)


def test_ci_with_one_deal_set_is_nan_and_t_table():
    s = standings_from_rows([row(1, 0, 0, "ABC", (0, 1, 2), (2, 1, 0)), row(2, 0, 0, "ACB", (1, 0, 2), (1, 2, 0))])
    a = s.bot("A")
    assert a.deal_sets == 1 and math.isnan(a.ci95_low) and math.isnan(a.ci95_high)
    assert t975(2) == 12.706 and t975(30) == 2.045 and math.isnan(t975(1))
    # beyond the table: t(0.975, df) for df = 30, 60, 74, 120 (published values), then towards 1.96
    assert [round(t975(k), 4) for k in (31, 61, 75, 121)] == [2.0423, 2.0003, 1.9925, 1.9799]
    assert 1.95996 < t975(100_000) < 1.96


def test_head_to_head_places_by_seat_faults():
    s = standings_from_rows(main_rows())
    assert s.head_to_head[("A", "B")] == (6, 4)
    assert s.head_to_head[("B", "A")] == (6, 2)
    assert s.head_to_head[("C", "B")] == (6, 3)  # g3, g5, g6
    assert s.places_by_seat == ((3, 2, 1), (1, 3, 2), (2, 1, 3))
    assert s.faults_by_kind == {"illegal": 1, "timeout": 2}
    assert s.bot("A").faults == 2 and s.bot("A").faults_by_kind == {"timeout": 2}
    assert s.bot("C").faults_by_kind == {"illegal": 1}


def test_tie_break_points_per_game():
    rows = [row(1, 0, 0, "XYZ", (0, 1, 2), (2, 2, 0)), row(2, 0, 0, "XYZ", (0, 1, 2), (2, 2, 0)),
            row(3, 1, 0, "YZW", (0, 1, 2), (0, 0, 4))]
    names = [b.bot for b in standings_from_rows(rows).bots]
    assert names.index("X") < names.index("Y")  # 4 points each: X in 2 games, Y in 3


def test_a_gauntlet_ranks_by_points_per_game_then_points():
    # Points (games): G 5 (3), H 4 (2), I 2 (3), J 2 (2), K 1 (1). A game each: H 2.0, G 1.67,
    # J and K 1.0 (J first on points), I 0.67.
    rows = [row(1, 0, 0, "GHI", (0, 1, 2), (2, 2, 0)), row(2, 0, 0, "GHI", (1, 0, 2), (1, 2, 1)),
            row(3, 1, 0, "GJK", (0, 1, 2), (2, 1, 1)), row(4, 2, 0, "IJ", (0, 1), (1, 1))]
    by_points = standings_from_rows(rows)
    assert by_points.ranked_by == "points"
    assert [b.bot for b in by_points.bots] == ["G", "H", "J", "I", "K"]
    by_rate = standings_from_rows(rows, by_points_per_game=True)
    assert by_rate.ranked_by == "points_per_game"
    assert [b.bot for b in by_rate.bots] == ["H", "G", "J", "K", "I"]


def test_tie_break_skitgubbe_faults_and_name():
    rows = [row(1, 0, 0, "PQR", (2, 0, 1), (1, 1, 1)), row(2, 0, 0, "PQR", (2, 0, 1), (1, 1, 1))]
    assert [b.bot for b in standings_from_rows(rows).bots] == ["R", "P", "Q"]  # R: wins; P: never skitgubbe
    rows = [row(1, 0, 0, "STU", (2, 0, 1), (1, 1, 1), [fault(0, "timeout")]), row(2, 0, 0, "STU", (2, 1, 0), (1, 1, 1))]
    assert [b.bot for b in standings_from_rows(rows).bots] == ["U", "T", "S"]  # S and T differ only in faults
    rows = [row(i, 0, 0, "cab", o, (1, 1, 1)) for i, o in enumerate([(0, 1, 2), (1, 2, 0), (2, 0, 1)], start=1)]
    assert [b.bot for b in standings_from_rows(rows).bots] == ["a", "b", "c"]


def test_a_bot_without_games_comes_after_every_bot_that_played_even_below_zero():
    # pot scoring: chips can go below zero; "N" has no game yet and no result to rank
    rows = [row(1, 0, 0, "PQR", (0, 1, 2), (2, -1, -1)), row(2, 0, 0, "PQR", (0, 1, 2), (2, -1, -1))]
    for by_rate in (False, True):
        ranked = standings_from_rows(rows, entries=["P", "Q", "R", "N"], by_points_per_game=by_rate).bots
        assert [b.bot for b in ranked] == ["P", "Q", "R", "N"]


def test_entries_without_games_appear_with_zeros():
    s = standings_from_rows(main_rows(), entries=["A", "B", "C", "D"])
    d = s.bot("D")
    assert (d.rank, d.games, d.points, d.wins, d.places) == (4, 0, 0, 0, (0, 0, 0))
    empty = standings_from_rows([], entries=["x", "y"])
    assert [b.bot for b in empty.bots] == ["x", "y"] and empty.games == 0


def _store_of_random_games(path, rules=Rules()):
    """Stored random games of 4 bots in a round robin of 3 deals at `rules.num_players` a table,
    with a fault in every seating 1: 72 games and 24 faults at tables of three."""
    n = rules.num_players
    store = ResultStore(path)
    kinds = list(FaultKind)
    for t in round_robin(["a", "b", "c", "d"], n, 3, seed=11):
        for spec in t.games:
            g = play_random_game(rules, spec.seed ^ spec.seating, spec.dealer)  # seatings differ: results differ
            faults = (Fault(spec.seating % n, kinds[spec.deal % len(kinds)], "f", 2),) if spec.seating == 1 else ()
            record = GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, rules), faults,
                                ((0.001,),) * n, len(g.moves))
            store.add_game(spec, record, {"versions": {"a": "v2"}})
    return store


@pytest.mark.parametrize("rules, games", [
    (Rules(), 72),
    (Rules(num_players=2, scoring=Scoring.POT), 36),  # pot points go below zero
    (Rules(num_players=4), 72),  # one table, 24 seatings a deal
], ids=["three-placement", "two-pot", "four-placement"])
def test_sql_standings_equal_python_standings(tmp_path, rules, games):
    # The SQL path takes places, wins and skitgubbe from grouped finishing orders and points
    # from deal-set sums; the Python path counts row by row.
    store = _store_of_random_games(tmp_path / "r.db", rules)
    entries = ["a", "b", "c", "d", "e"]
    sql = compute_standings(store, entries)
    py = standings_from_rows(store.rows(), entries)
    assert sql.games == py.games == games
    for x, y in zip(sql.bots, py.bots):
        assert x.bot == y.bot and x.rank == y.rank and x.points == y.points and x.places == y.places
        assert (x.wins, x.skitgubbe, x.faults, x.faults_by_kind, x.deal_sets, x.version) == \
               (y.wins, y.skitgubbe, y.faults, y.faults_by_kind, y.deal_sets, y.version)
        if x.games:
            assert x.ci95_low == pytest.approx(y.ci95_low) and x.ci95_high == pytest.approx(y.ci95_high)
    assert sql.head_to_head == py.head_to_head
    assert sql.places_by_seat == py.places_by_seat
    assert sql.faults_by_kind == py.faults_by_kind and sum(sql.faults_by_kind.values()) > 0
    assert sql.bot("a").version == "v2"
    store.close()


def test_standings_and_ratings_hold_when_ids_have_gaps(tmp_path):
    # Ids are gapless as the store writes them; edited by hand, the games keep their figures, and
    # the ratings' counts follow each game to its new block (arena/results/rating_totals.py).
    from arena.results.ratings_read import read_ratings

    store = _store_of_random_games(tmp_path / "r.db")
    before = read_ratings(store)
    store.close()
    with connected(tmp_path / "r.db") as db:
        for table, column in (("games", "id"), ("seat_results", "game_id"), ("transcripts", "game_id"), ("faults", "game_id")):
            db.execute(f"UPDATE {table} SET {column} = {column} * 7 + 1000 WHERE {column} > 30")
    db.close()
    store = ResultStore(tmp_path / "r.db")
    sql = compute_standings(store)
    py = standings_from_rows(store.rows())
    assert [x.points for x in sql.bots] == [y.points for y in py.bots]
    after = read_ratings(store)
    assert after.bots == before.bots and after.history[-1][0] == 72 and len(after.history) <= 200
    store.close()


def test_moves_made_for_a_gone_bot_are_not_counted_as_more_faults(tmp_path):
    """A crash is one fault: the `dead` records of the fallback moves that follow are kept in the
    game but not counted (a bot crashing once per game used to show ~170 faults a game)."""
    rules = Rules()
    store = ResultStore(tmp_path / "r.db")
    for t in round_robin(["a", "b", "c"], 3, 1, seed=5):
        for spec in t.games:
            g = play_random_game(rules, spec.seed, spec.dealer)
            faults = (Fault(0, FaultKind.EXITED, "crashed", 3),) + tuple(Fault(0, FaultKind.DEAD, "gone", m) for m in range(4, 24))
            record = GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, rules), faults,
                                ((0.001,),) * 3, len(g.moves))
            store.add_game(spec, record, {})
    for standings in (compute_standings(store, ["a", "b", "c"]), standings_from_rows(store.rows(), ["a", "b", "c"])):
        assert standings.faults_by_kind == {"exited": 6}
        assert sum(b.faults for b in standings.bots) == 6
    assert sum(len(r.faults) for r in store.rows()) == 6 * 21  # every record is still stored
    # Files written before `dead` records were left out of seat_results.faults hold them there;
    # the count of faults must still agree with the counts by kind.
    with connected(tmp_path / "r.db") as db:
        db.execute("UPDATE seat_results SET faults = 21 WHERE faults = 1")
    db.close()
    old_file = compute_standings(store, ["a", "b", "c"])
    assert sum(b.faults for b in old_file.bots) == 6 and old_file.faults_by_kind == {"exited": 6}
    store.close()
