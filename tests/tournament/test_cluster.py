"""Tournaments on a real local Dask cluster: a scheduler and two workers on 127.0.0.1, each in an
empty folder of its own (no bots: they come from the organiser as bundles). The standings equal a
local run's; a worker killed mid-run loses and doubles nothing, and plays no finished table again
(bots travel as tasks of their own, and finished tables are let go); a worker of another arena version
is refused before any game; a scheduler that goes away stops the run with the games kept, and the
same command resumes. Every process is stopped afterwards, whatever happens."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli_support import invoke
from tests.bots_support import hostile_bot
from tests.load_support import GENEROUS_LIMITS, assert_no_load_faults
from tests.tournament.test_run import copy_results, write_config
from tests.db_support import connected

pytest.importorskip("distributed", reason="needs Dask distributed: pip install -e '.[cluster]' (the README's test command does)")

DASK = Path(sys.executable).with_name("dask")
ENV = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}


class Cluster:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.procs: list[subprocess.Popen] = []
        self.scheduler_file = root / "scheduler.json"
        self.scheduler = self._start("scheduler", [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                                   "--no-dashboard", "--scheduler-file", str(self.scheduler_file)])
        deadline = time.monotonic() + 60
        while not self.scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.3)
        self.address = json.loads(self.scheduler_file.read_text())["address"]

    def _start(self, name: str, argv: list[str], env: dict | None = None) -> subprocess.Popen:
        folder = self.root / name
        folder.mkdir(parents=True, exist_ok=True)
        proc = subprocess.Popen(argv, cwd=folder, env=env or ENV, stdout=open(folder / "log", "wb"),
                                stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        return proc

    def add_worker(self, name: str, preload: Path | None = None, env: dict | None = None) -> subprocess.Popen:
        argv = [str(DASK), "worker", self.address, "--host", "127.0.0.1", "--nthreads", "1", "--no-dashboard", "--no-nanny",
                "--name", name]
        if preload is not None:
            argv += ["--preload", str(preload)]
        return self._start(name, argv, env)

    def wait_for_workers(self, count: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=30) as client:
            client.wait_for_workers(count, timeout=60)

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        for proc in self.procs:
            proc.wait(timeout=30)


def run_until_stored(config: Path, address: str, database: Path, games: int) -> subprocess.Popen:
    """`arena tournament run CONFIG --cluster ADDRESS` started, returned once `games` are stored
    (or it ended, or two minutes went by)."""
    run = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", str(config), "--cluster", address],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    stored = 0
    while time.monotonic() < deadline and run.poll() is None and stored < games:
        try:
            with connected(database, timeout_s=1) as db:
                stored = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    return run


def refused_run(tmp_path: Path, address: str) -> str:
    """What a run on a cluster that refuses it says (exit code 1, no game stored), on one line."""
    folder = tmp_path / "t"
    folder.mkdir()
    config = write_config(folder, "t")
    result = invoke("tournament", "run", str(config), "--cluster", address)
    text = " ".join(result.output.split())
    assert result.exit_code == 1, text
    assert not (folder / "t.sqlite").exists() or game_rows(folder / "t.sqlite") == []
    return text


@pytest.fixture
def cluster(tmp_path):
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("w1")
        made.add_worker("w2")
        made.wait_for_workers(2)
        yield made
    finally:
        made.stop()


@pytest.fixture
def lone_worker(tmp_path):
    """A scheduler with one worker, w1."""
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("w1")
        made.wait_for_workers(1)
        yield made
    finally:
        made.stop()


def comparable(config: Path) -> dict:
    data = json.loads(invoke("standings", str(config), "--format", "json").output)
    data.pop("rating_history")  # in the order games were stored
    data.pop("history")
    data.pop("tournament")  # its name and when it ran
    return data


def game_rows(database: Path) -> list[tuple]:
    with connected(database, read_only=True) as db:
        return db.execute("SELECT key, finishing_order, points, reason FROM games ORDER BY key").fetchall()


@pytest.fixture(scope="module")
def local_reference(tmp_path_factory) -> Path:
    """write_config's tournament played on this machine, once for the module (read only)."""
    config = write_config(tmp_path_factory.mktemp("local"), "t")
    assert invoke("tournament", "run", str(config), "--workers", "2").exit_code == 0
    return config


