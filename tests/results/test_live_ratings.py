"""A run's live views (arena/results/live_ratings.py, issue 34): ratings and timeline in the order
games were stored, each game rated once as it comes, so that a refresh costs the games stored since
the last one and not the tournament: counted here in SQLite's steps and rating updates, not timed."""

from __future__ import annotations

import itertools
import random

import pytest

from arena.game import Rules, game_points
from arena.play.records import GameRecord
from arena.play.selfplay import play_random_game
from arena.results import live_ratings, rating_checkpoint, standings
from arena.results.live_ratings import PlayOrderRatings
from arena.results.ratings import rate_games, rated_standings
from arena.results.rows import encode_game
from arena.results.standings_sql import compute_standings
from arena.results.store import ResultStore
from arena.schedule.numbers import GameNumbers
from arena.schedule.tables import round_robin
from arena.tournament.config import config_from_dict

pytest.importorskip("openskill")
BOTS = ["a", "b", "c", "d", "e"]


@pytest.fixture(scope="module")
def outcomes():
    rules = Rules()
    return [(g.outcome, g.transcript, game_points(g.outcome, rules), len(g.moves))
            for g in (play_random_game(rules, seed, seed % 3) for seed in range(40))]


def specs(deals: int):
    """Every game of a round robin of BOTS with `deals` deals, shuffled as workers would store them."""
    games = [game for table in round_robin(BOTS, 3, deals, seed=3) for game in table.games]
    random.Random(deals).shuffle(games)
    return games


def store_games(store: ResultStore, games, outcomes) -> None:
    pick = random.Random(len(games))
    rows = []
    for spec in games:
        outcome, transcript, points, moves = outcomes[pick.randrange(len(outcomes))]
        record = GameRecord(1, spec.bots, outcome, transcript, points, (), ((0.001,),) * 3, moves)
        rows.append(encode_game(spec, record, {}))
    store.add_encoded(rows)


def test_live_ratings_equal_a_pass_in_stored_order_at_every_refresh(tmp_path, monkeypatch, outcomes):
    monkeypatch.setattr(rating_checkpoint, "SNAPSHOT", 8)
    monkeypatch.setattr(standings, "TIMELINE_POINTS", 10)
    store = ResultStore(tmp_path / "r.db")
    live = PlayOrderRatings()
    numbers = GameNumbers(10, 12, 6)
    games = specs(12)  # 600 games: the timeline samples on the snapshots from 40 games on
    try:
        for first in (0, 7, 30, 90, 300, 599):
            store_games(store, games[first:first + {0: 7, 7: 23, 30: 60, 90: 210, 300: 299, 599: 1}[first]], outcomes)
            ratings, timeline = live.update(store, numbers)
            rows = list(store.rows(with_transcripts=False))
            expected = rate_games((row.bots, row.finishing_order) for row in rows)
            assert {name: (r.mu, r.sigma) for name, r in ratings.items()} == \
                   {name: (r.mu, r.sigma) for name, r in expected.items()}  # float for float
            assert timeline == compute_standings(store).timeline  # the stored-order timeline, summed in SQL
    finally:
        store.close()


def test_a_refresh_costs_the_new_games_not_the_tournament(tmp_path, monkeypatch, outcomes):
    """The same 30 new games after 300 and after 3,000 stored: the refresh's SQLite steps and rating
    updates are about the same, where rating in game order would grow tenfold."""
    rated: list[int] = []
    original_add = live_ratings._Rater.add
    monkeypatch.setattr(live_ratings._Rater, "add", lambda self, *a: (rated.append(1), original_add(self, *a)))

    def refresh_cost(deals: int) -> tuple[int, int]:
        folder = tmp_path / str(deals)
        folder.mkdir()
        config = config_from_dict({"name": "big", "bots": BOTS, "deals": deals, "seed": 3}, folder / "t.toml")
        store = ResultStore(config.database)
        games = specs(deals)
        store_games(store, games[:-30], outcomes)
        live = PlayOrderRatings()
        rated_standings(store, config, by_points_per_game=True, live=live, head_to_head=False)  # the previous refresh
        store_games(store, games[-30:], outcomes)
        steps = itertools.count()
        store._db.set_progress_handler(lambda: next(steps) and 0, 10)  # every 10 SQLite VM steps
        rated.clear()
        refreshed = rated_standings(store, config, by_points_per_game=True, live=live, head_to_head=False)
        store._db.set_progress_handler(None, 0)
        assert refreshed.games == len(games) and refreshed.ratings_in_play_order
        store.close()
        return next(steps), len(rated)

    small_steps, small_rated = refresh_cost(6)  # 330 games stored
    large_steps, large_rated = refresh_cost(60)  # 3,300 games stored
    assert small_rated == large_rated == 30
    assert large_steps < 1.5 * small_steps, (small_steps, large_steps)


def test_live_ratings_start_from_the_game_order_checkpoint_a_run_left(tmp_path, monkeypatch, outcomes):
    """A run resumed on a large tournament starts its live ratings from the checkpoint of the games
    settled in game order, and takes the others in the order they were stored."""
    from arena.results.ratings import in_game_order
    from arena.tournament.runner import SettledNumbers

    monkeypatch.setattr(rating_checkpoint, "SNAPSHOT", 2)
    monkeypatch.setattr(standings, "TIMELINE_POINTS", 10)  # a checkpoint of more than 20 games is "large"
    tables = round_robin(BOTS, 3, 12, seed=3)
    numbers = GameNumbers(len(tables), 12, 6)
    in_order = sorted(specs(12), key=numbers.of)
    # The first 300 numbers, then the rest, each part in the order workers ended them.
    games = random.Random(4).sample(in_order[:300], 300) + random.Random(5).sample(in_order[300:], len(in_order) - 300)
    store = ResultStore(tmp_path / "r.db")
    try:
        store_games(store, games[:400], outcomes)
        settled = SettledNumbers(numbers, tables)
        for spec in games[:400]:
            settled.stored(spec)
        assert settled.upto > 20 * 6
        in_game_order(store, numbers, settled.upto)  # the run's checkpoint
        store_games(store, games[400:450], outcomes)
        ratings, timeline = PlayOrderRatings().update(store, numbers)
        rows = list(store.rows(with_transcripts=False))
        stored_order = rate_games((row.bots, row.finishing_order) for row in rows)
        assert {name: r.mu for name, r in ratings.items()} != {name: r.mu for name, r in stored_order.items()}
        within = sorted((numbers.of(row), row) for row in rows if numbers.of(row) <= settled.upto)
        others = [row for row in rows if numbers.of(row) > settled.upto]  # in stored order
        expected = rate_games((row.bots, row.finishing_order) for row in [row for _, row in within] + others)
        assert {name: (r.mu, r.sigma) for name, r in ratings.items()} == \
               {name: (r.mu, r.sigma) for name, r in expected.items()}
        assert timeline[-1] == (450, {name: sum(row.points[row.bots.index(name)] for row in rows if name in row.bots)
                                      for name in BOTS})
    finally:
        store.close()
