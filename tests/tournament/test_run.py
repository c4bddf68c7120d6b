"""Running tournaments with real bot processes: workers, resume after SIGKILL, nothing left behind."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena.results.standings_sql import compute_standings
from arena.results.store import ResultStore
from arena.tournament.run_plan import plan_run
from arena.tournament.runner import run_tournament
from arena.tournament.config import load_config, load_entries
from tests.bots_support import hostile_bot, live_processes_with
from tests.load_support import GENEROUS_LIMITS, assert_no_load_faults
from tests.db_support import connected

REPO = Path(__file__).resolve().parents[2]


CRASHER = hostile_bot("crash_even_games")


def write_config(tmp_path: Path, name: str, deals: int = 2) -> Path:
    """Four deterministic entries (their play depends only on each game), so runs can be compared.

    One of them crashes in every even-numbered game: a resumed table starts it afresh, so the
    arena must restart it after each crash in an uninterrupted run too for the results to agree."""
    config = tmp_path / f"{name}.toml"
    config.write_text(
        f'name = "{name}"\nseed = 77\ntable_size = 3\ndeals = {deals}\n'
        f'bots = ["heuristic_bot", "random_bot", "shell_bot", "{CRASHER}"]\n'
        + GENEROUS_LIMITS
        + "[grant.hostile_crash_even_games]\nunchecked = true\n"  # a test bot: it plays unchecked, as the organiser says
    )
    return config


def run_in_process(config_path: Path, workers: int):
    config, manifests = load_entries(load_config(config_path))
    store = ResultStore(config.database)
    try:
        summary = run_tournament(plan_run(config, manifests, workers=workers), store)
        assert_no_load_faults(config.database)
        results = game_results(store)
        standings = compute_standings(store, list(config.bots))
    finally:
        store.close()
    return summary, results, standings


def game_results(store: ResultStore) -> dict:
    """Per game: the finishing order, the points, and who faulted how."""
    return {row.key: (row.finishing_order, row.points, tuple((f["seat"], f["kind"]) for f in row.faults))
            for row in store.rows(with_transcripts=False)}


def standings_key(standings):
    return [(b.bot, b.games, b.points, b.wins, b.skitgubbe, b.places) for b in standings.bots]


def marker_processes(marker: str) -> list[int]:
    return live_processes_with("environ", f"ARENA_TEST_MARKER={marker}")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> SimpleNamespace:
    """write_config's tournament played by one worker without a pause, once for the module: the
    reference the tests below compare their runs with (read only; a test that needs its games in a
    file of its own copies the file, `copy_results`)."""
    config = write_config(tmp_path_factory.mktemp("reference"), "t")
    summary, results, standings = run_in_process(config, workers=1)
    return SimpleNamespace(config=config, summary=summary, results=results, standings=standings)


def copy_results(reference: Path, folder: Path) -> Path:
    """The reference's config and results file in `folder`, copied through SQLite's backup."""
    config = write_config(folder, reference.stem)
    with connected(reference.with_suffix(".sqlite")) as source, connected(config.with_suffix(".sqlite")) as copy:
        source.backup(copy)
    source.close()
    copy.close()
    return config


def test_two_workers_give_the_same_results_as_one(tmp_path, uninterrupted):
    summary1, results1, standings1 = uninterrupted.summary, uninterrupted.results, uninterrupted.standings
    summary2, results2, standings2 = run_in_process(write_config(tmp_path, "t"), workers=2)
    assert summary1.played == summary2.played == 4 * 2 * 6
    assert results1 == results2
    assert standings_key(standings1) == standings_key(standings2)


def test_a_second_run_plays_nothing_more(tmp_path):
    config = write_config(tmp_path, "again", deals=1)
    first, results, _ = run_in_process(config, workers=1)
    second, results_again, _ = run_in_process(config, workers=1)
    assert first.played == 24
    assert second.played == 0 and second.already_done == 24
    assert results == results_again


def test_raising_deals_plays_only_the_new_ones_and_ends_as_if_they_had_been_there_from_the_start(tmp_path, uninterrupted):
    """More deals for a tighter interval: the stored games stay, only the new deals are played,
    and the result equals a run with that many deals from the start. This holds because game
    numbers go by deal: the crasher crashes in even-numbered games, and the random bot seeds
    itself from the number, so a renumbering would show here."""
    from typer.testing import CliRunner

    from arena.cli.app import app

    grown_dir = tmp_path / "grown"
    grown_dir.mkdir()
    reference_results, reference_standings = uninterrupted.results, uninterrupted.standings  # deals = 2
    runner = CliRunner()
    config = write_config(grown_dir, "t", deals=1)
    first = runner.invoke(app, ["tournament", "run", str(config), "--workers", "1"])
    assert first.exit_code == 0 and "done: 24 games stored (24 played now)" in " ".join(first.output.split())
    write_config(grown_dir, "t", deals=2)
    shown = runner.invoke(app, ["standings", str(config)])  # before the run: the stored games, with a note
    assert shown.exit_code == 0 and "the config has 2 deals, the results 1" in " ".join(shown.output.split())
    grown = runner.invoke(app, ["tournament", "run", str(config), "--workers", "2"])
    said = " ".join(grown.output.split())
    assert grown.exit_code == 0 and "note: deals raised from 1 to 2" in said, said
    assert "done: 48 games stored (24 played now)" in said
    assert_same_results(config.with_suffix(".sqlite"), reference_results, reference_standings)
    write_config(grown_dir, "t", deals=1)  # fewer deals would leave stored games outside the schedule
    lowered = runner.invoke(app, ["tournament", "run", str(config)])
    assert lowered.exit_code == 2 and "deals may rise, to play more, but not fall" in " ".join(lowered.output.split())


def forget_games_after(database: Path, table_no: int, keep: int) -> int:
    """Delete all but the first `keep` stored games of one table: what a kill mid-table leaves."""
    with connected(database) as db:
        ids = [i for (i,) in db.execute("SELECT id FROM games WHERE table_no = ? ORDER BY key", (table_no,))][keep:]
        for table in ("seat_results", "faults"):
            db.executemany(f"DELETE FROM {table} WHERE game_id = ?", [(i,) for i in ids])
        db.executemany("DELETE FROM transcripts WHERE game_id = ?", [(i,) for i in ids])
        db.executemany("DELETE FROM games WHERE id = ?", [(i,) for i in ids])
    return len(ids)


def test_a_table_resumed_mid_way_with_a_crashing_bot_matches_the_uninterrupted_run(tmp_path, uninterrupted):
    """The crasher faults in games 2, 4, ... of its tables. A resumed table starts fresh processes, so
    only a run that restarts a crashed bot before its next game can agree with the resumed one."""
    reference_results, reference_standings = uninterrupted.results, uninterrupted.standings
    crasher_tables = {int(key[1:5]) for key, (_, _, faults) in reference_results.items() if faults}
    assert crasher_tables, "the crashing bot never crashed: the test proves nothing"

    config = copy_results(uninterrupted.config, tmp_path)  # the whole run, of which a kill keeps the start
    forgotten = sum(forget_games_after(tmp_path / "t.sqlite", table, keep=3) for table in crasher_tables)
    summary, results, standings = run_in_process(config, workers=1)
    assert summary.played == forgotten > 0
    assert results == reference_results
    assert standings_key(standings) == standings_key(reference_standings)


def worker_pids(arena_pid: int) -> list[int]:
    """The arena's tournament workers: its children started by multiprocessing's spawn."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if parent == arena_pid and b"spawn_main" in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue  # it ended while we looked
    return pids


