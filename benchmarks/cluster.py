"""Cluster speed: the same tournament on the local worker pool (2 workers) and on a local Dask
cluster (a scheduler and 2 workers of one thread each, on this machine), in one run.

Prints games/s of each, the cluster's per-task overhead (a table task that plays no game, timed
from submit to result, median of 20), and last `cluster/local: N.NN` (goal: at least 0.85, so that
N machines give close to N times one). Needs the cluster extra: pip install -e '.[cluster]'.
Usage: python benchmarks/cluster.py [--deals N]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from arena.results.store import ResultStore  # noqa: E402
from arena.tournament.cluster_pool import ClusterPool  # noqa: E402
from arena.tournament.config import load_config, load_entries  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402

DASK = Path(sys.executable).with_name("dask")

def config_in(folder: Path, deals: int) -> Path:
    # Four bots the arena starts, at tables of three: 4 tables of 6 seatings per deal.
    bots = '["heuristic_bot", "random_bot", "shell_bot", "js_bot"]'
    path = folder / "bench.toml"
    path.write_text(f'name = "bench"\nseed = 5\ndeals = {deals}\nworkers = 2\nbots = {bots}\n'
                    "[limits]\nmove_timeout_s = 30.0\nstartup_timeout_s = 60.0\n")
    return path


def timed_run(config_path: Path, pool=None) -> tuple[int, float]:
    config, manifests = load_entries(load_config(config_path))
    store = ResultStore(config.database)
    try:
        started = time.perf_counter()
        summary = run_tournament(config, manifests, store, workers=2, pool=pool)
        return summary.played, time.perf_counter() - started
    finally:
        store.close()


def start_cluster(root: Path) -> tuple[list[subprocess.Popen], str]:
    procs = []
    scheduler_file = root / "scheduler.json"

    def start(name: str, argv: list[str]) -> None:
        (root / name).mkdir(parents=True)
        procs.append(subprocess.Popen(argv, cwd=root / name, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      start_new_session=True))

    start("scheduler", [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                        "--scheduler-file", str(scheduler_file)])
    while not scheduler_file.exists():
        time.sleep(0.1)
    time.sleep(0.3)
    address = json.loads(scheduler_file.read_text())["address"]
    for name in ("w1", "w2"):
        start(name, [str(DASK), "worker", address, "--nthreads", "1", "--no-dashboard", "--no-nanny"])
    from distributed import Client

    with Client(address, timeout=30) as client:
        client.wait_for_workers(2, timeout=60)
    return procs, address


def task_overhead(address: str, config_path: Path) -> float:
    """Median seconds from submit to result of a table task with no game to play: the cluster's
    own cost per task (shipping the table, unpacking checks, the queue)."""
    from arena.schedule.games import TableSpec

    config, manifests = load_entries(load_config(config_path))
    pool = ClusterPool(address, manifests, config)
    pool.start()
    try:
        times = []
        for i in range(20):
            empty = TableSpec(10_000 + i, tuple(config.bots[:3]), ())
            started = time.perf_counter()
            list(pool.games([empty]))
            times.append(time.perf_counter() - started)
        return statistics.median(times)
    finally:
        pool.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as tmp:
        root = Path(tmp)
        (root / "local").mkdir()
        (root / "cluster").mkdir()
        local_config = config_in(root / "local", args.deals)
        cluster_config = config_in(root / "cluster", args.deals)
        procs, address = start_cluster(root / "dask")
        try:
            warm_config = config_in(Path(tempfile.mkdtemp(dir=tmp)), 1)  # bundles unpacked, bots built once
            config, manifests = load_entries(load_config(warm_config))
            pool = ClusterPool(address, manifests, config)
            pool.start()
            timed_run(warm_config, pool)
            pool.stop()
            games, local_s = timed_run(local_config)
            config, manifests = load_entries(load_config(cluster_config))
            pool = ClusterPool(address, manifests, config)
            pool.start()
            cluster_games, cluster_s = timed_run(cluster_config, pool)
            pool.stop()
            overhead_s = task_overhead(address, cluster_config)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
            for proc in procs:
                proc.wait()
    local_rate, cluster_rate = games / local_s, cluster_games / cluster_s
    print(f"local pool, 2 workers:            {games} games in {local_s:.2f} s = {local_rate:.1f} games/s")
    print(f"Dask cluster, 2 workers x 1 thread: {cluster_games} games in {cluster_s:.2f} s = {cluster_rate:.1f} games/s")
    print(f"per-task overhead (a table with no game, submit to result): {overhead_s * 1000:.1f} ms")
    print(f"cluster/local: {cluster_rate / local_rate:.2f}")


if __name__ == "__main__":
    main()
