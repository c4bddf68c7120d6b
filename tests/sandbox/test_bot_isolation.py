"""A bot cannot reach outside itself: not the arena, not the other bots, and nothing it starts
outlives it (the sandbox's own PID namespace per bot, docs/sandbox.md).

Both attacks run as the arena's own user, which is what a bot is: without the namespace the
first test's bot kills the arena and its opponents, and the second one's process survives.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from arena.game import Rules
from arena.submission.lookup import load_manifest
from arena.play.startup import BotSettings
from arena.play.match import open_table, play_match
from arena.play.records import TimeLimits
from arena.sandbox.child import can_unshare_pid
from tests.bots_support import hostile_bot, live_processes_with

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not can_unshare_pid(),
    reason="unshare(CLONE_NEWPID) is not permitted here (needs root or CAP_SYS_ADMIN); docs/sandbox.md says "
           "what is not contained without it")


def test_a_bot_cannot_kill_the_arena_or_its_opponents():
    victim = uuid.uuid4().hex  # the arena and every bot carry it in their environment
    env = {**os.environ, "ARENA_TEST_VICTIM": victim}
    played = subprocess.run(
        [sys.executable, "-m", "arena", "play", str(hostile_bot("kill_others")), "random_bot", "random_bot",
         "--games", "2"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stdout + played.stderr  # the arena was not killed
    assert "Match result after 2 games" in played.stdout
    assert "fault" not in played.stdout, played.stdout  # nor were the random bots


def test_a_bot_cannot_write_lines_into_its_opponents_stdout():
    # Through the host's /proc a bot could open another bot's stdout (/proc/<pid>/fd/1) and send
    # an overlong line in its name: both opponents were charged `overlong` and dropped.
    victim = uuid.uuid4().hex
    env = {**os.environ, "ARENA_TEST_VICTIM": victim}
    played = subprocess.run(
        [sys.executable, "-m", "arena", "play", str(hostile_bot("write_others")), "random_bot", "heuristic_bot",
         "--games", "2"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stdout + played.stderr
    assert "Match result after 2 games" in played.stdout
    assert "fault" not in played.stdout and "overlong" not in played.stdout, played.stdout


def _marked_processes(mark: str) -> list[int]:
    return live_processes_with("cmdline", mark)


def test_a_process_that_leaves_the_bots_session_cgroup_and_token_still_ends_with_it():
    mark = "escaped-" + uuid.uuid4().hex
    limits = TimeLimits(move_timeout_s=5.0, startup_timeout_s=10.0)
    escaper = replace(load_manifest(hostile_bot("escape")), command=("{python}", "hostile.py", "escape", mark))
    manifests = [escaper, load_manifest("random_bot")]
    with open_table(manifests, BotSettings(limits=limits)) as seats:
        result = play_match(seats, Rules.from_options({"num_players": "2"}), 3, games=1, limits=limits)
        assert result.records[0].faults == ()
        deadline = time.monotonic() + 5  # a short game can end before the escaper's exec does
        while not _marked_processes(mark) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _marked_processes(mark), "the escaping process never started: the test proves nothing"
    deadline = time.monotonic() + 5
    while _marked_processes(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _marked_processes(mark) == []
