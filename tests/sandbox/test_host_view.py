"""What a sandbox shows of the machine (issue 39, docs/sandbox.md): no counter of the whole machine
that one bot can move and another read, and nothing of the organiser's own.

The channel: two colluding bots at one table (tests/bots/hostile/channel.py), one moving the
machine's open files, inodes, threads, forks and free memory in a pattern of 40 bits, the other
reading every counter it can find. An audit passed 150 of 150 bits through /proc/sys/fs/file-nr.
Now the reader's errors are those of a guess, while the arena itself, reading the same file on the
host, decodes the sender's bits (so the sender did move the counter). Under a root arena and under
an ordinary one, as tests/sandbox/test_trust_boundary.py runs its attacks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from arena.game import Rules
from arena.play.match import open_table, play_match
from arena.play.records import TimeLimits
from arena.play.startup import BotSettings
from arena.sandbox.isolation import find_isolation
from arena.submission.lookup import load_manifest
from arena.submission.prepared import prepare_bot
from tests.bots_support import HOSTILE_BOTS, ROOT, hostile_bot

ISOLATION = find_isolation()
isolated = pytest.mark.skipif(not ISOLATION.active, reason=f"no isolation on this machine: {ISOLATION.why_not}")
as_root_only = pytest.mark.skipif(os.getuid() != 0, reason="runs the arena as another user: needs root (an ordinary "
                                                           "arena runs the same attack as itself)")
CHANCE = 0.3  # a reader with no information errs on about half of the bits; 40 bits: below 30% by luck < 1%


def _said(logs: Path, label: str) -> list[str]:
    path = logs / f"{label}.stderr.log"
    return [line[len("channel: "):] for line in (path.read_text() if path.exists() else "").splitlines()
            if line.startswith("channel: ")]


def _host_decode(samples: list[tuple[float, int]], t0: float, slot_s: float, bits: int) -> list[int]:
    """The sender's bits as the host's own /proc/sys/fs/file-nr shows them, decoded as the receiver
    decodes what it reads: each slot's mean against the middle of the low and high levels."""
    means = []
    for index in range(bits):
        start = t0 + index * slot_s
        inside = [value for at, value in samples if start + 0.4 * slot_s <= at <= start + 0.9 * slot_s]
        means.append(sum(inside) / len(inside) if inside else 0.0)
    known = sorted(means)
    middle = (known[len(known) // 10] + known[-1 - len(known) // 10]) / 2
    return [1 if mean > middle else 0 for mean in means]


def attack_channel(folder: str) -> dict:
    """The two bots play a match while the host samples its file-nr; what each end said, and the
    host's own decoding of the sender's slots."""
    logs = Path(folder) / "logs"
    samples: list[tuple[float, int]] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            with open("/proc/sys/fs/file-nr") as f:
                samples.append((time.time(), int(f.read().split()[0])))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    limits = TimeLimits(move_timeout_s=30.0, startup_timeout_s=30.0)
    settings = BotSettings(limits=limits, log_dir=logs)
    try:
        with open_table([load_manifest(hostile_bot("channel_send")), load_manifest(hostile_bot("channel_recv"))],
                        settings) as seats:
            result = play_match(seats, Rules.from_options({"num_players": "2"}), 5, games=1, limits=limits)
    finally:
        stop.set()
        sampler.join()
    sent_line = _said(logs, "seat0-channel_send")[0]  # "sent BITS t0=EPOCH slot=S"
    words = dict(word.split("=") for word in sent_line.split()[2:])
    sent = sent_line.split()[1]
    received = {line.split()[1]: line.split()[2] for line in _said(logs, "seat1-channel_receive")}
    host = _host_decode(samples, float(words["t0"]), float(words["slot"]), len(sent))
    return {"sent": sent, "received": received, "host": "".join(map(str, host)),
            "faults": [(f.kind.value, f.detail) for r in result.records for f in r.faults]}


def _errors(sent: str, got: str) -> float:
    return sum(a != b for a, b in zip(sent, got)) / len(sent)


def assert_no_better_than_chance(seen: dict) -> None:
    sent = seen["sent"]
    assert len(sent) == 40 and 10 <= sent.count("1") <= 30, sent
    assert seen["faults"] == [], seen["faults"]
    assert _errors(sent, seen["host"]) <= 0.15, (sent, seen["host"])  # the sender did move the machine's file-nr
    assert set(seen["received"]) >= {"file-nr", "inode-nr", "loadavg-threads", "stat-processes", "meminfo-used",
                                     "sysinfo-procs", "sysinfo-used"}, seen["received"]
    for medium, got in seen["received"].items():
        assert len(got) == len(sent) and _errors(sent, got) >= CHANCE, (medium, sent, got)


@isolated
@pytest.mark.slow
def test_two_bots_pass_no_bit_through_the_machine_s_counters(tmp_path):
    assert_no_better_than_chance(attack_channel(str(tmp_path)))


def attack_view(folder: str) -> dict:
    """A bot prepared in a build cache of this test's, at a table, says what it sees of the machine."""
    bot = Path(folder) / "view_probe"
    bot.mkdir()
    shutil.copy(HOSTILE_BOTS / "view_probe.py", bot / "view_probe.py")
    (bot / "bot.toml").write_text('name = "view_probe"\ncommand = ["{python}", "view_probe.py"]\n'
                                  '[limits]\nmemory_mb = 700\n')
    cache = Path(folder) / "organisers-home" / ".cache" / "builds"
    prepared = prepare_bot(load_manifest(bot), cache=cache)
    logs = Path(folder) / "logs"
    limits = TimeLimits(move_timeout_s=10.0, startup_timeout_s=30.0)
    with open_table([prepared.manifest, load_manifest("random_bot")], BotSettings(limits=limits, log_dir=logs)) as seats:
        play_match(seats, Rules.from_options({"num_players": "2"}), 5, games=1, limits=limits)
    said = (logs / "seat0-view_probe.stderr.log").read_text().splitlines()
    view = json.loads(next(line for line in said if line.startswith("view: "))[len("view: "):])
    return {**view, "cache": str(cache), "copy": str(prepared.manifest.directory)}


def assert_a_neutral_view(seen: dict) -> None:
    assert seen["cwd"] == "/bot" and seen["hostname"] == "arena", seen
    assert seen["proc_sys"] == [] and seen["file_nr"].startswith("unreadable"), seen
    assert seen["meminfo"] == ["MemTotal:         716800 kB"], seen["meminfo"]  # its own 700 MB, not the machine's
    assert seen["loadavg"] == "0.00 0.00 0.00 1/1 1"
    assert seen["sysinfo"] == [700 << 20, 1, [0, 0, 0]], seen["sysinfo"]
    assert {line.split(":")[0] for line in seen["users"]} <= {"root", "nobody", "bot"}, seen["users"]  # not the machine's
    roots = {mount_point: root for root, mount_point in seen["mounts"]}
    assert "/bot" in roots, seen["mounts"]
    for root, _ in seen["mounts"]:  # no bind names the organiser's cache, nor the copy in it
        assert "organisers-home" not in root and seen["cache"] not in root and seen["copy"] not in root, root


@isolated
def test_a_bot_sees_its_folder_at_bot_and_nothing_of_the_organiser_s_cache_or_machine(tmp_path):
    assert_a_neutral_view(attack_view(str(tmp_path)))


NON_ROOT_ARENA = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {root!r})
    from tests.sandbox.test_host_view import {attack}
    print(json.dumps({attack}({folder!r})))
""")


@isolated
@as_root_only
@pytest.mark.slow
def test_two_bots_pass_no_bit_through_the_machine_s_counters_under_an_arena_that_is_not_root(tmp_path):
    assert_no_better_than_chance(_as_another_user("attack_channel", tmp_path))


@isolated
@as_root_only
def test_a_bot_sees_as_little_under_an_arena_that_is_not_root(tmp_path):
    assert_a_neutral_view(_as_another_user("attack_view", tmp_path))


def _as_another_user(attack: str, tmp_path: Path) -> dict:
    """What `attack` returns run by an arena as uid 1000 in a user namespace of its own."""
    code = NON_ROOT_ARENA.format(root=str(ROOT), attack=attack, folder=str(tmp_path))
    command = [shutil.which("bwrap"), "--unshare-user", "--uid", "1000", "--gid", "1000", "--dev-bind", "/", "/", "--",
               sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, cwd=ROOT,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "user-cache")})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_what_a_gone_arena_process_left_in_memory_is_removed_by_the_next():
    """A worker ends without its exit handlers, a killed arena too: their views and bot stages in
    /dev/shm are removed when the next arena process makes its own."""
    from arena.sandbox import host_view

    where = Path(host_view._in_memory() or tempfile.gettempdir())
    gone = [where / f"{host_view.VIEW_PREFIX}999999999-test", where / f"{host_view.STAGE_PREFIX}999999999-test"]
    for folder in gone:
        (folder / "inside").mkdir(parents=True)
    code = "import sys; sys.path.insert(0, sys.argv[1]); from arena.sandbox import host_view; host_view.view_folder()"
    subprocess.run([sys.executable, "-c", code, str(ROOT)], check=True, timeout=60)
    assert not [folder for folder in gone if folder.exists()]


@isolated
def test_a_bot_folder_only_its_owner_may_enter_still_starts_from_its_stage(tmp_path):
    """Under a root arena the bot is uid 65534: a folder of mode 0700 gets a copy of its own, and its
    stage in memory must keep that copy's owner (a stage of root's could not be entered)."""
    folder = tmp_path / "private"
    shutil.copytree(ROOT / "bots" / "random_bot", folder)
    os.chmod(folder, 0o700)
    limits = TimeLimits(move_timeout_s=10.0, startup_timeout_s=30.0)
    with open_table([load_manifest(folder), load_manifest("random_bot")], BotSettings(limits=limits)) as seats:
        assert [seat.dead_reason for seat in seats] == ["", ""]