def test_a_cluster_run_gives_the_standings_of_a_local_run_and_records_the_machine(cluster, local_reference, tmp_path):
    reference = local_reference
    folder = tmp_path / "on-cluster"
    folder.mkdir()
    config = write_config(folder, "t")
    result = invoke("tournament", "run", str(config), "--cluster", cluster.address)
    text = " ".join(result.output.split())
    assert result.exit_code == 0, text
    assert f"cluster {cluster.address}: 2 workers" in text and "48 games stored (48 played now)" in text
    # The first line says what bots see on the workers' machine, as a local run's says it here.
    from arena.sandbox.isolation import find_isolation

    assert f"; isolation: {find_isolation().summary()}; each game records" in text, text
    assert comparable(config) == comparable(reference)
    assert game_rows(folder / "t.sqlite") == game_rows(reference.parent / "t.sqlite")
    assert_no_load_faults(folder / "t.sqlite")
    listed = [json.loads(line) for line in invoke("games", str(config), "--format", "json").output.splitlines()]
    assert len(listed) == 48 and all("(tcp://127.0.0.1:" in game["machine"] for game in listed)
    from arena.results.games_list import isolation_text

    assert {game["isolation"] for game in listed} == {isolation_text(find_isolation().record())}
    # The workers' folders hold no bots: each came as a bundle, unpacked in the per-user cache.
    assert not any(p.name == "bot.toml" for p in (cluster.root / "w1").rglob("*"))


def on_the_scheduler(address: str, question: str):
    """Asked of the scheduler now (the functions are made here, so that they travel by value: the
    scheduler cannot import the tests):
    - "tasks": the run's table tasks with the keys each depends on, and its bots' bundle tasks;
    - "started": how many times each table task was started, from the scheduler's transition log;
    - "workers": each worker's name by address."""
    from distributed import Client

    def tasks(scheduler) -> tuple[dict, dict]:
        tables = {str(key): sorted(dep.key for dep in ts.dependencies) for key, ts in scheduler.tasks.items()
                  if str(key).startswith("arena-table-")}
        bundles = {str(key): ts.state for key, ts in scheduler.tasks.items() if str(key).startswith("arena-bundle-")}
        return tables, bundles

    def started(scheduler) -> dict[str, int]:
        counts: dict[str, int] = {}
        for transition in scheduler.transition_log:
            if str(transition.key).startswith("arena-table-") and transition.finish == "processing":
                counts[str(transition.key)] = counts.get(str(transition.key), 0) + 1
        return counts

    def workers(scheduler) -> dict[str, str]:
        return {address: worker.name for address, worker in scheduler.workers.items()}

    look = {"tasks": tasks, "started": started, "workers": workers}[question]

    def run(dask_scheduler):
        return look(dask_scheduler)

    with Client(address, timeout=30) as client:
        return client.run_on_scheduler(run)


def a_finished_table(database: Path, games_per_table: int) -> tuple[int, str] | None:
    """A table all of whose games are stored, and the worker address that played it."""
    try:
        with connected(database, read_only=True, timeout_s=1) as db:
            rows = db.execute("SELECT table_no, COUNT(*), MIN(extra) FROM games GROUP BY table_no").fetchall()
    except sqlite3.Error:
        return None
    for table_no, count, extra in rows:
        if count == games_per_table:
            return table_no, json.loads(extra)["machine"].split("(")[1].rstrip(")")
    return None


