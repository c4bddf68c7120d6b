"""Referee cost per move against the engine step it wraps, measured in the same run, one core.

Random games are played with the engine first. The referee then plays each of them in process
against instant scripted bots (a transport that answers each request at once with the bot's next
move of the game: no process, no pipe), so what is timed is the referee's own work per move: the
request line, the events, the reply's parsing, the faults' bookkeeping, with the engine step
inside. The engine alone plays the very same games (asking for the legal moves at each step, as
the referee does). Goal (issue 22): the
referee's cost per move at most 2.5 times the engine's. The last line reads `referee/engine: N.NNx`.
Usage: python benchmarks/referee.py [GAMES]
"""

from __future__ import annotations

import gc
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from arena.game import Game, Move, Rules  # noqa: E402
from arena.play.referee import play_game  # noqa: E402
from arena.play.seat import Seat  # noqa: E402
from arena.protocol.request_writer import RequestWriter  # noqa: E402

ROUNDS = 3


class ScriptedBot:
    """A transport whose bot answers each request at once with its next move from a script: no
    process, no pipe, and next to no work of its own (it reads only the request id), so what is
    timed is the referee's."""

    def __init__(self, script: list[str]) -> None:
        self.next_move = iter(script).__next__
        self.reply = ""

    def send(self, line: str) -> None:
        if line.startswith("request "):
            self.reply = f"move {line[8:line.index(' ', 8)]} {self.next_move()}"

    def send_many(self, lines: list[str]) -> None:
        self.send(lines[-1])  # events come first; a request, if any, is the last line

    def receive(self, timeout_s: float) -> str:
        return self.reply

    def close(self, grace_s: float = 0.0) -> None:
        pass


def random_games(rules: Rules, games: int) -> list[list[tuple[int, Move]]]:
    """Games of random legal moves, as (seat to act, move) pairs: the script both sides follow."""
    played = []
    for number in range(games):
        pick = random.Random(number).random
        game = Game.new(rules, number, number % rules.num_players)
        steps = []
        while game.outcome is None:
            legal = game.legal_moves()
            move = legal[int(pick() * len(legal))]
            steps.append((game.to_act, move))
            game.apply(move)
        played.append(steps)
    return played


def referee_seconds(rules: Rules, played: list[list[tuple[int, Move]]]) -> float:
    """The referee plays every game against scripted bots that make the game's moves."""
    elapsed = 0.0
    for number, steps in enumerate(played):
        game = Game.new(rules, number, number % rules.num_players)
        scripts: list[list[str]] = [[] for _ in range(rules.num_players)]
        for seat, move in steps:
            scripts[seat].append(str(move))
        seats = [Seat(name=f"bot{i}", transport=ScriptedBot(scripts[i])) for i in range(rules.num_players)]
        started = time.perf_counter()
        play_game(game, seats, number=number + 1)
        elapsed += time.perf_counter() - started
        assert len(game.moves) == len(steps) and game.outcome.forfeited_seat is None, "the referee left the script"
    return elapsed


def engine_seconds(rules: Rules, played: list[list[tuple[int, Move]]]) -> float:
    """The same games, engine only: the legal moves at each step (as the referee asks), then the move."""
    elapsed = 0.0
    for number, steps in enumerate(played):
        moves = [move for _, move in steps]
        game = Game.new(rules, number, number % rules.num_players)
        started = time.perf_counter()
        for move in moves:
            game.legal_moves()
            game.apply(move)
        elapsed += time.perf_counter() - started
    return elapsed


def lines_seconds(rules: Rules, played: list[list[tuple[int, Move]]]) -> float:
    """The same games, engine plus the request and event lines the referee writes (no bots, no
    faults' bookkeeping): what the protocol's text costs on its own."""
    elapsed = 0.0
    for number, steps in enumerate(played):
        moves = [move for _, move in steps]
        game = Game.new(rules, number, number % rules.num_players)
        writer = RequestWriter(game)
        events = game.events
        started = time.perf_counter()
        sent = 0
        for request_id, move in enumerate(moves, 1):
            lines = writer.events(events[sent:])  # as the referee writes them: one lookup each, no loop
            sent = len(events)
            lines.append(writer.request(request_id, game.legal_moves()))
            game.apply(move)
        elapsed += time.perf_counter() - started
    return elapsed


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 1000
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    rules = Rules()
    played = random_games(rules, games)
    # The scripts are fixtures, not the referee's: keep the garbage collector from walking them
    # (a referee in a tournament worker holds one game, not a thousand).
    gc.freeze()
    referee_seconds(rules, played[:50])  # warm up
    # Alternated rounds, the best of each: this machine is shared, and a slow spell should hit
    # both sides rather than one.
    referee_s = engine_s = lines_s = float("inf")
    for _ in range(ROUNDS):
        referee_s = min(referee_s, referee_seconds(rules, played))
        engine_s = min(engine_s, engine_seconds(rules, played))
        lines_s = min(lines_s, lines_seconds(rules, played))
    moves = sum(len(steps) for steps in played)
    referee_us, engine_us, lines_us = (1e6 * seconds / moves for seconds in (referee_s, engine_s, lines_s))
    print(f"games: {games}, moves: {moves:,}, best of {ROUNDS} alternated rounds, one core")
    print(f"engine alone: {engine_us:.1f} us per move ({moves / engine_s:,.0f} moves/s)")
    print(f"referee with instant bots: {referee_us:.1f} us per move ({moves / referee_s:,.0f} moves/s)")
    print(f"the referee's own work: {referee_us - engine_us:.1f} us per move, of which")
    print(f"  the request and event lines alone: {lines_us - engine_us:.1f} us (engine + lines: "
          f"{lines_us / engine_us:.2f}x the engine)")
    print(f"  the rest (sending, reading the answer, time limits, fault bookkeeping): {referee_us - lines_us:.1f} us")
    print(f"referee/engine: {referee_us / engine_us:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
