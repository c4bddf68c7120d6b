"""Hostile bots through the real match layer: contained, recorded as the right fault, nothing left running."""

from __future__ import annotations

import os
import resource
import time

import pytest

from arena.game import Rules
from arena.submission.lookup import load_manifest
from arena.play.startup import BotSettings
from arena.play.match import open_table, play_match
from arena.sandbox.child import can_unshare_pid
from arena.play.records import FaultKind, TimeLimits
from arena.transport.process_tree import TOKEN_ENV
from tests.bots_support import hostile_bot, live_processes_with




def token_pids(token: str) -> list[int]:
    return live_processes_with("environ", f"{TOKEN_ENV}={token}")


def play_hostile(mode: str, *, move_timeout: float = 0.3, games: int = 1, sandbox_limits=None):
    """Bot under test at seat 0 vs random_bot; returns (faults of seat 0, tokens, seconds)."""
    manifests = [load_manifest(hostile_bot(mode)), load_manifest("random_bot")]
    limits = TimeLimits(move_timeout_s=move_timeout, startup_timeout_s=5.0)
    settings = BotSettings(limits=limits, sandbox_limits=sandbox_limits)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    with open_table(manifests, settings) as seats:
        tokens = [seat.transport.process.token for seat in seats]
        assert seats[0].alive, seats[0].dead_reason
        result = play_match(seats, Rules.from_options({"num_players": "2"}), 7, games=games, limits=limits)
    elapsed = time.monotonic() - started
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert rss_after - rss_before < 200_000, f"arena memory grew by {rss_after - rss_before} KB"
    time.sleep(0.05)
    for token in tokens:
        assert token_pids(token) == [], f"{mode}: processes left behind"
    faults = [f for r in result.records for f in r.faults if f.seat == 0]
    assert not [f for r in result.records for f in r.faults if f.seat == 1]
    return faults, elapsed


def kinds(faults):
    return {f.kind for f in faults}


def test_forker_is_killed_at_the_process_limit():
    faults, _ = play_hostile("forker", move_timeout=3.0, sandbox_limits={"processes": 32})
    assert faults and faults[0].kind is FaultKind.EXITED
    assert "sandbox" in faults[0].detail and "32" in faults[0].detail
    # Killed by the guard, and said so: the PID-namespace keeper used to turn SIGKILL into exit code 255.
    assert "SIGKILL" in faults[0].detail or not can_unshare_pid(), faults[0].detail


def test_a_bot_of_one_process_plays_under_a_limit_of_one_process():
    """The PID-namespace keeper once joined the bot's cgroup first: it took one of the bot's
    processes, and with processes = 1 the bot could not start at all."""
    manifests = [load_manifest("random_bot"), load_manifest("random_bot")]
    limits = TimeLimits(move_timeout_s=3.0, startup_timeout_s=5.0)
    with open_table(manifests, BotSettings(limits=limits, sandbox_limits={"processes": 1})) as seats:
        assert all(seat.alive for seat in seats), [seat.dead_reason for seat in seats]
        result = play_match(seats, Rules.from_options({"num_players": "2"}), 7, games=1, limits=limits)
    assert [f for r in result.records for f in r.faults] == []


def test_memory_hog_is_stopped_by_rlimit_as():
    faults, _ = play_hostile("memhog", move_timeout=5.0, sandbox_limits={"address_space_mb": 512})
    assert faults and faults[0].kind is FaultKind.EXITED
    # the bot died of MemoryError long before 4 GB


def test_stdout_flood_without_newline_is_overlong():
    faults, _ = play_hostile("flood")
    assert faults[0].kind is FaultKind.OVERLONG
    assert kinds(faults) <= {FaultKind.OVERLONG, FaultKind.DEAD}


def test_stdout_flood_of_lines_costs_three_malformed_answers_per_game_and_then_the_game():
    """The flood is cut off after 3 answers that are no move line: the bot is killed, the rest of
    the game is the referee's (`dead`, not counted), and the next game gets a fresh process, which
    floods again and is cut off again."""
    faults, _ = play_hostile("flood_lines", games=2)
    counted = [f for f in faults if f.kind is not FaultKind.DEAD]
    assert [f.kind for f in counted] == [FaultKind.MALFORMED] * 6
    assert {f.detail for f in faults if f.kind is FaultKind.DEAD} == {
        "flooding: 3 answers in a row answered no open request (no move line, or a move for a request that is over)"}