def test_a_worker_killed_mid_run_loses_and_doubles_nothing(cluster, local_reference, tmp_path):
    (tmp_path / "local").mkdir()
    reference = copy_results(local_reference, tmp_path / "local")
    folder = tmp_path / "on-cluster"
    folder.mkdir()
    config = write_config(folder, "t", deals=4)  # 4 tables of 24 games
    write_config(reference.parent, "t", deals=4)
    assert invoke("tournament", "run", str(reference)).exit_code == 0  # its two more deals
    database = folder / "t.sqlite"
    run = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", str(config), "--cluster",
                            cluster.address], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while (finished := a_finished_table(database, 24)) is None and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert run.poll() is None and finished is not None, "the run ended before a worker could be killed"
    table_no, address = finished
    # A table whose games are all stored is let go: were it held, Dask would play it again when
    # its worker dies, all 24 games of it passed over as stored already.
    while any(key.startswith(f"arena-table-{table_no}-") for key in on_the_scheduler(cluster.address, "tasks")[0]):
        assert run.poll() is None and time.monotonic() < deadline, f"table {table_no} is done and still held"
        time.sleep(0.05)
    assert len(game_rows(database)) < 96, f"table {table_no} was held on the scheduler until the run's end"
    # The bots' files travel as a task per bot that the tables' tasks depend on, not inside every
    # table's task (nor scattered: a worker killed with the last scattered copy lost it for good).
    tables, bundles = on_the_scheduler(cluster.address, "tasks")
    assert len(bundles) == 4 and all(len(deps) == 3 and set(deps) <= set(bundles) for deps in tables.values()), \
        (tables, bundles)
    names = on_the_scheduler(cluster.address, "workers")
    victim = cluster.procs[1 if names[address] == "w1" else 2]  # the worker that played the finished table
    os.killpg(victim.pid, signal.SIGKILL)
    output, _ = run.communicate(timeout=300)
    assert run.returncode == 0, output
    assert "96 games stored" in " ".join(output.split())
    assert game_rows(database) == game_rows(reference.parent / "t.sqlite")  # nothing lost, nothing twice
    assert comparable(config) == comparable(reference)
    started = on_the_scheduler(cluster.address, "started")
    again = [key for key, count in started.items() if count > 1]
    # Only the table the worker was playing when it died is played again.
    assert len(started) == 4 and len(again) <= 1 and not any(k.startswith(f"arena-table-{table_no}-") for k in again), started


def test_a_quiet_spell_leaves_no_errors_in_the_scheduler_s_log(lone_worker, tmp_path):
    """The organiser polls the run's queue for games. A queue read that waited and timed out was
    logged by the scheduler as an error with its traceback, at every poll that found nothing (53
    in a 30 s run of slow bots): here a bot takes 3 s to start, and nothing may be logged."""
    folder = tmp_path / "t"
    folder.mkdir()
    config = folder / "t.toml"
    config.write_text(f'name = "t"\nseed = 3\ntable_size = 3\ndeals = 1\nbots = ["heuristic_bot", "random_bot", '
                      f'"{hostile_bot("slow_start")}"]\n' + GENEROUS_LIMITS + "[grant.hostile_slow_start]\nunchecked = true\n")
    result = invoke("tournament", "run", str(config), "--cluster", lone_worker.address)
    assert result.exit_code == 0, result.output
    log = (lone_worker.root / "scheduler" / "log").read_text()
    assert "Exception while handling op" not in log, log[-3000:]


def test_a_worker_of_another_arena_version_is_refused_before_any_game(tmp_path):
    preload = tmp_path / "older_arena.py"
    preload.write_text("import arena\narena.__version__ = '0.0.1'\n")
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("w1")
        made.add_worker("old", preload=preload)
        made.wait_for_workers(2)
        text = refused_run(tmp_path, made.address)
        assert "runs arena 0.0.1" in text and "no game was played" in text, text
        assert "worker old at tcp://127.0.0.1:" in text, text
    finally:
        made.stop()


def test_a_worker_without_the_arena_is_named_in_a_sentence_not_a_traceback(tmp_path):
    preload = tmp_path / "no_arena.py"
    preload.write_text("import sys\nsys.modules['arena'] = None  # as a Python the arena was never installed in\n")
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("bare", preload=preload)
        made.wait_for_workers(1)
        text = refused_run(tmp_path, made.address)
        assert "worker bare at tcp://127.0.0.1:" in text and "cannot run the arena (ModuleNotFoundError" in text, text
        assert "no game was played" in text and "Traceback" not in text, text
    finally:
        made.stop()


