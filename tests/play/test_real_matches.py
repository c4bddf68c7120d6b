"""Every bundled bot plays full matches through the real referee; ZeroMQ over ipc, tcp and as a service."""

from __future__ import annotations

import dataclasses
import os
import signal
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.game import EndReason, Rules
from arena.submission.prepared import prepare_bot
from arena.submission.manifest import BotManifest
from arena.submission.lookup import load_manifest
from arena.play.startup import BotSettings
from arena.play.match import open_table, play_match

REPO = Path(__file__).resolve().parents[2]
NEEDS = {"c_bot": ("make", "cc"), "js_bot": ("node",), "shell_bot": ("awk",)}


def bundled(name: str) -> BotManifest:
    missing = [tool for tool in NEEDS.get(name, ()) if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{name} needs {', '.join(missing)}, which this machine lacks")
    return prepare_bot(load_manifest(name)).manifest  # as a command runs it: its prepared copy


def play(manifests, games=3, seed=11, grants=None):
    with open_table(manifests, BotSettings(grants=grants)) as seats:
        assert all(seat.alive for seat in seats), [seat.dead_reason for seat in seats]
        return play_match(seats, Rules(num_players=len(manifests)), seed, games=games)


@pytest.mark.parametrize("name", ["random_bot", "heuristic_bot", "c_bot", "js_bot", "shell_bot", "zmq_bot"])
def test_each_bundled_bot_plays_a_full_match_without_a_fault(name):
    result = play([bundled(name), bundled("random_bot"), bundled("heuristic_bot")])
    assert len(result.records) == 3
    for record in result.records:
        assert record.faults == ()
        assert record.outcome.reason is EndReason.NORMAL


def test_zmq_bot_started_by_the_arena_over_tcp_loopback():
    """Granted by the organiser (docs/sandbox.md): under isolation in a network of its own, joined
    to the arena by the relay; without isolation on the host's loopback."""
    manifest = dataclasses.replace(bundled("zmq_bot"), zmq_endpoint_kind="tcp")
    result = play([manifest, bundled("random_bot"), bundled("random_bot")], games=2,
                  grants={"zmq_bot": {"zmq_tcp": True}})
    assert all(r.faults == () for r in result.records)


def test_a_tcp_endpoint_the_organiser_did_not_grant_is_refused_at_the_start():
    manifest = dataclasses.replace(bundled("zmq_bot"), zmq_endpoint_kind="tcp")
    with open_table([manifest, bundled("random_bot")], BotSettings()) as seats:
        assert not seats[0].alive and seats[1].alive
    assert "zmq_endpoint_kind" in seats[0].dead_reason and "only the organiser grants" in seats[0].dead_reason


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_one_zmq_service_plays_several_games_at_once():
    port = _free_port()
    endpoint = f"tcp://127.0.0.1:{port}"
    service = subprocess.Popen([sys.executable, str(REPO / "bots" / "zmq_bot" / "bot.py"), "--serve", endpoint],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(0.3)
        remote = BotManifest(name="zmq_service", directory=REPO / "bots" / "zmq_bot", command=(),
                             transport="zmq", endpoint=endpoint)
        results, errors = [], []

        def table(seed: int) -> None:
            try:
                results.append(play([remote, bundled("random_bot"), bundled("heuristic_bot")], games=2, seed=seed))
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=table, args=(seed,)) for seed in (1, 2, 3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert not errors
        assert len(results) == 3
        for result in results:
            assert all(r.faults == () for r in result.records)
        assert service.poll() is None  # `quit` ends a conversation, not the service
    finally:
        service.kill()
        service.wait()


def test_a_bot_that_cannot_start_is_recorded_and_the_match_finishes(tmp_path):
    (tmp_path / "bot.toml").write_text('name = "ghost"\ncommand = ["./does-not-exist"]\ntransport = "pipe"\n')
    ghost = load_manifest(tmp_path / "bot.toml")
    with open_table([ghost, bundled("random_bot"), bundled("random_bot")], BotSettings()) as seats:
        assert not seats[0].alive and "cannot start" in seats[0].dead_reason
        result = play_match(seats, Rules(), 3, games=1)
    record = result.records[0]
    assert record.outcome.reason is EndReason.NORMAL
    assert {f.seat for f in record.faults} == {0}


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to inspect the process table")
def test_no_bot_process_is_left_after_a_match():
    manifests = [bundled("random_bot"), bundled("js_bot"), bundled("c_bot")]
    with open_table(manifests, BotSettings()) as seats:
        pids = [seat.transport.process.pid for seat in seats]
        play_match(seats, Rules(), 5, games=1)
    time.sleep(0.1)
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                state = stat.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            continue
        pytest.fail(f"bot process {pid} still exists (state {state}): neither killed nor reaped")


def _marker_alive(marker: str) -> list[int]:
    needle = f"ARENA_TEST_MARKER={marker}".encode()
    alive = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if needle in handle.read():
                        alive.append(int(entry))
            except OSError:
                pass
    return alive


def _descendants(pid: int) -> set[int]:
    """Live (not zombie) processes below `pid`: a sandboxed bot's environment carries no marker of
    the test's, so the bots are found by descent (bubblewrap's processes and the bots under them)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] not in ("Z", "X"):
                parents[int(entry)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_arena_play_stopped_by_a_signal_leaves_no_bot_behind(sig):
    import uuid

    marker = uuid.uuid4().hex
    env = {**os.environ, "ARENA_TEST_MARKER": marker}
    proc = subprocess.Popen([sys.executable, "-m", "arena", "play", "random_bot", "js_bot", "c_bot", "--games", "100000"],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(_descendants(proc.pid)) < 3 and time.monotonic() < deadline:  # the three bots, started
        time.sleep(0.05)
    time.sleep(0.3)
    bots = _descendants(proc.pid)
    assert len(bots) >= 3, bots
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode != 0
    assert "Traceback" not in err
    deadline = time.monotonic() + 10
    while (_marker_alive(marker) or any(os.path.exists(f"/proc/{pid}") for pid in bots)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marker_alive(marker) == []
    assert [pid for pid in bots if os.path.exists(f"/proc/{pid}")] == []
