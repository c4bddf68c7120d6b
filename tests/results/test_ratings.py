"""OpenSkill ratings beside the standings (arena/results/ratings.py): Plackett-Luce over finishing
orders, rated in game-number order whatever order the games were stored in."""

from __future__ import annotations

import json
import math
import random

import pytest

from arena.game import Rules, game_points
from arena.play.records import GameRecord
from arena.play.selfplay import play_random_game
from arena.report import export
from arena.report.html import to_html
from arena.results.ratings import compute_ratings, rate_games, with_ratings
from arena.results.standings_sql import compute_standings
from arena.results.store import ResultStore
from arena.schedule.numbers import GameNumbers
from arena.schedule.tables import round_robin

pytest.importorskip("openskill")


def test_a_bot_that_always_finishes_first_rates_highest_and_ordinal_is_conservative():
    games = [(("strong", "mid", "weak"), (0, 1, 2))] * 30 + [(("weak", "strong", "mid"), (1, 2, 0))] * 30
    ratings = rate_games(games)
    assert ratings["strong"].mu > ratings["mid"].mu > ratings["weak"].mu
    for r in ratings.values():
        assert r.ordinal == pytest.approx(r.mu - 3 * r.sigma)
        assert r.sigma < 25 / 3  # more sure than at the start


def test_order_of_games_matters_to_the_model():
    # Why the arena fixes the order: the same games in another order give other ratings.
    games = [(("a", "b", "c"), (0, 1, 2))] * 10 + [(("a", "b", "c"), (2, 1, 0))] * 10
    assert rate_games(games)["a"].mu != pytest.approx(rate_games(games[::-1])["a"].mu)


def _tables():
    return round_robin(["a", "b", "c", "d"], 3, 3, seed=7)


def _store(path, order_seed: int | None):
    """The same games stored in table order, or shuffled (as workers would finish them)."""
    rules = Rules()
    specs = [spec for table in _tables() for spec in table.games]
    if order_seed is not None:
        random.Random(order_seed).shuffle(specs)
    store = ResultStore(path)
    for spec in specs:
        g = play_random_game(rules, spec.seed ^ spec.seating, spec.dealer)
        store.add_game(spec, GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, rules), (),
                                        ((0.001,),) * 3, len(g.moves)), {})
    return store


def test_ratings_follow_game_numbers_not_storage_order(tmp_path):
    numbers = GameNumbers(len(_tables()), 3, 6)
    stores = [_store(tmp_path / f"{seed}.db", seed) for seed in (None, 1, 2)]
    try:
        ratings = [compute_ratings(store, numbers) for store in stores]
        assert ratings[0] == ratings[1] == ratings[2]
        assert set(ratings[0]) == {"a", "b", "c", "d"}
        # ...and are those of the games taken one by one in game-number order.
        rows = sorted(stores[1].rows(with_transcripts=False), key=lambda r: numbers.number(r.table, r.deal, r.seating))
        assert rate_games((r.bots, r.finishing_order) for r in rows) == ratings[0]
    finally:
        for store in stores:
            store.close()


def test_every_report_format_carries_the_ratings(tmp_path):
    store = _store(tmp_path / "r.db", None)
    try:
        standings = with_ratings(compute_standings(store, ["a", "b", "c", "d", "e"]),
                                 compute_ratings(store, GameNumbers(len(_tables()), 3, 6)))
    finally:
        store.close()
    by_bot = {b["bot"]: b for b in json.loads(export.to_json(standings))["bots"]}
    assert by_bot["a"]["ordinal"] == pytest.approx(by_bot["a"]["mu"] - 3 * by_bot["a"]["sigma"])
    assert by_bot["e"]["mu"] is None  # no game yet: no rating, and valid JSON
    header, *rows = [line.split(",") for line in export.to_csv(standings).splitlines()]
    a = dict(zip(header, next(r for r in rows if r[1] == "a")))
    assert float(a["mu"]) == pytest.approx(by_bot["a"]["mu"]) and float(a["sigma"]) > 0
    first = standings.bots[0]
    shown = f"{first.mu:.1f} ± {first.sigma:.1f}"
    for text in (export.to_markdown(standings), to_html(standings)):
        assert "rating" in text and "ordinal" in text and shown in text
    assert math.isnan(standings.bot("e").mu)
