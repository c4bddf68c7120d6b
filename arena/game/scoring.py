"""Scoring a game and a match (R54-R57): placement points, the pot, loser counts, next dealer."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from arena.game.outcome import EndReason, Outcome
from arena.game.rules import NextDealer, Rules, Scoring


def placement_points(outcome: Outcome, n: int) -> tuple[int, ...]:
    """R54: the k-th player out scores n - k; the skitgubbe scores 0."""
    points = [0] * n
    for k, seat in enumerate(outcome.finishing_order, start=1):
        points[seat] = n - k
    return tuple(points)


def game_points(outcome: Outcome, rules: Rules) -> tuple[int, ...]:
    """Points per seat for one game under the rules' scoring, with no pot carried in.

    placement: n - k for the k-th out (R54); pot: net chips, the first out taking the
    whole pot of n antes (R55; a capped game in which nobody went out refunds nobody: every
    seat is down one ante and the pot carries over; see pot_is_won); loser_count: -1 for the
    skitgubbe (R56), so that more is always better.
    """
    n = rules.num_players
    if rules.scoring is Scoring.PLACEMENT:
        return placement_points(outcome, n)
    if rules.scoring is Scoring.LOSER_COUNT:
        return tuple(-1 if seat == outcome.skitgubbe else 0 for seat in range(n))
    chips = [-rules.ante] * n
    if pot_is_won(outcome):
        chips[outcome.first_out] += rules.ante * n
    return tuple(chips)


def pot_is_won(outcome: Outcome) -> bool:
    """R55: the pot goes to the first player to go out. A capped game (R51) in which nobody went
    out leaves it on the table. A forfeited game (R53) pays it to the first of the finishing
    order, by cards held if nobody went out (our decision, docs/rules.md section 7): otherwise
    a fault would cost its bot no more than an ante, like everyone else at the table."""
    return outcome.went_out > 0 or outcome.reason is EndReason.FORFEIT


def first_dealer(match_seed: int, n: int) -> int:
    """R6: the first dealer is a seat chosen by the match's seeded RNG."""
    return random.Random(match_seed).randrange(n)


@dataclass(slots=True)
class MatchScore:
    """Running totals of one match at one table (R54-R57)."""

    rules: Rules
    dealer: int
    totals: list[int] = field(default_factory=list)
    games_played: int = 0
    pot: int = 0  # chips on the table, carried over from games that nobody won (R55)
    last_change: tuple[int, ...] = ()  # each seat's change from the latest game, pot included

    def __post_init__(self) -> None:
        if not self.totals:
            self.totals = [0] * self.rules.num_players

    def record(self, outcome: Outcome) -> tuple[int, ...]:
        """Add one game's result; returns each seat's change and moves the deal on (R57)."""
        rules, n = self.rules, self.rules.num_players
        self.games_played += 1
        if rules.scoring is Scoring.POT:
            self.pot += rules.ante * n
            delta = [-rules.ante] * n
            if pot_is_won(outcome):
                delta[outcome.first_out] += self.pot
                self.pot = 0
        else:
            delta = list(game_points(outcome, rules))
        for seat in range(n):
            self.totals[seat] += delta[seat]
        self.last_change = tuple(delta)
        if rules.next_dealer is NextDealer.LOSER:
            self.dealer = outcome.skitgubbe
        else:
            self.dealer = (self.dealer + 1) % n
        return tuple(delta)

    @property
    def is_over(self) -> bool:
        """placement: a total reached the target and one player leads, or max_games (R54);
        pot and loser_count: `games` games played (R55, R56)."""
        rules = self.rules
        if rules.scoring is not Scoring.PLACEMENT:
            return self.games_played >= rules.games
        if self.games_played >= rules.max_games:
            return True
        best = max(self.totals)
        return best >= rules.effective_target_points and self.totals.count(best) == 1

    @property
    def winners(self) -> tuple[int, ...]:
        """The seat(s) with the best total; several only when R54's tie survives max_games."""
        best = max(self.totals)
        return tuple(seat for seat, total in enumerate(self.totals) if total == best)