def test_closed_stdout_is_exited():
    faults, elapsed = play_hostile("close_stdout")
    assert faults[0].kind is FaultKind.EXITED and "stdout" in faults[0].detail


def test_grandchild_holding_the_pipe_is_found_and_killed():
    faults, elapsed = play_hostile("grandchild", move_timeout=5.0)
    assert faults[0].kind is FaultKind.EXITED
    assert elapsed < 4.0  # the exit is seen without waiting out the move timeout


def test_sigterm_ignorer_is_killed():
    faults, elapsed = play_hostile("ignore_term")
    assert faults == []
    assert elapsed < 6.0


def test_sandbox_describe_reports_what_is_in_force():
    from arena.sandbox.limits import Limits
    from arena.sandbox.guard import describe

    info = describe(Limits())
    assert info["address_space_mb"] == 1024 and info["processes"] == 64
    assert "process_limit_by" in info and "no_network" in info
    if os.getuid() == 0:
        assert "root" in info["rlimit_nproc"]


def test_no_network_inside_the_sandbox(tmp_path):
    from arena.sandbox.limits import Limits
    from arena.sandbox.child import can_unshare_net, make_preexec
    import subprocess
    import sys

    if not can_unshare_net():
        pytest.skip("unshare(CLONE_NEWNET) not permitted here (the sandbox reports it in describe())")
    code = "import socket; s=socket.socket(); s.settimeout(1)\ntry:\n s.connect(('1.1.1.1', 53)); print('net')\nexcept OSError as e: print('nonet', e.errno)"
    done = subprocess.run([sys.executable, "-c", code], preexec_fn=make_preexec(Limits()), capture_output=True,
                          text=True, timeout=10)
    assert done.stdout.startswith("nonet"), done.stdout + done.stderr


def test_forker_without_cgroup_is_killed_by_the_watchdog(monkeypatch):
    import arena.sandbox.guard as sandbox

    monkeypatch.setattr(sandbox._Cgroup, "create", classmethod(lambda cls, limits: None))
    faults, _ = play_hostile("forker", move_timeout=3.0, sandbox_limits={"processes": 40}, games=2)
    # In every game (hostile-bot audit: no kill in a 2-game match). Where the bot does not run as
    # root (isolation under a root arena, or an ordinary arena), RLIMIT_NPROC is there too: it
    # must stop a fork bomb without stopping the bot short of the limit the watchdog acts on.
    kills = [f for f in faults if f.kind is FaultKind.EXITED]
    assert len(kills) == 2 and all("sandbox: more than 40 processes" in f.detail for f in kills), faults


def test_without_cgroup_the_watchdog_does_not_count_the_namespace_keeper():
    """The keeper is a forked copy of the arena: counted, it made processes = 1 kill every bot,
    and its resident pages (the arena's) counted against the bot's memory."""
    import sys

    from arena.sandbox.guard import BotGuard, WATCH_INTERVAL_S
    from arena.sandbox.limits import Limits
    from arena.sandbox.child import can_unshare_pid, is_keeper
    from arena.transport.bot_process import BotProcess

    if not can_unshare_pid():
        pytest.skip("no PID namespace here, so no keeper to leave out")
    arena_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    # A bare Python process needs about 10 MB; the keeper holds as much as the arena.
    guard = BotGuard(Limits(processes=1, memory_mb=max(30, arena_rss_mb // 2)), use_cgroup=False)
    proc = BotProcess.start([sys.executable, "-c", "import sys; sys.stdin.read()"], preexec=guard.preexec)
    try:
        guard.attach(proc)
        assert is_keeper(proc.pid), "the arena started no keeper: the test proves nothing"
        time.sleep(WATCH_INTERVAL_S * 5)
        assert guard.violation is None and proc.returncode is None
    finally:
        proc.close(grace_s=0.2)
        guard.close()


def test_cgroups_are_removed_after_the_match():
    from arena.sandbox.cgroup import CGROUP_PREFIX, CGROUP_ROOT

    play_hostile("forker", move_timeout=3.0, sandbox_limits={"processes": 32})
    mine = f"{CGROUP_PREFIX}{os.getpid()}-"
    left = [p for base in (CGROUP_ROOT, CGROUP_ROOT / "pids", CGROUP_ROOT / "memory") if base.is_dir()
            for p in base.glob(f"{mine}*")]
    assert left == []
