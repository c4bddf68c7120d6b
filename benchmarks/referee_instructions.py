"""Referee cost per move against the engine step, counted in instructions rather than time.

benchmarks/referee.py times the referee; on a shared machine its figure moves by 20-50% from run
to run. This script counts the instructions each part executes instead (valgrind's cachegrind,
which this figure needs: Debian `apt-get install valgrind`), so that two versions of the code can
be compared to the percent. It runs this file under cachegrind once per part, over the same
random games, and subtracts: nothing (start-up and the games' making), the engine alone, the
engine plus the request and event lines, and the referee against instant scripted bots.
Instructions are not time: the referee's code runs at fewer instructions per cycle than the
engine's tight loop, so its wall-clock ratio (referee.py) is higher.
Usage: python benchmarks/referee_instructions.py [GAMES]
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from arena.game import Game, Rules  # noqa: E402
from arena.play.referee import play_game  # noqa: E402
from arena.play.seat import Seat  # noqa: E402
from arena.protocol.request_writer import RequestWriter  # noqa: E402
from referee import ScriptedBot, random_games  # noqa: E402  (benchmarks/referee.py)

PARTS = ("nothing", "engine", "lines", "scripts", "referee")


def run_part(part: str, games: int) -> None:
    """Play the games as `part` says; the parts differ only in what they add per move."""
    rules = Rules()
    played = random_games(rules, games)
    gc.freeze()  # the games are fixtures: keep the collector from walking them in every part
    if part in ("scripts", "referee"):
        tables = []
        for number, steps in enumerate(played):
            scripts: list[list[str]] = [[] for _ in range(rules.num_players)]
            for seat, move in steps:
                scripts[seat].append(str(move))
            seats = [Seat(name=f"bot{i}", transport=ScriptedBot(scripts[i])) for i in range(rules.num_players)]
            tables.append((Game.new(rules, number, number % rules.num_players), seats))
        if part == "referee":
            for number, (game, seats) in enumerate(tables):
                play_game(game, seats, number=number + 1)
        return
    if part == "nothing":
        return
    # As referee.py's engine_seconds: the legal moves at each step (the referee asks for them),
    # then the move; the loop's own few steps count with the engine, as they do there.
    for number, steps in enumerate(played):
        game = Game.new(rules, number, number % rules.num_players)
        writer = RequestWriter(game)
        sent = 0
        for request_id, (_, move) in enumerate(steps, 1):
            legal = game.legal_moves()
            if part == "lines":
                writer.events(game.events[sent:])
                sent = len(game.events)
                writer.request(str(request_id), legal)
            game.apply(move)


def count(part: str, games: int) -> int:
    """The instructions a run of `part` executes, from cachegrind's summary."""
    result = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, os.path.abspath(__file__), "--part", part, str(games)],
        capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", result.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{result.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv: list[str]) -> None:
    if argv[:1] == ["--part"]:
        run_part(argv[1], int(argv[2]))
        return
    games = int(argv[0]) if argv else 60
    if shutil.which("valgrind") is None:
        raise SystemExit("needs valgrind (Debian: apt-get install valgrind); benchmarks/referee.py times the same")
    moves = sum(len(steps) for steps in random_games(Rules(), games))
    ir = {part: count(part, games) for part in PARTS}
    engine = (ir["engine"] - ir["nothing"]) / moves
    lines = (ir["lines"] - ir["engine"]) / moves
    referee = (ir["referee"] - ir["scripts"]) / moves
    print(f"games: {games}, moves: {moves:,}; instructions per move (cachegrind)")
    print(f"engine alone: {engine / 1e3:.1f}k")
    print(f"request and event lines: {lines / 1e3:.1f}k (engine + lines: {(engine + lines) / engine:.2f}x the engine)")
    print(f"referee with instant bots, engine included: {referee / 1e3:.1f}k "
          f"(the rest: {(referee - engine - lines) / 1e3:.1f}k)")
    print(f"referee/engine in instructions: {referee / engine:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
