"""The Plackett-Luce fit (arena/results/plackett_luce.py) equals reference fits on small data:
choix's (the rankings one by one, scipy's Newton-CG) and scipy's trust-exact solver on the
likelihood written out game by game, to 1e-6; self-play counts a bot twice in a stage's set."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from arena.results.plackett_luce import PRIOR_SD, fit, stage_counts
from tests.results.league_support import league_orders

choix = pytest.importorskip("choix")
optimize = pytest.importorskip("scipy.optimize")


def _orders(seed: int, bots: int, games: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return league_orders(rng.normal(0, 1, bots), games, rng)


def _counts(orders: np.ndarray, bots: int):
    found: dict[tuple[int, ...], int] = {}
    for order in map(tuple, orders.tolist()):
        found[order] = found.get(order, 0) + 1
    return stage_counts(list(found.items()), bots)


@pytest.mark.parametrize("seed, bots, games", [(1, 4, 60), (2, 6, 150), (3, 5, 25)])
def test_the_fit_equals_choix_on_small_data(seed, bots, games):
    orders = _orders(seed, bots, games)
    counts = _counts(orders, bots)
    ours = fit(counts.incidence(), counts.set_games, counts.wins)
    # choix's penalty alpha * sum(theta^2) is our prior's theta^2 / (2 PRIOR_SD^2).
    reference = choix.opt_rankings(bots, orders.tolist(), alpha=1 / (2 * PRIOR_SD**2), tol=1e-12)
    assert np.max(np.abs(ours.theta - reference)) < 1e-6


def _game_by_game(theta: np.ndarray, orders: list[tuple[int, ...]]) -> float:
    """The negative log-posterior written out for each game's each stage."""
    value = np.sum(theta**2) / (2 * PRIOR_SD**2)
    for order in orders:
        for stage in range(len(order) - 1):
            rest = order[stage:]
            value -= theta[order[stage]] - math.log(sum(math.exp(theta[bot]) for bot in rest))
    return value


def test_the_fit_and_its_covariance_equal_scipy_on_the_likelihood_game_by_game_with_self_play():
    # Bot 0 sits twice at some tables (self-play): it stands twice in those stages' sets.
    rng = np.random.default_rng(4)
    orders = [tuple(int(x) for x in rng.permutation(table))
              for table in itertools.islice(itertools.cycle([(0, 0, 1), (0, 1, 2), (1, 2, 3), (0, 2, 3)]), 80)]
    counts = stage_counts([(order, 1) for order in orders], 4)
    ours = fit(counts.incidence(), counts.set_games, counts.wins)
    reference = optimize.minimize(_game_by_game, np.zeros(4), args=(orders,), method="BFGS", options={"gtol": 1e-10})
    assert np.max(np.abs(ours.theta - reference.x)) < 1e-6
    # The covariance is the inverse of the Hessian of that same function, by finite differences.
    step, hessian = 1e-4, np.zeros((4, 4))
    for i, j in itertools.product(range(4), repeat=2):
        shifts = [np.eye(4)[i] * step * a + np.eye(4)[j] * step * b for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1))]
        values = [_game_by_game(ours.theta + shift, orders) for shift in shifts]
        hessian[i, j] = (values[0] - values[1] - values[2] + values[3]) / (4 * step * step)
    assert np.max(np.abs(ours.covariance - np.linalg.inv(hessian))) < 1e-4


def test_a_bot_without_a_game_is_not_rated():
    counts = stage_counts([((0, 1, 2), 5), ((2, 1, 0), 5)], 4)
    fitted = fit(counts.incidence(), counts.set_games, counts.wins)
    assert list(fitted.rated) == [True, True, True, False] and math.isnan(fitted.theta[3])
    assert fitted.covariance.shape == (3, 3)
