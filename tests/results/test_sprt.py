"""The SPRT of arena/results/sprt.py: its bounds, deal order, and error rates near alpha and beta
by simulation."""

from __future__ import annotations

import math
import random

import pytest

from arena.results.sprt import H0, H1, MIN_DEAL_SETS, SprtSettings, llr, run_test

SETTINGS = SprtSettings(delta1=0.2)


def test_wald_bounds():
    assert SETTINGS.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944, abs=1e-3)
    assert SETTINGS.lower == pytest.approx(-2.944, abs=1e-3)


def test_llr_by_hand():
    xs = [0.5, -0.1, 0.3, 0.2]
    n, total, squares = len(xs), sum(xs), sum(x * x for x in xs)
    variance = (squares - total * total / n) / (n - 1)
    assert llr(n, total, squares, SETTINGS) == pytest.approx(n * 0.2 * (total / n - 0.1) / variance)
    # No spread: infinite evidence for the side of the midpoint (0.1 here) the mean is on.
    assert llr(3, 0.6, 0.12, SETTINGS) == math.inf
    assert llr(3, 0.0, 0.0, SETTINGS) == -math.inf


def test_no_decision_before_the_minimum_of_deal_sets_and_stops_at_the_first():
    strong = [(1.0 + 0.1 * (i % 3), 6) for i in range(50)]
    state = run_test(strong, SETTINGS, "new", "old")
    assert state.decision == H1 and state.deal_sets == MIN_DEAL_SETS and state.games == 6 * MIN_DEAL_SETS
    assert "H1 accepted: new is better than old by at least 0.2 points per game (LLR" in state.sentence()
    weak = [(-1.0 - 0.1 * (i % 3), 6) for i in range(50)]
    assert run_test(weak, SETTINGS, "new", "old").decision == H0


def _deal_difference(rng: random.Random, mean: float) -> float:
    """A deal set's paired difference: the mean over six games of a lumpy, skewed points
    difference (-2..2, as placement points at a table of three give), shifted to `mean`."""
    games = []
    for _ in range(6):
        x = rng.choice((-2, -1, -1, 0, 0, 0, 1, 1, 2))
        if rng.random() < abs(mean):
            x += 1 if mean > 0 else -1
        games.append(x)
    return sum(games) / 6


@pytest.mark.parametrize("true_mean, wrong, rate", [(0.0, H1, SETTINGS.alpha), (0.2, H0, SETTINGS.beta)])
def test_error_rates_are_near_alpha_and_beta(true_mean, wrong, rate):
    rng = random.Random(2026)
    runs = 600
    wrongs = 0
    for _ in range(runs):
        state = run_test(((_deal_difference(rng, true_mean), 6) for _ in range(5000)), SETTINGS, "a", "b")
        assert state.decided  # such a difference is always decided long before 5,000 deal sets
        wrongs += state.decision == wrong
    # 600 runs: a binomial standard error of about 0.009 at 0.05
    assert 0.02 <= wrongs / runs <= 0.085, f"error rate {wrongs / runs:.3f}, nominal {rate}"


def test_identical_differences_decide_h0_at_the_first_deal_set_it_may_rather_than_divide_by_zero():
    """Identical deterministic challengers on the same cards differ by 0 on every deal set."""
    settings = SprtSettings(delta1=0.1)
    state = run_test([(0.0, 12)] * 200, settings, "a", "b")
    assert state.decision == H0 and state.deal_sets == MIN_DEAL_SETS and state.no_spread
    assert "LLR -inf <= -2.94" in state.sentence() and "same difference (+0.000" in state.sentence()
    as_dict = state.as_dict()
    assert as_dict["llr"] is None and as_dict["no_spread"] is True
    import json
    json.loads(json.dumps(as_dict), parse_constant=lambda name: pytest.fail(f"{name} in JSON"))
    # the same difference every time, above the midpoint: H1; at the midpoint exactly: no evidence
    assert run_test([(0.5, 12)] * 30, settings, "a", "b").decision == H1
    assert run_test([(0.05, 12)] * 30, settings, "a", "b").decision == ""
