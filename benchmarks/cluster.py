"""Cluster speed: the same tournament on the local worker pool (2 workers) and on a local Dask
cluster (a scheduler and 2 workers of one thread each, on this machine), in one run.

Runs each a few times, alternated (this machine's speed drifts between runs), and prints games/s of
the fastest of each, the cluster's per-task overhead (a table task that plays no game, timed from
submit to result, median of 20), the CPU Dask spends beyond the local pool's (what bounds the ratio
when workers and bots share two cores), and last `cluster/local: N.NN` (goal: at least 0.85, so
that N machines give close to N times one). Needs the cluster extra: pip install -e '.[cluster]'.
Usage: python benchmarks/cluster.py [--deals N] [--rounds N] [--worker-profile on|off]
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
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from arena.results.store import ResultStore  # noqa: E402
from arena.tournament.cluster_pool import ClusterPool  # noqa: E402
from arena.tournament.config import load_config, load_entries  # noqa: E402
from arena.tournament.local_pool import WorkerPool  # noqa: E402
from arena.tournament.run_plan import plan_run  # noqa: E402
from arena.tournament.runner import run_tournament  # noqa: E402

DASK = Path(sys.executable).with_name("dask")

def config_in(folder: Path, deals: int) -> Path:
    # Four bots the arena starts, at tables of three: 4 tables of 6 seatings per deal.
    bots = '["heuristic_bot", "random_bot", "shell_bot", "js_bot"]'
    path = folder / "bench.toml"
    path.write_text(f'name = "bench"\nseed = 5\ndeals = {deals}\nworkers = 2\nbots = {bots}\n'
                    "[limits]\nmove_timeout_s = 30.0\nstartup_timeout_s = 60.0\n")
    return path


def timed_run(config_path: Path, pool=None) -> tuple[int, float, float]:
    """Games played, seconds and the organiser's own CPU seconds (its threads, not its children)."""
    config, manifests = load_entries(load_config(config_path))
    store = ResultStore(config.database)
    try:
        cpu_before = own_cpu_s(os.getpid())
        started = time.perf_counter()
        summary = run_tournament(plan_run(config, manifests, workers=2), store, pool=pool)
        return summary.played, time.perf_counter() - started, own_cpu_s(os.getpid()) - cpu_before
    finally:
        store.close()


class MeteredPool(WorkerPool):
    """The local pool, noting its worker processes' own CPU (the referee's, not the bots') before
    they are stopped."""

    cpu_s = 0.0

    def stop(self, wait_s: float = 0.0) -> None:
        self.cpu_s = sum(own_cpu_s(worker.proc.pid) for worker in self._workers)
        super().stop(wait_s)


def start_cluster(root: Path, worker_env: dict[str, str]) -> tuple[list[subprocess.Popen], str]:
    """A scheduler and two one-thread workers, each in an empty folder; `worker_env` adds to the
    workers' environment."""
    procs = []
    scheduler_file = root / "scheduler.json"

    def start(name: str, argv: list[str], env: dict[str, str] | None = None) -> None:
        (root / name).mkdir(parents=True)
        procs.append(subprocess.Popen(argv, cwd=root / name, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      start_new_session=True, env=dict(os.environ, **(env or {}))))

    start("scheduler", [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                        "--scheduler-file", str(scheduler_file)])
    while not scheduler_file.exists():
        time.sleep(0.1)
    time.sleep(0.3)
    address = json.loads(scheduler_file.read_text())["address"]
    for name in ("w1", "w2"):
        start(name, [str(DASK), "worker", address, "--nthreads", "1", "--no-dashboard", "--no-nanny"], worker_env)
    from distributed import Client

    with Client(address, timeout=30) as client:
        client.wait_for_workers(2, timeout=60)
    return procs, address


