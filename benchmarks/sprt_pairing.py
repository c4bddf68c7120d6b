"""How much paired cards narrow a gauntlet's SPRT: the variance of the per-deal-set difference
between two challengers when their tables share the cards (the seeds a gauntlet uses now:
the field's names and the challenger's slot) and when each table has its own (the seeds named
every bot, as before issue 33).

In process, no subprocess: the gauntlet's real schedule (arena.schedule.tables.gauntlet) under
both seed schemes, each game dealt by the engine, the challengers and the field played by
Python players (bots/heuristic_bot's choose(); a "noisy" heuristic that plays a random legal
move at a given rate; random players seeded by the game's key, as random_bot seeds by game; a
deterministic "lowest" player: draw when it may, else its lowest card, pick up only when it must).
The difference per deal set is the one the SPRT reads (arena/tournament/early_stop.py): the
challenger's mean points per game minus the other challenger's, over all their games of that deal.

Usage: python benchmarks/sprt_pairing.py [--deals 150] [--seed 1]
Prints, per scenario, the mean and variance of the difference under each scheme and their ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # bots_strength, also when a test loads this file by path

from arena.game import Game, Rules  # noqa: E402
from arena.schedule.games import SEEDS_BY_BOTS, SEEDS_BY_FIELD  # noqa: E402
from arena.schedule.tables import gauntlet  # noqa: E402
from bots_strength import load_heuristic, request_line  # noqa: E402

H = load_heuristic()


def _heuristic(game: Game, moves, rng: random.Random, noise: float):
    if noise and rng.random() < noise:
        return rng.choice(moves)
    _, tokens, fields = H.parse_request(request_line(game, 1, moves))
    return moves[tokens.index(H.choose(fields, tokens))]


RANKS = "23456789TJQKA"


def _lowest(game: Game, moves, rng: random.Random):
    """Deterministic and modest: draw when it may, else the lowest card, pick up only when it must."""
    _, tokens, _ = H.parse_request(request_line(game, 1, moves))

    def cost(token: str) -> tuple[int, int]:
        if token == "draw":
            return (0, 0)
        if token in ("pickup", "chance"):
            return (2, 0)
        return (1, RANKS.find(token[0]) if token[0] in RANKS else 99)

    return moves[min(range(len(tokens)), key=lambda i: cost(tokens[i]))]


PLAYERS = {
    "heuristic": lambda game, moves, rng: _heuristic(game, moves, rng, 0.0),
    "noisy": lambda game, moves, rng: _heuristic(game, moves, rng, 0.3),
    "random": lambda game, moves, rng: rng.choice(moves),
    "lowest": _lowest,
}


def differences(kinds: dict[str, str], deals: int, seed: int, seeds: str) -> list[float]:
    """The per-deal-set difference, first challenger minus second, of a gauntlet of `kinds`
    (name -> player kind; the first two are the challengers) at tables of three."""
    names = list(kinds)
    rules = Rules()
    sums: dict[tuple[str, int], list[float]] = {}
    for table in gauntlet(names, 2, 3, deals, seed, seeds=seeds):
        for spec in table.games:
            game = Game.new(rules, seed=spec.seed, dealer=spec.dealer)
            rngs = [random.Random(f"{spec.key}/{seat}") for seat in range(3)]  # each game its own, as bots seed by game
            while not game.is_over:
                seat = game.to_act
                game.apply(PLAYERS[kinds[spec.bots[seat]]](game, game.legal_moves(), rngs[seat]))
            for seat, name in enumerate(spec.bots):
                if name in names[:2]:
                    acc = sums.setdefault((name, spec.deal), [0.0, 0])
                    acc[0] += 2 - game.outcome.place_of(seat)  # placement points at three (R54)
                    acc[1] += 1
    return [sums[(names[0], d)][0] / sums[(names[0], d)][1] - sums[(names[1], d)][0] / sums[(names[1], d)][1]
            for d in range(deals)]


SCENARIOS = {
    "two identical heuristics, deterministic field": {"a": "heuristic", "b": "heuristic", "f1": "lowest",
                                                      "f2": "heuristic"},
    "heuristic vs lowest-card, deterministic field": {"a": "heuristic", "b": "lowest", "f1": "lowest",
                                                      "f2": "heuristic"},
    "heuristic vs noisy heuristic, random field": {"a": "heuristic", "b": "noisy", "f1": "random", "f2": "random"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    for title, kinds in SCENARIOS.items():
        paired = differences(kinds, args.deals, args.seed, SEEDS_BY_FIELD)
        unpaired = differences(kinds, args.deals, args.seed, SEEDS_BY_BOTS)
        vp, vu = statistics.variance(paired), statistics.variance(unpaired)
        ratio = f"{vu / vp:.1f}x smaller" if vp > 0 else "zero (the test decides at once)"
        print(f"{title}: {args.deals} deal sets; mean difference paired {statistics.mean(paired):+.3f}, "
              f"unpaired {statistics.mean(unpaired):+.3f}; variance paired {vp:.4f}, unpaired {vu:.4f}: {ratio}")
    print(f"sprt_pairing: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
