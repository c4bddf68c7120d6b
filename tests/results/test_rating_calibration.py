"""The ratings' intervals are calibrated (arena/results/ratings.py): on 200 simulated leagues of
12 bots with known strengths, 3,000 games each at tables of three with Plackett-Luce finishing
orders, the 95% intervals hold the true rating 93-97% of the time, and where two bots' intervals
do not overlap the fitted order is the true one. The leagues are drawn with numpy, all at once."""

from __future__ import annotations

import numpy as np
import pytest

from arena.results.plackett_luce import fit, stage_counts
from arena.results.ratings import ANCHOR, POINTS_PER_UNIT, ratings_of
from tests.results.league_support import league_orders

LEAGUES, BOTS, GAMES = 200, 12, 3_000
NAMES = tuple(f"bot{i:02d}" for i in range(BOTS))


def _league_ratings(rng: np.random.Generator):
    """One league: its true ratings (display scale, centred) and the fitted Ratings."""
    theta = rng.normal(0.0, 0.6, BOTS)  # spreads of about 100 rating points between neighbours
    orders = league_orders(theta, GAMES, rng)
    codes, counts = np.unique(orders, axis=0, return_counts=True)
    stages = stage_counts([(tuple(int(x) for x in code), int(n)) for code, n in zip(codes, counts)], BOTS)
    fitted = fit(stages.incidence(), stages.set_games, stages.wins)
    truth = ANCHOR + POINTS_PER_UNIT * (theta - theta.mean())
    return truth, ratings_of(NAMES, fitted)


@pytest.mark.slow
def test_intervals_hold_the_truth_95_percent_of_the_time_and_separated_bots_are_in_true_order():
    rng = np.random.default_rng(20240)
    held = total = separated = misordered = 0
    for _ in range(LEAGUES):
        truth, ratings = _league_ratings(rng)
        for i, name in enumerate(NAMES):
            rated = ratings.bots[name]
            held += abs(rated.rating - truth[i]) <= rated.margin
            total += 1
        for i in range(BOTS):
            for j in range(i + 1, BOTS):
                a, b = ratings.bots[NAMES[i]], ratings.bots[NAMES[j]]
                if a.rating - a.margin > b.rating + b.margin or b.rating - b.margin > a.rating + a.margin:
                    separated += 1
                    misordered += (a.rating > b.rating) != (truth[i] > truth[j])
    coverage = held / total
    assert 0.93 <= coverage <= 0.97, f"95% intervals held the truth {coverage:.1%} of {total} times"
    assert separated > LEAGUES * 10  # the test means something: many pairs are told apart
    assert misordered <= separated // 1000, f"{misordered} of {separated} separated pairs in the wrong order"
