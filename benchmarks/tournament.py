"""Tournament speed: a full round robin of six Python random bots over pipes, one worker and two.

Prints, measured in the same run:
  - games/s and moves/s of the tournament with 1 and with 2 workers;
  - the floor: raw one-line round trips per second between Python processes laid out the same
    way (1 worker: one arena-side process and one echo process sharing one core; 2 workers: two
    such pairs in parallel, one per core), with a request line of realistic size;
  - the CPU per move of the arena (the organiser's process and its workers) and of the bots
    (each reports its own CPU as it exits; isolation is off so that it can write the report);
  - moves/s against the floor, and 2 workers against one;
  - the time to compute standings from 1,000,000 stored games and the database size per 1,000
    games (via benchmarks/standings.py; pass --standings-games N to use fewer).
The last line is issue 22's goal: with 2 workers, the arena's CPU per move at most the bots'.
Usage: python benchmarks/tournament.py [--deals N] [--standings-games N]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from arena.results.store import ResultStore  # noqa: E402
from arena.tournament.run_plan import plan_run  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402
from arena.tournament.config import load_config, load_entries  # noqa: E402

ECHO = r"""
import sys
out = sys.stdout
for line in sys.stdin:
    out.write("move 17 Kd\n")
    out.flush()
"""


# Runs random_bot and, as it exits, writes the CPU time it used (user + system, from its start)
# into a file of its own: the bots' own CPU, apart from the arena's.
CPU_REPORTING_BOT = r"""
import atexit, os, resource, runpy, sys, uuid
bot, report_dir = sys.argv[1], sys.argv[2]
def report():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.path.join(report_dir, f"{uuid.uuid4().hex}.cpu"), "w") as out:  # pids repeat across namespaces
        out.write(f"{usage.ru_utime + usage.ru_stime}\n")
atexit.register(report)
sys.argv = [bot]
runpy.run_path(bot, run_name="__main__")
"""


def make_config(folder: Path, deals: int, workers: int) -> Path:
    random_bot = HERE.parent / "bots" / "random_bot" / "bot.py"
    wrapper = folder / "cpu_reporting_bot.py"
    wrapper.write_text(CPU_REPORTING_BOT)
    reports = folder / "bot_cpu"
    reports.mkdir(exist_ok=True)
    # An arena run as root runs bots as an unprivileged user (docs/sandbox.md): let them in.
    folder.chmod(0o755)
    reports.chmod(0o1777)
    refs = []
    for i in range(1, 7):
        bot_dir = folder / f"random_{i}"
        bot_dir.mkdir(exist_ok=True)
        (bot_dir / "bot.toml").write_text(
            f'name = "random_{i}"\nlanguage = "python"\ntransport = "pipe"\n'
            f'command = ["{{python}}", "{wrapper}", "{random_bot}", "{reports}"]\n')
        refs.append(str(bot_dir / "bot.toml"))
    config = folder / f"bench-{workers}.toml"
    # Isolation off: a sandboxed bot could not write its CPU report outside its own folder.
    config.write_text(f'name = "bench"\nseed = 5\ndeals = {deals}\nworkers = {workers}\nisolation = "off"\n'
                      f'bots = {refs!r}\n'.replace("'", '"'))
    return config


def bots_cpu_s(folder: Path) -> tuple[float, int]:
    """The CPU seconds the bots reported, and how many reported."""
    reports = list((folder / "bot_cpu").glob("*.cpu"))
    return sum(float(path.read_text()) for path in reports), len(reports)


def tournament_rate(folder: Path, deals: int, workers: int) -> dict[str, float]:
    """Games/s and moves/s of the round robin; the CPU per move of the arena (this process and its
    workers) and of the bots. Run in a child process of its own, so that the CPU of its children
    (workers and bots, waited for) is this tournament's alone."""
    config, manifests = load_entries(load_config(make_config(folder, deals, workers)))
    store = ResultStore(config.database)
    self_before, children_before = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    started = time.perf_counter()
    summary = run_tournament(plan_run(config, manifests, workers=workers), store)
    elapsed = time.perf_counter() - started
    self_after, children_after = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    moves = sum(row.moves for row in store.rows(with_transcripts=False))
    store.close()
    total_cpu = sum(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                    for before, after in ((self_before, self_after), (children_before, children_after)))
    bots_cpu, reports = bots_cpu_s(folder)
    return {"games_s": summary.played / elapsed, "moves_s": moves / elapsed, "games": summary.played, "moves": moves,
            "arena_cpu_move": (total_cpu - bots_cpu) / moves, "bots_cpu_move": bots_cpu / moves, "reports": reports}