def test_workers_that_isolate_differently_are_each_named_and_required_isolation_refuses_the_open_one(tmp_path):
    preload = tmp_path / "no_bwrap.py"
    preload.write_text("import arena.sandbox.isolation as isolation\n"
                       "isolation.find_isolation = lambda mode='auto': isolation.Isolation(why_not='no bwrap (test)')\n")
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("closed")
        made.add_worker("open", preload=preload)
        made.wait_for_workers(2)
        folder = tmp_path / "t"
        folder.mkdir()
        config = write_config(folder, "t", deals=1)
        # Two workers of one machine: the first line names each, not the machine's first.
        result = invoke("tournament", "run", str(config), "--cluster", made.address)
        text = " ".join(result.output.split())
        assert result.exit_code == 0, text
        assert re.search(r"; isolation: worker closed on \S+, (bubblewrap|none)[^;]*; worker open on \S+, none: bots can "
                         r"read whatever the arena's user can \(no bwrap \(test\)\); each game records", text), text
        config.write_text('isolation = "required"\n' + config.read_text())
        (folder / "t.sqlite").unlink()
        result = invoke("tournament", "run", str(config), "--cluster", made.address)
        text = " ".join(result.output.split())
        assert result.exit_code == 1 and "worker open at tcp://127.0.0.1:" in text, text
        assert 'cannot isolate bots (none: bots can read whatever the arena\'s user can (no bwrap (test))), and the ' \
               'config says isolation = "required"; no game was played' in text, text
        assert not (folder / "t.sqlite").exists() or game_rows(folder / "t.sqlite") == []
    finally:
        made.stop()


def test_a_table_that_fails_on_a_worker_is_named_with_its_bots_and_the_worker(tmp_path):
    preload = tmp_path / "full_disk.py"
    preload.write_text("import arena.tournament.cluster_task as task\n"
                       "def unpack(*args, **kwargs):\n"
                       "    raise OSError(28, 'No space left on device')\n"
                       "task.unpack = unpack\n")
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("full", preload=preload)
        made.wait_for_workers(1)
        folder = tmp_path / "t"
        folder.mkdir()
        result = invoke("tournament", "run", str(write_config(folder, "t")), "--cluster", made.address)
        text = " ".join(result.output.split())
        assert result.exit_code == 1 and "Traceback" not in text, text
        assert re.search(r"error: table t000\d \([a-z_]+, [a-z_]+, [a-z_]+\) failed on the cluster: worker "
                         r"tcp://127\.0\.0\.1:\d+ \(\S+\) could not unpack and build [a-z_]+: OSError: \[Errno 28\] "
                         r"No space left on device", text), text
    finally:
        made.stop()


def test_a_bot_a_worker_cannot_unpack_costs_only_its_own_games(tmp_path):
    """One bot's hostile folder (a symlink) stopped a whole cluster tournament: 0 of 24 games. Its
    bundle refused on the worker (as a link out of the folder is), its games are its faults and
    the other tables play."""
    preload = tmp_path / "refuse_shell_bot.py"
    preload.write_text("import arena.tournament.cluster_task as task\n"
                       "from arena.submission.manifest import ManifestError\n"
                       "real = getattr(task, '_real_unpack', task.unpack)  # Dask may run a preload twice\n"
                       "task._real_unpack = real\n"
                       "def unpack(bundle, *args, **kwargs):\n"
                       "    if bundle.name == 'shell_bot':\n"
                       "        raise ManifestError('shell_bot: the bundle holds a link \\'x\\' out of the bot\\'s folder')\n"
                       "    return real(bundle, *args, **kwargs)\n"
                       "task.unpack = unpack\n")
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("w", preload=preload)
        made.wait_for_workers(1)
        folder = tmp_path / "t"
        folder.mkdir()
        config = write_config(folder, "t", deals=1)
        result = invoke("tournament", "run", str(config), "--cluster", made.address)
        text = " ".join(result.output.split())
        assert result.exit_code == 1 and "shell_bot could not start in 18 games" in text, text
        assert "could not be unpacked and built on worker" in text and "out of the bot's folder" in text, text
        with connected(folder / "t.sqlite") as db:
            rows = db.execute("SELECT bots, faults FROM games").fetchall()
        assert len(rows) == 24  # every game played: shell_bot's tables with the referee moving for it
        without = [faults for bots, faults in rows if "shell_bot" not in bots]
        assert without and all("no_hello" not in faults for faults in without), without
    finally:
        made.stop()


