"""Games between built-in random players, in process: a smoke test of the engine and of rule options."""

from __future__ import annotations

import random
from dataclasses import dataclass

from arena.game import EndReason, Game, Rules
from arena.game.seeds import derive_seed


@dataclass(frozen=True, slots=True)
class SelfplaySummary:
    games: int
    total_moves: int
    capped_games: int
    places_by_seat: tuple[tuple[int, ...], ...]  # [seat][place-1] -> count
    rules: Rules

    @property
    def mean_moves(self) -> float:
        return self.total_moves / self.games if self.games else 0.0


def play_random_game(rules: Rules, seed: int, dealer: int) -> Game:
    """One game where every decision is a uniformly random legal move from a generator seeded
    by `seed` (the deal uses `seed` too, so the game is fully reproducible)."""
    game = Game.new(rules, seed, dealer)
    chooser = random.Random(seed ^ 0x5EED)
    pick = chooser.random
    while game.outcome is None:
        moves = game.legal_moves()
        game.apply(moves[int(pick() * len(moves))])
    return game


def selfplay(rules: Rules, games: int, seed: int) -> SelfplaySummary:
    n = rules.num_players
    places = [[0] * n for _ in range(n)]
    total_moves = capped = 0
    for index in range(games):
        game = play_random_game(rules, derive_seed(seed, "selfplay", index), index % n)
        outcome = game.outcome
        assert outcome is not None  # played to its end
        total_moves += len(game.moves)
        capped += outcome.reason is EndReason.CAPPED
        for place, seat in enumerate(outcome.finishing_order):
            places[seat][place] += 1
    return SelfplaySummary(games, total_moves, capped, tuple(tuple(p) for p in places), rules)