def _measure(folder: str, deals: int, workers: int, out) -> None:
    out.put(tournament_rate(Path(folder), deals, workers))


def measured_tournament(deals: int, workers: int) -> dict[str, float]:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        proc = ctx.Process(target=_measure, args=(tmp, deals, workers, out))
        proc.start()
        figures = out.get()
        proc.join()
    return figures


def _echo_trips(core: int, line: bytes, seconds: float, out) -> None:
    os.sched_setaffinity(0, {core})
    child = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    wfd, rfd = child.stdin.fileno(), child.stdout.fileno()
    trips = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        for _ in range(200):
            os.write(wfd, line)
            os.read(rfd, 65536)
        trips += 200
    elapsed = time.perf_counter() - started
    child.stdin.close()
    child.wait()
    out.put(trips / elapsed)


def floor_rate(pairs: int, line: bytes, seconds: float = 2.0) -> float:
    """Raw one-line round trips per second, summed over `pairs` pinned pairs running at once."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    cores = sorted(os.sched_getaffinity(0))
    procs = [ctx.Process(target=_echo_trips, args=(cores[i % len(cores)], line, seconds, out)) for i in range(pairs)]
    for p in procs:
        p.start()
    rates = [out.get() for _ in procs]
    for p in procs:
        p.join()
    return sum(rates)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--standings-games", type=int, default=1_000_000)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from transport import sample_request  # the same realistic request line as benchmarks/transport.py

    line = sample_request()
    results = {workers: measured_tournament(args.deals, workers) for workers in (1, 2)}
    floors = {1: floor_rate(1, line), 2: floor_rate(2, line)}
    print(f"round robin of 6 Python random bots, C(6,3)=20 tables x {args.deals} deals x 6 seatings = "
          f"{results[1]['games']} games, {results[1]['moves']:,} moves")
    for workers in (1, 2):
        fig = results[workers]
        floor = floors[workers]
        print(f"{workers} worker(s): {fig['games_s']:6.1f} games/s  {fig['moves_s']:9,.0f} moves/s   "
              f"floor {floor:9,.0f} round trips/s   moves/s = {100 * fig['moves_s'] / floor:5.1f}% of floor")
        print(f"    CPU per move: arena {fig['arena_cpu_move'] * 1e6:6.1f} us (the organiser's process and its workers), "
              f"bots {fig['bots_cpu_move'] * 1e6:6.1f} us (all three, from their start; {fig['reports']} bot processes)")
    print(f"2 workers / 1 worker: {results[2]['moves_s'] / results[1]['moves_s']:.2f}x moves/s; "
          f"floor scales {floors[2] / floors[1]:.2f}x")
    two = results[2]
    standings_script = HERE / "standings.py"
    if standings_script.exists() and args.standings_games > 0:
        print(f"\nstandings from {args.standings_games:,} stored games (benchmarks/standings.py):", flush=True)
        subprocess.run([sys.executable, str(standings_script), "--games", str(args.standings_games)], check=False)
    # Issue 22's goal, last, so that a script can read it: the arena no larger a part of a table's
    # cost than the bots, even for the fastest bots.
    print(f"\n2 workers: arena CPU/bots' CPU per move: {two['arena_cpu_move'] / two['bots_cpu_move']:.2f}x "
          f"({two['arena_cpu_move'] * 1e6:.1f} us / {two['bots_cpu_move'] * 1e6:.1f} us; goal <= 1.0)")
