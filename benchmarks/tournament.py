"""Tournament speed: a full round robin of six Python random bots over pipes, one worker and two.

Prints, measured in the same run:
  - games/s and moves/s of the tournament with 1 and with 2 workers;
  - the floor: raw one-line round trips per second between Python processes laid out the same
    way (1 worker: one arena-side process and one echo process sharing one core; 2 workers: two
    such pairs in parallel, one per core), with a request line of realistic size;
  - the ratios against the goals: moves/s >= 40% of the floor; 2 workers >= 1.7x one worker;
  - the time to compute standings from 1,000,000 stored games and the database size per 1,000
    games (via benchmarks/standings.py; pass --standings-games N to use fewer).
Usage: python benchmarks/tournament.py [--deals N] [--standings-games N]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from arena.results.store import ResultStore  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402
from arena.tournament.config import load_config, load_entries  # noqa: E402

ECHO = r"""
import sys
out = sys.stdout
for line in sys.stdin:
    out.write("move 17 Kd\n")
    out.flush()
"""


def make_config(folder: Path, deals: int, workers: int) -> Path:
    random_bot = HERE.parent / "bots" / "random_bot" / "bot.py"
    refs = []
    for i in range(1, 7):
        bot_dir = folder / f"random_{i}"
        bot_dir.mkdir(exist_ok=True)
        (bot_dir / "bot.toml").write_text(
            f'name = "random_{i}"\nlanguage = "python"\ntransport = "pipe"\ncommand = ["{{python}}", "{random_bot}"]\n')
        refs.append(str(bot_dir / "bot.toml"))
    config = folder / f"bench-{workers}.toml"
    config.write_text(f'name = "bench"\nseed = 5\ndeals = {deals}\nworkers = {workers}\nbots = {refs!r}\n'.replace("'", '"'))
    return config


def tournament_rate(folder: Path, deals: int, workers: int) -> tuple[float, float, int]:
    config, manifests = load_entries(load_config(make_config(folder, deals, workers)))
    store = ResultStore(config.database)
    started = time.perf_counter()
    summary = run_tournament(config, manifests, store, workers=workers)
    elapsed = time.perf_counter() - started
    moves = sum(row.moves for row in store.rows(with_transcripts=False))
    store.close()
    return summary.played / elapsed, moves / elapsed, summary.played


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
    results = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            results[workers] = tournament_rate(Path(tmp), args.deals, workers)
    floors = {1: floor_rate(1, line), 2: floor_rate(2, line)}
    print(f"round robin of 6 Python random bots, C(6,3)=20 tables x {args.deals} deals x 6 seatings = {results[1][2]} games")
    for workers in (1, 2):
        games_s, moves_s, _ = results[workers]
        floor = floors[workers]
        print(f"{workers} worker(s): {games_s:6.1f} games/s  {moves_s:9,.0f} moves/s   floor {floor:9,.0f} round trips/s"
              f"   moves/s = {100 * moves_s / floor:5.1f}% of floor (goal >= 40%)")
    print(f"2 workers / 1 worker: {results[2][1] / results[1][1]:.2f}x moves/s (goal >= 1.7x); "
          f"floor scales {floors[2] / floors[1]:.2f}x")
    standings_script = HERE / "standings.py"
    if standings_script.exists() and args.standings_games > 0:
        print(f"\nstandings from {args.standings_games:,} stored games (benchmarks/standings.py):", flush=True)
        subprocess.run([sys.executable, str(standings_script), "--games", str(args.standings_games)], check=False)
