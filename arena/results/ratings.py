"""The bots' ratings: one Plackett-Luce fit of the finishing orders of every stored game
(arena/results/plackett_luce.py), read from the counts the results keep (rating_totals.py,
ratings_read.py), so that it is the same in every view, live or final, complete or not, however
the games were stored.

The scale: rating points as organisers know them from chess lists. A bot's rating is
ANCHOR + POINTS_PER_UNIT * theta, with the thetas centred on the rated bots' mean, so the field's
average bot is 1500. Under the model, a bot rated D points above another finishes ahead of it in
1 / (1 + 10^(-D / 400)) of the games they play together, whoever else sits at the table (Luce's
choice axiom: the order of two bots does not depend on the others): 100 points 64%, 200 points 76%.

The interval: rating ± margin, the 95% interval 1.96 standard deviations wide each way, from the
observed information (the inverse Hessian of the fit, centred as the ratings are). It is the
sampling error of the fit under the model, which the games are, deal by deal, drawn from; tested
for calibration on simulated leagues (tests/results/test_rating_calibration.py). A bootstrap over
deal sets would widen it for the dependence between the seatings of one deal, but needs the
games, not counts: every report would read every game.

The groups: bots that these games cannot tell apart. Taken in order of rating, a group starts
with the best bot not yet in one and holds each next bot not significantly below that first one
(its rating difference under 1.96 of its standard deviation, covariances counted); the next bot
that is significantly below it starts the next group. Groups are numbered from 1, the top."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from arena.results.plackett_luce import Fit

ANCHOR = 1500.0  # the rated bots' mean
POINTS_PER_UNIT = 400 / math.log(10)  # rating points per unit of log-strength (Elo's 400 per factor of ten)
Z95 = 1.959963984540054  # the normal quantile of 0.975
RATING_NOTE = ("rating: a Plackett-Luce fit of every game's finishing order, the field's average at 1500, "
               "± its 95% interval; group: bots these games cannot tell apart (1 is the top)")


@dataclass(frozen=True, slots=True)
class BotRating:
    rating: float  # on the display scale
    margin: float  # half the 95% interval's width, in rating points
    group: int  # 1 for the top group
    theta: float  # the fitted log-strength, centred


@dataclass(frozen=True)
class Ratings:
    """The fit as the reports show it, and as a league's matchmaking reads it (issue 43): each
    rated bot's rating, its interval and group; the thetas' covariance (in the order of `names`);
    the history, the fit after each block of stored games (games stored, rating by bot)."""

    bots: dict[str, BotRating] = field(default_factory=dict)
    names: tuple[str, ...] = ()
    covariance: tuple[tuple[float, ...], ...] = ()  # of the (uncentred) thetas, in log-strength units
    groups: tuple[tuple[str, ...], ...] = ()
    history: tuple[tuple[int, dict[str, float]], ...] = ()

    def variance(self, name: str) -> float:
        """The variance of a bot's theta (uncentred: the prior's share of the field's common level
        included; nan for a bot not rated)."""
        return self.covariance_of(name, name)

    def difference_variance(self, a: str, b: str) -> float:
        """The variance of theta(a) - theta(b): how sure the fit is of their order (a league's
        matchmaking weighs it; the groups test it)."""
        return self.covariance_of(a, a) + self.covariance_of(b, b) - 2 * self.covariance_of(a, b)

    def covariance_of(self, a: str, b: str) -> float:
        if a not in self.names or b not in self.names:
            return math.nan
        return self.covariance[self.names.index(a)][self.names.index(b)]


NO_RATINGS = Ratings()


def scaled(names: tuple[str, ...], fit: Fit) -> dict[str, float]:
    """Each rated bot's rating on the display scale."""
    theta = fit.theta[fit.rated]
    centre = theta.mean() if theta.size else 0.0
    return {name: float(ANCHOR + POINTS_PER_UNIT * (value - centre))
            for name, value, rated in zip(names, fit.theta, fit.rated) if rated}


def ratings_of(names: tuple[str, ...], fit: Fit, history: tuple[tuple[int, dict[str, float]], ...] = ()) -> Ratings:
    """The fit of the bots `names` (its columns) as Ratings: scale, intervals and groups."""
    rated = tuple(name for name, flag in zip(names, fit.rated) if flag)
    if not rated:
        return Ratings(history=history)
    theta = fit.theta[fit.rated]
    count = len(rated)
    centring = np.eye(count) - np.full((count, count), 1.0 / count)
    centred_sd = np.sqrt(np.maximum(np.diag(centring @ fit.covariance @ centring.T), 0.0))
    ratings = scaled(names, fit)
    groups = tied_groups(rated, theta, fit.covariance)
    group_of = {name: number for number, group in enumerate(groups, start=1) for name in group}
    bots = {name: BotRating(ratings[name], float(Z95 * POINTS_PER_UNIT * sd), group_of[name],
                            float(value - theta.mean()))
            for name, value, sd in zip(rated, theta, centred_sd)}
    covariance = tuple(tuple(float(x) for x in row) for row in fit.covariance)
    return Ratings(bots, rated, covariance, groups, history)


def tied_groups(names: tuple[str, ...], theta: np.ndarray, covariance: np.ndarray) -> tuple[tuple[str, ...], ...]:
    """The groups of the module's docstring, best first, each in order of rating."""
    order = sorted(range(len(names)), key=lambda i: (-theta[i], names[i]))
    groups: list[list[int]] = []
    for i in order:
        if groups:
            first = groups[-1][0]
            spread = covariance[first, first] + covariance[i, i] - 2 * covariance[first, i]
            if theta[first] - theta[i] <= Z95 * math.sqrt(max(spread, 0.0)):
                groups[-1].append(i)
                continue
        groups.append([i])
    return tuple(tuple(names[i] for i in group) for group in groups)


def with_ratings(standings, ratings: Ratings):
    """`standings` (results/standings.py's Standings) with each bot's rating, interval and group
    beside its figures, and the ratings whole (the ranking unchanged)."""
    bots = []
    for b in standings.bots:
        rated = ratings.bots.get(b.bot)
        bots.append(b if rated is None else dataclasses.replace(
            b, rating=rated.rating, rating_margin=rated.margin, rating_group=rated.group))
    return dataclasses.replace(standings, bots=tuple(bots), ratings=ratings)


def format_rating(rating: float, margin: float) -> str:
    """"1623 ± 41" (the 95% interval), or "n/a" for a bot without a game."""
    return "n/a" if math.isnan(rating) else f"{rating:.0f} ± {margin:.0f}"


__all__ = ["ANCHOR", "POINTS_PER_UNIT", "Z95", "RATING_NOTE", "BotRating", "Ratings", "NO_RATINGS", "scaled",
           "ratings_of", "tied_groups", "with_ratings", "format_rating"]