@pytest.mark.parametrize("victim", ["arena", "worker"])
def test_sigkill_then_resume_ends_with_the_uninterrupted_standings(tmp_path, victim, uninterrupted):
    # The promise for the arena; for one worker (the kernel's OOM killer, say) the
    # arena must also stop at once, say which worker died, and resume as well. With a shared
    # queue, the arena only noticed when every worker had ended, and could hang for good.
    killed_dir = tmp_path / "killed"
    killed_dir.mkdir()
    reference_results, reference_standings = uninterrupted.results, uninterrupted.standings

    config = write_config(killed_dir, "t")
    marker = uuid.uuid4().hex
    env = {**os.environ, "ARENA_TEST_MARKER": marker}
    command = [sys.executable, "-m", "arena", "tournament", "run", str(config), "--workers", "2"]
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    database = killed_dir / "t.sqlite"
    deadline = time.monotonic() + 60
    stored = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if database.exists():
            try:
                with connected(database, timeout_s=1) as db:
                    stored = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.Error:
                stored = 0
        if stored >= 8:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    if victim == "arena":
        os.kill(proc.pid, signal.SIGKILL)
    else:
        workers = worker_pids(proc.pid)
        assert len(workers) == 2, workers
        os.kill(workers[0], signal.SIGKILL)
    output, _ = proc.communicate(timeout=60)
    if victim == "worker":
        assert proc.returncode == 1, output
        assert f"(pid {workers[0]}) was killed by SIGKILL while it played table" in output, output
        assert "Resume with: arena tournament run" in output and "Traceback" not in output

    # Workers and bots die with the arena (parent-death signal), leaving nothing behind.
    deadline = time.monotonic() + 15
    while marker_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker_processes(marker) == []

    with connected(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        partial = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert 8 <= partial < 48

    resumed = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert_no_load_faults(database)
    store = ResultStore(database)
    try:
        results = game_results(store)
        standings = compute_standings(store, [b.bot for b in reference_standings.bots])
    finally:
        store.close()
    assert results == reference_results  # nothing lost, nothing played twice
    assert standings_key(standings) == standings_key(reference_standings)


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="needs Linux")
def test_ctrl_c_stops_cleanly_keeps_games_and_says_how_to_resume(tmp_path):
    # A long schedule on purpose: the tables still queued for the worker pickle to more than a
    # pipe holds, which once left the arena hanging after "stopped" (only 4 games are played).
    config = write_config(tmp_path, "t", deals=300)
    marker = uuid.uuid4().hex
    env = {**os.environ, "ARENA_TEST_MARKER": marker}
    command = [sys.executable, "-m", "arena", "tournament", "run", str(config), "--workers", "1"]
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    database = tmp_path / "t.sqlite"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if database.exists():
            try:
                with connected(database, timeout_s=1) as db:
                    if db.execute("SELECT COUNT(*) FROM games").fetchone()[0] >= 4:
                        break
            except sqlite3.Error:
                pass
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "resume with: arena tournament run" in output
    assert "Traceback" not in output
    deadline = time.monotonic() + 10
    while marker_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker_processes(marker) == []


