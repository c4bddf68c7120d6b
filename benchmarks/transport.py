"""Match speed over real processes, and the arena's own cost per move against a raw round trip.

For pipes and for ZeroMQ ipc it prints, measured in the same run with everything pinned to
one core (the referee and its bots: wake-ups across cores cost several times more here):
  - games/s and moves/s of a match of three Python random bots (bots started once per match);
  - the raw round trip of one request-sized line to an echo process of the same kind (Python)
    over the same transport, without the arena;
  - the arena's own cost per move: the referee process's CPU time per move (engine, view,
    codec, transport syscalls; user and system apart), against the engine step alone (same
    run, random games) and against the raw round trip.
The last two lines are issue 22's goals: over pipes, arena CPU per move <= 3.5 x the engine
step; over ZeroMQ ipc, arena CPU per move <= 1.5 x the raw ZeroMQ round trip.
Usage: python benchmarks/transport.py [GAMES]
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import zmq  # noqa: E402

from pathlib import Path  # noqa: E402

from arena import protocol  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
from arena.game import Game, Rules  # noqa: E402
from arena.submission.lookup import load_manifest  # noqa: E402
from arena.play.startup import BotSettings  # noqa: E402
from arena.play.match import open_table, play_match  # noqa: E402
from arena.transport.pipe import PipeTransport  # noqa: E402
from arena.transport.zmq import ZmqTransport  # noqa: E402
from referee import engine_seconds, random_games  # noqa: E402  (benchmarks/referee.py)

PIPE_ECHO = r"""
import sys
out = sys.stdout
for line in sys.stdin:
    out.write("move 17 Kd\n")
    out.flush()
"""
ZMQ_ECHO = r"""
import os, sys, threading, zmq
threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()
s = zmq.Context().socket(zmq.ROUTER)
s.bind(os.environ["ARENA_ZMQ_ENDPOINT"])
while True:
    rid, msg = s.recv_multipart()
    s.send_multipart([rid, b"move 17 Kd"])
