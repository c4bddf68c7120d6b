"""Strength of bots/heuristic_bot against random players, in process (no subprocess, no protocol I/O).

Each game is dealt by the engine (arena.game); at every decision the seat's request line is
built from the real engine state by arena.protocol.format_request, parsed back by the heuristic's own parser,
and the heuristic's `choose(fields, moves)` picks the move. Seats rotate: game g puts the
heuristic in seat g % n, so every seat and dealer position is covered.

Usage: python benchmarks/bots_strength.py [GAMES=600] [--players 3] [--seed 1] [--rule OPTION=VALUE ...]
Prints, per kind of player: placement points per game (R54: n-1 for the first out .. 0 for
the skitgubbe), skitgubbe rate and first-out rate.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.game import Game, Rules  # noqa: E402
from arena.protocol import format_request  # noqa: E402
from arena.game.scoring import placement_points  # noqa: E402


def load_heuristic():
    """bots/heuristic_bot/heuristic.py as a module: its parse_request and choose, played in process."""
    spec = importlib.util.spec_from_file_location("heuristic", ROOT / "bots" / "heuristic_bot" / "heuristic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def request_line(game: Game, request_id: int, moves=None) -> str:
    """The request the seat to act would be sent (protocol.md), for `moves` (default: the legal ones)."""
    return format_request(request_id, game.view(game.to_act), game.legal_moves() if moves is None else moves)


def play_games(games: int, players: int, seed: int, heuristic_seats: int = 1, options: dict | None = None) -> dict:
    h = load_heuristic()
    rules = Rules.from_options({**(options or {}), "num_players": players})
    rng = random.Random(seed)
    stats = {kind: {"points": 0, "seatgames": 0, "skitgubbe": 0, "first": 0} for kind in ("heuristic", "random")}
    rid = 0
    capped = 0
    for g in range(games):
        game = Game.new(rules, seed=seed * 1_000_003 + g, dealer=g % players)
        smart = {(g + k) % players for k in range(heuristic_seats)}
        while not game.is_over:
            seat = game.to_act
            moves = game.legal_moves()
            if seat in smart:
                rid += 1
                _, tokens, fields = h.parse_request(request_line(game, rid))
                text = h.choose(fields, tokens)
                move = moves[tokens.index(text)]
            else:
                move = rng.choice(moves)
            game.apply(move)
        outcome = game.outcome
        capped += outcome.reason.value == "capped"
        points = placement_points(outcome, players)
        for s in range(players):
            st = stats["heuristic" if s in smart else "random"]
            st["points"] += points[s]
            st["seatgames"] += 1
            st["skitgubbe"] += outcome.skitgubbe == s
            st["first"] += outcome.first_out == s
    stats["capped"] = capped
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=600)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rule", action="append", default=[], metavar="OPTION=VALUE",
                        help="a rule option, e.g. phase1_mode=all (repeatable)")
    args = parser.parse_args()
    options = dict(r.split("=", 1) for r in args.rule)
    start = time.perf_counter()
    stats = play_games(args.games, args.players, args.seed, options=options)
    elapsed = time.perf_counter() - start
    print(f"{args.games} games, {args.players} players (1 heuristic_bot vs {args.players - 1} random_bot, "
          f"seats rotating), seed {args.seed}, {elapsed:.1f} s, {stats['capped']} capped"
          + (f"; rules {' '.join(args.rule)}" if args.rule else ""))
    for kind in ("heuristic", "random"):
        st = stats[kind]
        n = st["seatgames"]
        print(f"  {kind:9}  points/game {st['points'] / n:.3f}   skitgubbe rate {st['skitgubbe'] / n:.1%}"
              f"   first out {st['first'] / n:.1%}   ({n} seat-games)")


if __name__ == "__main__":
    main()