@pytest.mark.parametrize("delay_s", [0.1, 0.2, 0.3, 0.45, 0.6, 0.8])
def test_ctrl_c_during_start_up_ends_quietly_and_leaves_nothing(tmp_path, delay_s):
    # Ctrl-C reaches the whole foreground process group: the arena while it still imports, and
    # workers still starting. Each used to die with a traceback or "Fatal Python error", and a
    # KeyboardInterrupt swallowed by an import-lock callback once let the run go on to the end.
    config = write_config(tmp_path, "t", deals=50)
    marker = uuid.uuid4().hex
    env = {**os.environ, "ARENA_TEST_MARKER": marker}
    command = [sys.executable, "-m", "arena", "tournament", "run", str(config), "--workers", "2"]
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    time.sleep(delay_s)
    os.killpg(proc.pid, signal.SIGINT)
    output, _ = proc.communicate(timeout=60)
    deadline = time.monotonic() + 10
    while marker_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker_processes(marker) == []
    if proc.returncode != 130 and _interrupted_before_our_code(output):
        pytest.skip(f"Ctrl-C at {delay_s} s landed in the interpreter's own start-up (a slow or loaded machine): "
                    "this delay tested nothing of ours")
    assert proc.returncode == 130, output
    assert "Traceback" not in output and "Fatal" not in output and "Exception ignored" not in output