def test_a_table_whose_error_is_too_deep_to_pickle_ends_the_run_instead_of_holding_it(tmp_path):
    """A RecursionError's traceback could not be pickled: the worker said "Compute Failed", the
    scheduler never heard, and the organiser waited for the table for good."""
    preload = tmp_path / "recurse.py"
    preload.write_text("import arena.tournament.cluster_task as task\n"
                       "def unpack(*args, **kwargs):\n"
                       "    return unpack(*args, **kwargs)\n"
                       "task.unpack = unpack\n")
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("deep", preload=preload)
        made.wait_for_workers(1)
        folder = tmp_path / "t"
        folder.mkdir()
        started = time.monotonic()
        result = invoke("tournament", "run", str(write_config(folder, "t")), "--cluster", made.address)
        text = " ".join(result.output.split())
        assert result.exit_code == 1 and "failed on the cluster" in text and "RecursionError" in text, text
        assert time.monotonic() - started < 60
    finally:
        made.stop()


def test_a_plain_scheduler_off_this_machine_is_refused_for_tls(tmp_path):
    text = refused_run(tmp_path, "tcp://192.0.2.10:8786")  # TEST-NET-1: never this machine
    assert "is not on this machine, and a plain tcp:// scheduler runs the code of whoever reaches it: use TLS" in text
    assert "--tls-ca-file" in text and "tls://" in text, text


def test_a_port_that_is_no_scheduler_is_said_in_a_sentence_not_waited_on_for_good(tmp_path, monkeypatch):
    """Dask waits for a scheduler's greeting with no time limit: a port that takes connections
    and says nothing (a dashboard's, an unrelated service's) held the command for good. The limit is
    shortened here (its 12 s are waited in full: a silent port never answers sooner)."""
    import socket

    from arena.tournament import cluster_pool

    monkeypatch.setattr(cluster_pool, "GREETING_TIMEOUT_S", 2.0)
    silent = socket.create_server(("127.0.0.1", 0))
    try:
        text = refused_run(tmp_path, f"tcp://127.0.0.1:{silent.getsockname()[1]}")
    finally:
        silent.close()
    assert "did not answer as a Dask scheduler within 2 s" in text and "dashboard" in text, text