"""


def sample_request() -> bytes:
    """A realistic request line from the middle of a real game."""
    game = Game.new(Rules(), 7, 0)
    for _ in range(60):
        game.apply(game.legal_moves()[0])
    return (protocol.format_request(61, game.view(game.to_act), game.legal_moves()) + "\n").encode()


def raw_pipe_rtt_s(line: bytes, trips: int, argv: list[str] | None = None) -> float:
    """Seconds per round trip of `line` to a child over pipes, with none of the arena's work.
    The child is a bare Python echo by default, or the real random_bot (its own work included)."""
    child = subprocess.Popen(argv or [sys.executable, "-c", PIPE_ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    wfd, rfd = child.stdin.fileno(), child.stdout.fileno()
    for _ in range(200):
        os.write(wfd, line)
        os.read(rfd, 65536)
    started = time.perf_counter()
    for _ in range(trips):
        os.write(wfd, line)
        os.read(rfd, 65536)
    elapsed = time.perf_counter() - started
    child.stdin.close()
    child.wait()
    return elapsed / trips


def raw_zmq_rtt_s(line: bytes, trips: int) -> float:
    path = f"/tmp/bench-transport-{os.getpid()}.sock"
    env = {**os.environ, "ARENA_ZMQ_ENDPOINT": f"ipc://{path}"}
    child = subprocess.Popen([sys.executable, "-c", ZMQ_ECHO], env=env, stdin=subprocess.PIPE)
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.linger = 0
    sock.connect(f"ipc://{path}")
    payload = line.rstrip(b"\n")
    for _ in range(200):
        sock.send(payload)
        sock.recv()
    started = time.perf_counter()
    for _ in range(trips):
        sock.send(payload)
        sock.recv()
    elapsed = time.perf_counter() - started
    sock.close()
    child.stdin.close()
    child.wait()
    os.unlink(path)
    return elapsed / trips


def transport_rtt_s(transport, line: bytes, trips: int) -> float:
    """The same round trip through a Transport object (its own cost, without the referee's)."""
    text = line.decode().rstrip("\n")
    for _ in range(200):
        transport.send(text)
        transport.receive(5.0)
    started = time.perf_counter()
    for _ in range(trips):
        transport.send(text)
        transport.receive(5.0)
    elapsed = time.perf_counter() - started
    transport.close()
    return elapsed / trips


def match_figures(bot: str, games: int) -> dict[str, float]:
    manifest = load_manifest(bot)
    rules = Rules()
    start_wall = time.perf_counter()
    with open_table([manifest] * 3, BotSettings()) as seats:
        started_s = time.perf_counter() - start_wall
        before, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        result = play_match(seats, rules, seed=1, games=games)
        after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall0
    moves = sum(r.moves for r in result.records)
    faults = sum(len(r.faults) for r in result.records)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return {"games": games, "moves": moves, "wall": wall, "cpu": user + system, "user": user, "system": system,
            "startup": started_s, "faults": faults}


def engine_step_s(games: int = 300) -> float:
    """The engine's own step (legal moves, then the move) per move, over random games."""
    rules = Rules()
    played = random_games(rules, games)
    return min(engine_seconds(rules, played) for _ in range(3)) / sum(len(steps) for steps in played)


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    core = sorted(os.sched_getaffinity(0))[0]
    os.sched_setaffinity(0, {core})  # children inherit it: referee and bots share one core
    line = sample_request()
    print(f"pinned to core {core}; request line {len(line)} bytes; {games} games per match")
    transports = {
        "pipe": lambda: PipeTransport.start([sys.executable, "-c", PIPE_ECHO]),
        "zmq ipc": lambda: ZmqTransport.start([sys.executable, "-c", ZMQ_ECHO], endpoint_kind="ipc"),
    }
    ratios = {}
    for label, bot, raw in (("pipe", "random_bot", raw_pipe_rtt_s), ("zmq ipc", "zmq_bot", raw_zmq_rtt_s)):
        engine_s = engine_step_s()
        raw_s = raw(line, 5000)
        through_s = transport_rtt_s(transports[label](), line, 5000)
        fig = match_figures(bot, games)
        per_move = fig["wall"] / fig["moves"]
        arena_cpu = fig["cpu"] / fig["moves"]
        print(f"\n[{label}] three Python bots ({bot}), started once for the whole match in {fig['startup'] * 1000:.0f} ms")
        print(f"  games/s: {fig['games'] / fig['wall']:.1f}   moves/s: {fig['moves'] / fig['wall']:,.0f}   faults: {fig['faults']}")
        print(f"  wall time per move:          {per_move * 1e6:7.1f} µs")
        print(f"  raw round trip (same line):  {raw_s * 1e6:7.1f} µs")
        print(f"  through the transport class: {through_s * 1e6:7.1f} µs  (the transport's own cost)")
        print(f"  arena CPU per move:          {arena_cpu * 1e6:7.1f} µs  ({fig['user'] / fig['moves'] * 1e6:.1f} user, "
              f"{fig['system'] / fig['moves'] * 1e6:.1f} system: the transport's syscalls)")
        print(f"  engine step alone:           {engine_s * 1e6:7.1f} µs  (legal moves and the move, same games' kind)")
        print(f"  arena CPU / engine step:     {arena_cpu / engine_s:7.2f} x")
        print(f"  arena CPU / raw round trip:  {arena_cpu / raw_s:7.2f} x")
        ratios[label] = (arena_cpu / engine_s, arena_cpu / raw_s)
        print(f"  per move / raw round trip:   {per_move / raw_s:.2f} x (includes the bot's own work)")
        if label == "pipe":
            bot_s = raw_pipe_rtt_s(line, 5000, [sys.executable, str(REPO / "bots" / "random_bot" / "bot.py")])
            print(f"  raw round trip to random_bot itself (its own work included, no arena): {bot_s * 1e6:.1f} µs;"
                  f" the match's wall time per move is {per_move / bot_s:.2f} x that")
    # The goals of issue 22, last, so that a script can read them.
    print(f"\npipe arena CPU/engine step: {ratios['pipe'][0]:.2f}x (goal <= 3.5)")
    print(f"zmq ipc arena CPU/raw round trip: {ratios['zmq ipc'][1]:.2f}x (goal <= 1.5)")


if __name__ == "__main__":
    main()