def _interrupted_before_our_code(output: str) -> bool:
    """True when the interrupt came before any function of ours ran, so none could handle it.

    For its first milliseconds the interpreter dies of SIGINT silently (no handler yet), then
    raises KeyboardInterrupt in site, runpy or the imports of our entry modules. Here those
    windows end about 20 ms after the start; CI once hit the first at 0.2 s on a loaded machine.
    """
    if output == "":
        return True
    frames = re.findall(r'File "([^"]+)", line \d+, in (\S+)', output)
    our_functions = [function for path, function in frames
                     if Path(path).is_relative_to(REPO / "arena") and function != "<module>"]
    return "KeyboardInterrupt" in output and not our_functions


@pytest.mark.parametrize("command", [["tournament", "run", "t.toml"], ["play", "./slow", "random_bot", "random_bot"],
                                     ["bot", "check", "./slow"]], ids=["tournament run", "play", "bot check"])
def test_ctrl_c_during_a_build_says_what_it_stopped_and_leaves_nothing(tmp_path, command):
    """A Ctrl-C while a bot was being built ended the command with exit code 130 and no word."""
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "bot.py").write_text((REPO / "bots" / "random_bot" / "bot.py").read_text())
    # The build runs isolated where it can (it writes only its folder, and nothing of the arena's
    # environment reaches it): its sleep is found by the unique length it sleeps.
    nap = f"60.{uuid.uuid4().int % 10**9:09d}"
    (slow / "bot.toml").write_text('name = "slow"\ncommand = ["{python}", "bot.py"]\n'
                                   f'build = ["sh", "-c", "touch building; sleep {nap}"]\n')
    (tmp_path / "t.toml").write_text('bots = ["random_bot", "heuristic_bot", "./slow"]\ndeals = 1\n')
    marker = uuid.uuid4().hex
    env = {**os.environ, "ARENA_TEST_MARKER": marker, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "arena", *command], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 30  # the build runs in the bot's prepared copy: its sleep says it started
    while not live_processes_with("cmdline", nap) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert live_processes_with("cmdline", nap), "the build step never started"
    assert not (slow / "building").exists()  # never in the author's folder
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=30)
    said = " ".join(output.split())
    assert proc.returncode == 130, said
    assert "interrupted" in said and "build" in said and "Traceback" not in said
    deadline = time.monotonic() + 10
    while (marker_processes(marker) or live_processes_with("cmdline", nap)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker_processes(marker) == [] and live_processes_with("cmdline", nap) == []  # the build's sleep is gone


def test_a_results_file_of_an_earlier_arena_is_upgraded_by_the_next_run(tmp_path, uninterrupted):
    """A file of schema version 1 (no kept totals): the reports read it as it is, the next run
    sums its totals once and goes on; the standings are those of a run that never paused."""
    from typer.testing import CliRunner

    from arena.cli.app import app as cli
    from tests.results.test_totals import as_version_1, assert_kept_equals_summed_again

    runner = CliRunner()
    config = write_config(tmp_path, "t", deals=1)
    assert runner.invoke(cli, ["tournament", "run", str(config), "--workers", "1"]).exit_code == 0
    database = config.with_suffix(".sqlite")
    as_version_1(database)
    shown = runner.invoke(cli, ["standings", str(config), "--format", "json"])
    assert shown.exit_code == 0 and '"games": 24' in shown.output
    write_config(tmp_path, "t", deals=2)
    grown = runner.invoke(cli, ["tournament", "run", str(config), "--workers", "1"])
    assert grown.exit_code == 0 and "done: 48 games stored (24 played now)" in " ".join(grown.output.split())
    with connected(database) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("3",)
    db.close()
    assert_kept_equals_summed_again(database)
    assert_same_results(database, uninterrupted.results, uninterrupted.standings)


def assert_same_results(database: Path, reference_results, reference_standings) -> None:
    """The games stored in `database` and their standings are those of the reference run."""
    store = ResultStore(database)
    try:
        assert game_results(store) == reference_results
        entries = [b.bot for b in reference_standings.bots]
        assert standings_key(compute_standings(store, entries)) == standings_key(reference_standings)
    finally:
        store.close()
