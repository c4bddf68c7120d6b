"""The Plackett-Luce fit: each bot's strength from counts of finishing orders, order-free (pure numpy).

A game of n bots is n - 1 choices (Luce's stages): the first out is chosen from all n, the second
from the n - 1 left, and so on, each bot with a chance proportional to its strength exp(theta).
The likelihood of a set of games depends on them only through counts: per bot, the stages it won
(`wins`), and per set of bots still in play at a stage, how often that set was met (`set_games`).
A set is a multiset of bots: a bot at two seats (self-play) stands in it twice.

The fit is the maximum a posteriori estimate under a Gaussian prior N(0, PRIOR_SD^2) on each
theta: the likelihood alone has no maximum for a bot that never won or never lost (its theta runs
off to infinity), as BayesElo's virtual draws also settle. The prior is weak: its weight is that of
about one game between equal bots, so with a few dozen games the data decide. The log-posterior
is strictly concave, and Newton's method with the exact Hessian (a few lines of numpy) reaches its
maximum in a handful of steps; scipy.optimize's trust-exact solver reaches the same point
(tests/results/test_plackett_luce.py holds it to choix and scipy to 1e-6) but its import alone
takes 0.6 s and 60 MB, more than a whole report may (benchmarks/standings.py measures both).

The covariance is the inverse of the negative Hessian at the maximum (the observed information,
prior included): the sampling variance of each theta and of each difference between two bots."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PRIOR_SD = 2.0  # of each bot's log-strength, in natural units (about 350 rating points)
# The fit has converged once a step moved no theta by more than this: Newton's steps shrink
# quadratically, so the next would move them by about its square.
STEP_TOLERANCE = 1e-7
_MAX_STEPS = 100


@dataclass(frozen=True)
class StageCounts:
    """The counts a fit needs: `sets[k]` is a set of bot indices (sorted, with repeats), met
    `set_games[k]` times; `wins[i]`: stages bot i won."""

    bot_count: int
    sets: tuple[tuple[int, ...], ...]
    set_games: np.ndarray  # (len(sets),) counts
    wins: np.ndarray  # (bot_count,) counts

    def incidence(self) -> np.ndarray:
        """(len(sets), bot_count): how many times each bot stands in each set."""
        matrix = np.zeros((len(self.sets), self.bot_count))
        for row, members in enumerate(self.sets):
            for bot in members:
                matrix[row, bot] += 1
        return matrix


@dataclass(frozen=True)
class Fit:
    """The fitted log-strengths of the bots that played (`rated[i]`; the others' theta is nan) and
    their covariance (rated bots only, in the order of `rated`'s True entries)."""

    theta: np.ndarray  # (bot_count,)
    covariance: np.ndarray  # (r, r), r = rated.sum()
    rated: np.ndarray  # (bot_count,) bool
    steps: int  # Newton steps taken


def fit(incidence: np.ndarray, set_games: np.ndarray, wins: np.ndarray, prior_sd: float = PRIOR_SD,
        start: np.ndarray | None = None, covariance: bool = True, tolerance: float = STEP_TOLERANCE) -> Fit:
    """The MAP fit (module docstring) of counts over sets whose bots are `incidence`'s columns;
    `start`: thetas to start from (a nearby fit's: fewer steps to the same maximum), else zeros;
    without `covariance` (a point of a history) its matrix is left empty; `tolerance`: the step
    below which it stops (a chart's point needs less than the ratings)."""
    bot_count = incidence.shape[1]
    used = set_games > 0
    matrix, games = incidence[used], set_games[used].astype(float)
    rated = (matrix.T @ games) > 0
    matrix = matrix[:, rated]
    won = wins[rated].astype(float)
    precision = 1.0 / prior_sd**2
    theta = np.zeros(matrix.shape[1]) if start is None else np.nan_to_num(start[rated])
    steps = 0
    if theta.size:
        value, gradient, hessian = _terms(theta, matrix, games, won, precision)
        for steps in range(1, _MAX_STEPS + 1):
            step = np.linalg.solve(hessian, gradient)
            while True:  # Newton's step, halved while it does not raise the log-posterior
                trial = theta + step
                trial_value, trial_gradient, trial_hessian = _terms(trial, matrix, games, won, precision)
                if trial_value >= value - 1e-12 * abs(value) or np.max(np.abs(step)) < tolerance:
                    break
                step = step / 2
            theta, value, gradient, hessian = trial, trial_value, trial_gradient, trial_hessian
            if np.max(np.abs(step)) < tolerance:
                break
    full_covariance = np.linalg.inv(hessian) if theta.size and covariance else np.zeros((0, 0))
    full = np.full(bot_count, np.nan)
    full[rated] = theta
    return Fit(full, full_covariance, rated, steps)


def _terms(theta: np.ndarray, matrix: np.ndarray, games: np.ndarray, won: np.ndarray,
           precision: float) -> tuple[float, np.ndarray, np.ndarray]:
    """The log-posterior at `theta`, its gradient, and its negative Hessian (positive definite)."""
    top = theta.max()
    strength = np.exp(theta - top)  # shifted: every stage's probabilities are ratios of strengths
    totals = matrix @ strength
    chance = matrix * strength / totals[:, None]  # each bot's chance to win each set's stage
    value = float(won @ theta - games @ (np.log(totals) + top) - precision * theta @ theta / 2)
    weighted = chance * games[:, None]
    expected = weighted.sum(axis=0)
    gradient = won - expected - precision * theta
    hessian = -(chance.T @ weighted)
    hessian.flat[::theta.size + 1] += expected + precision
    return value, gradient, hessian


def stage_counts(orders: list[tuple[tuple[int, ...], int]], bot_count: int) -> StageCounts:
    """The counts of games given as (bot indices in finishing order, games): for tests and small data."""
    set_games: dict[tuple[int, ...], int] = {}
    wins = np.zeros(bot_count, dtype=np.int64)
    for order, games in orders:
        for stage in range(len(order) - 1):
            wins[order[stage]] += games
            members = tuple(sorted(order[stage:]))
            set_games[members] = set_games.get(members, 0) + games
    sets = tuple(sorted(set_games))
    return StageCounts(bot_count, sets, np.array([set_games[s] for s in sets], dtype=np.int64), wins)


__all__ = ["PRIOR_SD", "STEP_TOLERANCE", "StageCounts", "Fit", "fit", "stage_counts"]