def own_cpu_s(pid: int) -> float:
    """User + system CPU seconds of the process itself (not of its children, the bots)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


@dataclass
class Round:
    """One timed run of the tournament and the CPU seconds of the processes that are not bots."""

    games: int
    seconds: float
    referee_cpu_s: float  # the processes that referee the tables (pool workers or Dask workers)
    organiser_cpu_s: float
    scheduler_cpu_s: float = 0.0

    @property
    def rate(self) -> float:
        return self.games / self.seconds


def local_round(folder: Path, deals: int) -> Round:
    config_path = config_in(folder, deals)
    config, manifests = load_entries(load_config(config_path))
    pool = MeteredPool(plan_run(config, manifests), 2)
    games, seconds, organiser_s = timed_run(config_path, pool)
    return Round(games, seconds, pool.cpu_s, organiser_s)


def cluster_round(folder: Path, deals: int, address: str, procs: list[subprocess.Popen]) -> Round:
    config_path = config_in(folder, deals)
    config, manifests = load_entries(load_config(config_path))
    pool = ClusterPool(address, manifests, config)
    pool.start()
    try:
        before = [own_cpu_s(proc.pid) for proc in procs]
        games, seconds, organiser_s = timed_run(config_path, pool)
        scheduler_s, *workers_s = (own_cpu_s(proc.pid) - b for proc, b in zip(procs, before))
    finally:
        pool.stop()
    return Round(games, seconds, sum(workers_s), organiser_s, scheduler_s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3,
                        help="local and cluster runs, alternated; the fastest of each counts")
    parser.add_argument("--worker-profile", choices=("on", "off"), default="on",
                        help="Dask's sampling profiler in the workers (on: Dask's default)")
    args = parser.parse_args()
    worker_env = {} if args.worker_profile == "on" else {"DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}
    with tempfile.TemporaryDirectory(prefix="arena-bench-cluster-") as tmp:
        root = Path(tmp)
        procs, address = start_cluster(root / "dask", worker_env)
        try:
            warm_config = config_in(Path(tempfile.mkdtemp(dir=tmp)), 1)  # bundles unpacked, bots built once
            config, manifests = load_entries(load_config(warm_config))
            pool = ClusterPool(address, manifests, config)
            pool.start()
            timed_run(warm_config, pool)
            pool.stop()
            local_rounds, cluster_rounds = [], []
            for number in range(args.rounds):
                local_rounds.append(local_round(Path(tempfile.mkdtemp(dir=tmp)), args.deals))
                cluster_rounds.append(cluster_round(Path(tempfile.mkdtemp(dir=tmp)), args.deals, address, procs))
                print(f"round {number + 1}: local {local_rounds[-1].rate:.1f} games/s, cluster "
                      f"{cluster_rounds[-1].rate:.1f} games/s, ratio {cluster_rounds[-1].rate / local_rounds[-1].rate:.2f}",
                      flush=True)
            overhead_s = task_overhead(address, config_in(Path(tempfile.mkdtemp(dir=tmp)), 1))
        finally:
            for proc in procs:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
            for proc in procs:
                proc.wait()
    local = max(local_rounds, key=lambda r: r.rate)
    cluster = max(cluster_rounds, key=lambda r: r.rate)
    print(f"local pool, 2 workers:              {local.games} games in {local.seconds:.2f} s = {local.rate:.1f} games/s")
    print(f"Dask cluster, 2 workers x 1 thread: {cluster.games} games in {cluster.seconds:.2f} s = "
          f"{cluster.rate:.1f} games/s (worker profiler {args.worker_profile})")
    print(f"per-task overhead (a table with no game, submit to result): {overhead_s * 1000:.1f} ms")
    # What bounds the ratio on one machine: the CPU Dask spends beside the referee (the scheduler,
    # the workers' event loops, the queue traffic) comes out of the two cores the bots use too.
    # A Dask worker's CPU holds the referee's, so the local pool's workers are the baseline.
    extra_s = (cluster.referee_cpu_s + cluster.scheduler_cpu_s + cluster.organiser_cpu_s
               - local.referee_cpu_s - local.organiser_cpu_s)
    print(f"CPU beside the bots: local pool workers {local.referee_cpu_s:.2f} s + organiser "
          f"{local.organiser_cpu_s:.2f} s; Dask workers {cluster.referee_cpu_s:.2f} s + scheduler "
          f"{cluster.scheduler_cpu_s:.2f} s + organiser {cluster.organiser_cpu_s:.2f} s")
    print(f"Dask's own CPU beyond the local pool's: {extra_s:.2f} s = {extra_s / (2 * cluster.seconds):.0%} "
          f"of the two cores over the cluster run")
    print(f"cluster/local: {cluster.rate / local.rate:.2f}")


if __name__ == "__main__":
    main()
