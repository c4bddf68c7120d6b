"""The ratings (arena/results/ratings.py, ratings_read.py): one Plackett-Luce fit from the kept
counts, the same however the games were stored and however often it is read, with intervals,
groups and a history, in every report format."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from arena.report import export
from arena.report.html import to_html
from arena.results.plackett_luce import fit, stage_counts
from arena.results.ratings import ANCHOR, POINTS_PER_UNIT, ratings_of, tied_groups, with_ratings
from arena.results.ratings_read import RatingsReader, read_ratings
from arena.results.standings_sql import compute_standings
from tests.results.league_support import stored_league

NAMES = ["a", "b", "c", "d", "e"]
THETA = np.array([1.0, 0.5, 0.0, -0.5, -1.0])


def test_ratings_are_the_same_however_the_games_were_stored(tmp_path):
    orders = [None, lambda specs: random.Random(1).sample(specs, len(specs)), lambda specs: specs[::-1]]
    read = []
    for index, order in enumerate(orders):
        store = stored_league(tmp_path / f"{index}.db", NAMES, THETA, deals=6, order=order)
        read.append(read_ratings(store))
        store.close()
    figures = [{name: (r.rating, r.margin, r.group) for name, r in ratings.bots.items()} for ratings in read]
    assert figures[0] == figures[1] == figures[2]  # float for float
    assert read[0].covariance == read[1].covariance and read[0].groups == read[2].groups
    # What a league's matchmaking reads (issue 43): each theta's variance, and a difference's.
    margin = read[0].bots["a"].margin
    assert 0 < read[0].difference_variance("a", "b") < read[0].variance("a") + read[0].variance("b")
    assert math.isnan(read[0].variance("nobody")) and margin > 0
    # The history goes by stored order: its last point is the ratings, its first ones differ.
    for ratings in read:
        assert ratings.history[-1] == (360, {name: r.rating for name, r in ratings.bots.items()})
    assert read[0].history[0] != read[1].history[0]


def test_the_fit_finds_the_order_of_the_strengths_on_the_display_scale(tmp_path):
    store = stored_league(tmp_path / "r.db", NAMES, THETA * 2, deals=20)
    ratings = read_ratings(store)
    store.close()
    ranked = sorted(ratings.bots, key=lambda name: -ratings.bots[name].rating)
    assert ranked == NAMES
    assert sum(r.rating for r in ratings.bots.values()) / len(NAMES) == pytest.approx(ANCHOR)
    # 2 units of log-strength between neighbours: about 347 points, within each interval.
    for name, truth in zip(NAMES, THETA * 2):
        rated = ratings.bots[name]
        assert abs(rated.rating - (ANCHOR + POINTS_PER_UNIT * truth)) < 2.5 * rated.margin


def test_a_bot_that_never_loses_or_never_wins_gets_a_finite_rating_and_a_wide_interval():
    # a always first, c always last: the likelihood alone has no maximum; the prior gives one.
    counts = stage_counts([((0, 1, 2), 40), ((0, 2, 1), 0)], 3)
    fitted = fit(counts.incidence(), counts.set_games, counts.wins)
    assert np.all(np.isfinite(fitted.theta)) and fitted.theta[0] > fitted.theta[1] > fitted.theta[2]
    ratings = ratings_of(("a", "b", "c"), fitted)
    assert all(math.isfinite(r.rating) and r.margin > 100 for r in ratings.bots.values())


def test_groups_split_where_a_bot_is_significantly_below_the_first_of_its_group():
    names = ("a", "b", "c", "d")
    theta = np.array([1.0, 0.9, 0.0, -0.05])
    covariance = np.eye(4) * 0.01  # sd 0.1 each: a-b and c-d tied, b-c apart
    assert tied_groups(names, theta, covariance) == (("a", "b"), ("c", "d"))
    assert tied_groups(names, theta, np.eye(4)) == (names,)  # unsure: one group


def test_a_live_reader_refreshed_after_new_and_deleted_games_equals_a_fresh_read(tmp_path):
    store = stored_league(tmp_path / "r.db", NAMES, THETA, deals=4)  # 240 games: blocks merged once
    live = RatingsReader()
    live.read(store)
    more = stored_league(tmp_path / "more.db", NAMES, THETA, deals=8, seed=9)  # the next deals' games
    new = [row for row in more.rows() if row.deal >= 4]
    more.close()
    from tests.results.test_rating_totals import stored_again

    stored_again(store, new[:150])
    assert live.read(store) == read_ratings(store)
    with store._write() as db:  # games leave every block (a withdrawal, or a hand edit)
        db.execute("DELETE FROM games WHERE ',' || bots || ',' LIKE '%,e,%'")
    assert live.read(store) == read_ratings(store)
    assert "e" not in live.read(store).bots
    store.close()


def test_every_report_format_carries_the_ratings_groups_and_history(tmp_path):
    store = stored_league(tmp_path / "r.db", NAMES[:4], THETA[:4], deals=3)
    standings = with_ratings(compute_standings(store, NAMES, by_points_per_game=True), read_ratings(store))
    store.close()
    data = json.loads(export.to_json(standings))
    by_bot = {b["bot"]: b for b in data["bots"]}
    first = standings.bots[0]
    assert by_bot[first.bot]["rating"] == pytest.approx(first.rating)
    assert by_bot[first.bot]["rating_high"] - by_bot[first.bot]["rating_low"] == pytest.approx(2 * first.rating_margin)
    assert by_bot["e"]["rating"] is None and by_bot["e"]["rating_group"] is None  # no game yet: valid JSON
    assert data["rating_history"][-1]["games"] == standings.games and data["rating_groups"]
    assert len(data["rating_history"]) <= 200
    header, *rows = [line.split(",") for line in export.to_csv(standings).splitlines()]
    row = dict(zip(header, next(r for r in rows if r[1] == first.bot)))
    assert float(row["rating"]) == pytest.approx(first.rating) and row["rating_group"] == str(first.rating_group)
    shown = f"{first.rating:.0f} ± {first.rating_margin:.0f}"
    for text in (export.to_markdown(standings), to_html(standings)):
        assert "rating" in text and shown in text and "Rating groups" in text
    assert "Ratings as the games came in" in to_html(standings) and "<polyline" in to_html(standings)
    assert math.isnan(standings.bot("e").rating)
