"""Early stopping: the sequential probability ratio test (SPRT) of a gauntlet's challenger.

The question: is the challenger better than its baseline by at least `delta1` points per game
(H1), or by no more than `delta0` (H0)? With two challengers, the baseline is the second one (an
author's new version against the old): both meet the same field with the same cards, so each deal
gives a paired difference. With one, the baseline is the field, the other seats of its tables.

The statistic. The unit is the deal set (every game of one deal: all the challengers' tables, all
seatings), as for the standings' interval, since those games share their cards. Deal set i gives
x_i = challenger's mean points per game in it minus the baseline's. Taking the x_i as independent
and normal with a common variance, estimated by their sample variance s^2 (the normal
approximation fastchess also makes, on game pairs), the log-likelihood ratio of H1: mean = delta1
against H0: mean = delta0 after n deal sets is

    LLR = n (delta1 - delta0) (mean(x) - (delta0 + delta1) / 2) / s^2

and the test accepts H1 once LLR >= log((1 - beta) / alpha), H0 once LLR <= log(beta / (1 - alpha))
(Wald's bounds: 2.94 and -2.94 at alpha = beta = 0.05). It is checked after each deal set, in deal
order, and decides only from MIN_DEAL_SETS on, so that s^2 means something: the same deals then
give the same decision at the same deal, whatever the number of workers or the order games ended.
tests/results/test_sprt.py shows by simulation that the error rates are near alpha and beta: over
2,000 simulated tests each, 0.0485 and 0.0505 at alpha = beta = 0.05 (from 10 deal sets on they were
0.059 and 0.077: s^2 from few deal sets is too often small).

Assumptions: deal sets independent (their deals are); x_i roughly normal (a mean over a deal set's
games, six at a table of three); the variance the same under H0 and H1."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

MIN_DEAL_SETS = 20
# A variance (and a distance from the midpoint) this small is none: sums of floats leave crumbs.
NO_SPREAD = 1e-12

H1, H0, UNDECIDED = "H1", "H0", ""


@dataclass(frozen=True)
class SprtSettings:
    delta1: float  # the smallest improvement worth finding, points per game
    delta0: float = 0.0
    alpha: float = 0.05  # the chance of accepting H1 when H0 holds
    beta: float = 0.05  # the chance of accepting H0 when H1 holds

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))


@dataclass(frozen=True)
class SprtState:
    """Where the test stands after the deal sets seen, in deal order."""

    settings: SprtSettings
    challenger: str
    baseline: str  # the other challenger's name, or "the field"
    llr: float = 0.0
    deal_sets: int = 0  # used: up to the deciding one, else all complete ones in a row
    games: int = 0  # the tournament's games in those deal sets
    mean_difference: float = math.nan  # points per game, challenger minus baseline
    decision: str = UNDECIDED

    @property
    def decided(self) -> bool:
        return self.decision != UNDECIDED

    @property
    def no_spread(self) -> bool:
        """Every deal set gave the same difference: the LLR is infinite."""
        return math.isinf(self.llr)

    def llr_text(self) -> str:
        """The LLR as reports write it: two decimals, or "-inf"/"+inf" with no spread."""
        return f"{self.llr:+.0f}" if self.no_spread else f"{self.llr:.2f}"

    def sentence(self) -> str:
        """The run's last word on the test."""
        s = self.settings
        games = f"after {self.deal_sets} deal sets ({self.games:,} games)"
        if self.no_spread:
            games += f", every one with the same difference ({self.mean_difference:+.3f} points per game)"
        if self.decision == H1:
            return (f"H1 accepted: {self.challenger} is better than {self.baseline} by at least {s.delta1:g} points per "
                    f"game (LLR {self.llr_text()} >= {s.upper:.2f}) {games}")
        if self.decision == H0:
            return (f"H0 accepted: {self.challenger} is not better than {self.baseline} by {s.delta1:g} points per game "
                    f"or more (LLR {self.llr_text()} <= {s.lower:.2f}) {games}")
        if self.deal_sets < MIN_DEAL_SETS:
            return (f"undecided: LLR {self.llr_text()} {games}; the test decides from {MIN_DEAL_SETS} deal sets on, "
                    f"at {s.lower:.2f} (H0) or {s.upper:.2f} (H1)")
        return f"undecided: LLR {self.llr_text()}, between {s.lower:.2f} and {s.upper:.2f}, {games}"

    def as_dict(self) -> dict:
        s = self.settings
        return {"challenger": self.challenger, "baseline": self.baseline, "delta0": s.delta0, "delta1": s.delta1,
                "alpha": s.alpha, "beta": s.beta,
                # JSON has no infinity: with no spread the LLR is null, and no_spread says why.
                "llr": None if self.no_spread else self.llr, "no_spread": self.no_spread, "lower": s.lower, "upper": s.upper,
                "deal_sets": self.deal_sets, "games": self.games,
                "mean_difference": None if math.isnan(self.mean_difference) else self.mean_difference,
                "decision": self.decision or "undecided", "sentence": self.sentence()}


def llr(n: int, total: float, squares: float, settings: SprtSettings) -> float:
    """The LLR after n differences with this sum and sum of squares (0 until it can be estimated).

    Every difference the same (identical deterministic challengers on the same cards give 0 on
    every deal set): no spread, so the evidence for the side of the midpoint the mean is on has
    no bound, and the LLR is infinite that way; the test decides at MIN_DEAL_SETS instead of
    dividing by zero or waiting for the deals to run out."""
    if n < 2:
        return 0.0
    d0, d1 = settings.delta0, settings.delta1
    variance = (squares - total * total / n) / (n - 1)
    above_midpoint = total / n - (d0 + d1) / 2
    if variance <= NO_SPREAD:
        return 0.0 if abs(above_midpoint) <= NO_SPREAD else math.copysign(math.inf, above_midpoint)
    return n * (d1 - d0) * above_midpoint / variance


def run_test(differences: Iterable[tuple[float, int]], settings: SprtSettings, challenger: str, baseline: str) -> SprtState:
    """The test over (difference, games) per deal set, in deal order: stops at the first decision."""
    n, total, squares, games = 0, 0.0, 0.0, 0
    state = SprtState(settings, challenger, baseline)
    for difference, deal_games in differences:
        n += 1
        total += difference
        squares += difference * difference
        games += deal_games
        value = llr(n, total, squares, settings)
        decision = UNDECIDED
        if n >= MIN_DEAL_SETS:
            decision = H1 if value >= settings.upper else H0 if value <= settings.lower else UNDECIDED
        state = SprtState(settings, challenger, baseline, value, n, games, total / n, decision)
        if decision:
            break
    return state


__all__ = ["MIN_DEAL_SETS", "H0", "H1", "SprtSettings", "SprtState", "llr", "run_test"]