def test_workers_of_this_machine_are_refused_for_a_cluster_run(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    result = invoke("tournament", "run", str(write_config(folder, "t")), "--cluster", "tcp://127.0.0.1:9", "--workers", "2")
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "--workers 2: a cluster run plays one table at a time on each" in text, text
    assert "drop --workers, or drop --cluster to play locally" in text, text


def test_logs_of_this_machine_are_refused_for_a_cluster_run(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    config = write_config(folder, "t")
    config.write_text('cluster = "tcp://127.0.0.1:9"\n' + config.read_text())
    result = invoke("tournament", "run", str(config), "--log", str(tmp_path / "logs"))
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "a cluster run keeps no protocol or stderr logs" in text, text
    assert "drop --log, or drop the config's `cluster` to play locally" in text, text
    assert not (tmp_path / "logs").exists()


def test_an_unknown_scheduler_host_is_said_at_once(tmp_path):
    text = refused_run(tmp_path, "tcp://no-such-host.invalid:8786")
    assert "cannot find the host 'no-such-host.invalid'" in text, text


def test_a_port_where_nothing_listens_is_said_as_refused_not_as_a_timeout(tmp_path):
    """Dask retries a refused port for its whole limit and then says it timed out."""
    import socket

    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    text = refused_run(tmp_path, f"tcp://127.0.0.1:{port}")
    assert f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port} (connection refused: nothing listens" in text
    assert f"start it with `dask scheduler --host 127.0.0.1 --port {port}`" in text and "Timed out" not in text and "TLS" not in text


def test_a_worker_running_other_arena_code_of_the_same_version_is_refused(tmp_path):
    """An organiser updated a clone and left a worker running: same version number, other code,
    other games from the same seeds. Here the worker imports a copy of the arena with one change."""
    import shutil

    import arena

    copy = tmp_path / "other-code"
    shutil.copytree(Path(arena.__file__).parent, copy / "arena", ignore=shutil.ignore_patterns("__pycache__"))
    engine = copy / "arena" / "game" / "engine.py"
    engine.write_text(engine.read_text() + "\n# a change after the worker started\n")
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("edited", env={**ENV, "PYTHONPATH": str(copy)})
        made.wait_for_workers(1)
        text = refused_run(tmp_path, made.address)
        assert "worker edited at tcp://127.0.0.1:" in text, text
        assert f"runs other arena code than this one (both {arena.__version__}" in text and "no game was played" in text
    finally:
        made.stop()


def test_the_scheduler_going_away_stops_the_run_and_the_same_command_resumes(tmp_path):
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("w1")
        made.wait_for_workers(1)
        folder = tmp_path / "t"
        folder.mkdir()
        config = write_config(folder, "t", deals=1)  # 24 games: the resumed run plays those the first did not
        database = folder / "t.sqlite"
        run = run_until_stored(config, made.address, database, 6)
        os.killpg(made.scheduler.pid, signal.SIGKILL)
        output, _ = run.communicate(timeout=300)
        text = " ".join(output.split())
        assert run.returncode == 1 and "lost the Dask scheduler" in text and "Traceback" not in text, text
        kept = len(game_rows(database))
        assert kept >= 6
    finally:
        made.stop()
    # The same command, on a cluster that is back (here at a new address: given again), resumes.
    again = Cluster(tmp_path / "cluster2")
    try:
        again.add_worker("w1")
        again.wait_for_workers(1)
        resumed = invoke("tournament", "run", str(config), "--cluster", again.address)
        assert resumed.exit_code == 0 and f"({24 - kept} played now)" in " ".join(resumed.output.split())
    finally:
        again.stop()


def test_a_scheduler_lost_at_any_call_of_the_run_is_said_in_a_sentence(lone_worker, tmp_path, monkeypatch):
    """Every call to the scheduler while tables play says a lost scheduler as such. The queue's
    size, asked when every task has ended and no game came, was unguarded: a scheduler killed just
    then ended the command with Dask's traceback (CI, once). Here the queue gives nothing and its
    size finds the connection reset, as it did; and closing the client then outlasts its limit,
    which must not take the place of the message either."""
    from distributed import Client, Queue
    from distributed.comm.core import CommClosedError

    def reset(self, **kwargs):
        raise CommClosedError("in <TCP (closed) ConnectionPool.queue_qsize>: ConnectionResetError: reset by peer")

    def late_close(self, timeout=None):
        was_open = self.status not in ("closed", "newly-created")  # Client.__del__ closes again
        closing(self, timeout=timeout)
        if was_open:
            raise TimeoutError("closing the client took longer than 5 s")

    closing = Client.close
    monkeypatch.setattr(Queue, "get", lambda self, **kwargs: [])
    monkeypatch.setattr(Queue, "qsize", reset)
    monkeypatch.setattr(Client, "close", late_close)
    folder = tmp_path / "t"
    folder.mkdir()
    config = write_config(folder, "t")
    result = invoke("tournament", "run", str(config), "--cluster", lone_worker.address)
    text = " ".join(result.output.split())
    assert result.exit_code == 1 and "lost the Dask scheduler" in text, (text, result.exception)
    assert "ConnectionPool" not in text


def test_tls_settings_that_cannot_work_are_said_in_a_sentence_at_once(tmp_path):
    """A tls:// address without Dask's TLS settings, and required encryption with a tcp:// one,
    gave a traceback and then held the command 20 s in a half-made client."""
    folder = tmp_path / "t"
    folder.mkdir()
    config = write_config(folder, "t")
    started = time.monotonic()
    result = invoke("tournament", "run", str(config), "--cluster", "tls://127.0.0.1:9")
    said = " ".join(result.output.split())
    assert result.exit_code == 1 and "is a TLS address, and Dask's configuration has no TLS settings" in said, said
    import dask

    with dask.config.set({"distributed.comm.require-encryption": True}):
        result = invoke("tournament", "run", str(config), "--cluster", "tcp://127.0.0.1:9")
    said = " ".join(result.output.split())
    assert result.exit_code == 1 and "requires encryption" in said and "Traceback" not in said, said
    assert time.monotonic() - started < 15
