"""Referee cost per move against the engine step it wraps, measured in the same run, one core.

The referee plays whole games in process against instant scripted bots (a transport that answers
each request from its own line at once: no process, no pipe), so what is timed is the referee's
own work per move: the view and the request line, the events, the reply's parsing, the faults'
bookkeeping, with the engine step inside. The engine alone then plays the very same games (the
same moves, asking for the legal moves at each step, as the referee does). Goal (issue 22): the
referee's cost per move at most 2.5 times the engine's. The last line reads `referee/engine: N.NNx`.
Usage: python benchmarks/referee.py [GAMES]
"""

from __future__ import annotations

import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from arena.game import Game, Rules  # noqa: E402
from arena.play.referee import play_game  # noqa: E402
from arena.play.seat import Seat  # noqa: E402


class InstantBot:
    """A transport whose bot answers each request at once with a random legal move of the line."""

    def __init__(self, seed: int) -> None:
        self.pick = random.Random(seed).random
        self.reply = ""

    def send(self, line: str) -> None:
        if line.startswith("request "):
            _, request_id, count, rest = line.split(" ", 3)
            legal = rest.split(" ", int(count))[:int(count)]
            self.reply = f"move {request_id} {legal[int(self.pick() * len(legal))]}"

    def send_many(self, lines: list[str]) -> None:
        self.send(lines[-1])  # events come first; a request, if any, is the last line

    def receive(self, timeout_s: float) -> str:
        return self.reply

    def close(self) -> None:
        pass


def referee_games(rules: Rules, games: int) -> tuple[list[Game], float]:
    played, elapsed = [], 0.0
    for number in range(games):
        game = Game.new(rules, number, number % rules.num_players)
        seats = [Seat(name=f"bot{i}", transport=InstantBot(number * 10 + i)) for i in range(rules.num_players)]
        started = time.perf_counter()
        play_game(game, seats, number=number + 1)
        elapsed += time.perf_counter() - started
        played.append(game)
    return played, elapsed


def engine_games(rules: Rules, played: list[Game]) -> float:
    """The same games again, engine only: legal moves at each step, then the move the bot chose."""
    elapsed = 0.0
    for number, done in enumerate(played):
        moves = list(done.moves)
        game = Game.new(rules, number, number % rules.num_players)
        started = time.perf_counter()
        for move in moves:
            game.legal_moves()
            game.apply(move)
        elapsed += time.perf_counter() - started
    return elapsed


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 1000
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    rules = Rules()
    referee_games(rules, 50)  # warm up
    played, referee_s = referee_games(rules, games)
    engine_s = min(engine_games(rules, played) for _ in range(2))
    moves = sum(len(game.moves) for game in played)
    referee_us, engine_us = 1e6 * referee_s / moves, 1e6 * engine_s / moves
    print(f"games: {games}, moves: {moves:,}")
    print(f"engine alone: {engine_us:.1f} us per move ({moves / engine_s:,.0f} moves/s)")
    print(f"referee with instant bots: {referee_us:.1f} us per move ({moves / referee_s:,.0f} moves/s)")
    print(f"the referee's own work: {referee_us - engine_us:.1f} us per move")
    print(f"referee/engine: {referee_us / engine_us:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
