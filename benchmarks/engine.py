"""Engine speed: random games in process on one core; prints games/s, moves/s, mean moves per game.

Goal (issue 2): at least 1,000 complete games per second on one core of the project machine.
Usage: python benchmarks/engine.py [GAMES] [--rule OPTION=VALUE ...]
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from arena.game import EndReason, Rules  # noqa: E402
from arena.play.selfplay import play_random_game  # noqa: E402


def main(argv: list[str]) -> None:
    games = 3000
    options: dict[str, str] = {}
    args = iter(argv)
    for arg in args:
        if arg == "--rule":
            key, _, value = next(args).partition("=")
            options[key] = value
        else:
            games = int(arg)
    rules = Rules.from_options(options)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core, as the goal says
    for seed in range(50):  # warm up caches (interned run moves) before timing
        play_random_game(rules, seed, 0)
    moves = capped = 0
    started = time.perf_counter()
    for seed in range(games):
        game = play_random_game(rules, seed, seed % rules.num_players)
        moves += len(game.moves)
        capped += game.outcome.reason is EndReason.CAPPED
    elapsed = time.perf_counter() - started
    print(f"rules: {rules.changed_options() or 'defaults'}")
    print(f"games: {games}  time: {elapsed:.2f} s")
    print(f"games per second: {games / elapsed:,.0f}")
    print(f"moves per second: {moves / elapsed:,.0f}")
    print(f"mean moves per game: {moves / games:.1f}")
    print(f"capped games: {capped} ({100 * capped / games:.2f}%)")


if __name__ == "__main__":
    main(sys.argv[1:])
