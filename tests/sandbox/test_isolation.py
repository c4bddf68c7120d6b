"""Isolation (docs/sandbox.md): a hostile bot, in the middle of a game, cannot read another bot's
files, the results database, another seat's protocol log or the organiser's environment; cannot
write outside its folder; cannot umount /proc, mount, regain root, or signal or trace another
process; and the game goes on without a fault. Under a root arena (bots run as uid 65534) and
under an ordinary one (the arena runs as uid 1000 in a user namespace of its own here, the way a
non-root organiser's arena does; bots get user namespaces of their own)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from arena.game import Rules
from arena.play.match import open_table, play_match
from arena.play.records import TimeLimits
from arena.play.startup import BotSettings
from arena.sandbox.isolation import ISOLATION_MODES, find_isolation
from arena.submission.lookup import load_manifest
from tests.bots_support import BOTS_DIR, HOSTILE_BOTS, ROOT, hostile_bot

ISOLATION = find_isolation()
pytestmark = pytest.mark.skipif(not ISOLATION.active, reason=f"no isolation on this machine: {ISOLATION.why_not}")
SECRET = "organiser-secret-" + "7" * 8
# What a sandboxed bot's environment may hold (protocol.md, docs/sandbox.md); PWD is bubblewrap's.
ALLOWED_ENVIRONMENT = {"PATH", "HOME", "LANG", "PWD", "ARENA_BOT_TOKEN"}


def snooping_match(folder: Path, victim_pid: int, home_file: str) -> dict:
    """A 2-game match of the snoop bot against two random bots, protocol logs kept in
    folder/logs, with a results file, a file in the organiser's home and a file outside the bots
    to aim at; returns what the snooper reported and the faults."""
    results = folder / "league.sqlite"
    results.write_text("the results of a tournament")
    logs = folder / "logs"
    targets = {
        "read": [str(BOTS_DIR / "random_bot" / "bot.py"), str(results), str(logs / "seat1-random_bot.protocol.log"),
                 str(ROOT / "pyproject.toml"), home_file, "/etc/shadow"],
        "list": [str(BOTS_DIR), str(folder), str(logs)],
        "write": [str(folder / "outside.txt"), str(HOSTILE_BOTS / "written-by-a-bot.txt"), "/etc/written-by-a-bot"],
        "env": ["ORGANISER_SECRET"],
        "victim": victim_pid,
    }
    snooper = replace(load_manifest(hostile_bot("snoop")), command=("{python}", "hostile.py", "snoop", json.dumps(targets)))
    limits = TimeLimits(move_timeout_s=10.0, startup_timeout_s=30.0)
    with open_table([snooper, load_manifest("random_bot"), load_manifest("random_bot")],
                    BotSettings(limits=limits, log_dir=logs)) as seats:
        result = play_match(seats, Rules(), seed=5, games=2, limits=limits)
    said = (logs / "seat0-hostile_snoop.stderr.log").read_text()
    return {"said": [line for line in said.splitlines() if line.startswith("snoop: ")],
            "faults": [(f.seat, f.kind.value, f.detail) for r in result.records for f in r.faults],
            "games": len(result.records)}


def assert_contained(report: dict, folder: Path, victim: subprocess.Popen) -> None:
    said = report["said"]
    attempts = [line for line in said if not line.startswith("snoop: environ ")]
    tried = {line.split()[1] for line in attempts}
    assert tried == {"read", "list", "write", "env", "umount", "mount", "uid", "setuid", "kill", "ptrace"}, said
    leaked = [line for line in attempts if ": LEAKED (" in line]
    assert leaked == [], leaked
    environ = {line.removeprefix("snoop: environ ") for line in said if line.startswith("snoop: environ ")}
    assert all(set(names.split(",")) <= ALLOWED_ENVIRONMENT for names in environ), environ
    assert report["games"] == 2 and report["faults"] == []  # the game went on, nobody faulted
    assert victim.poll() is None  # neither killed nor stopped by a trace
    assert not (folder / "outside.txt").exists() and not (HOSTILE_BOTS / "written-by-a-bot.txt").exists()
    assert not Path("/etc/written-by-a-bot").exists()


@pytest.fixture
def home_file():
    """A file in the organiser's home (where the arena's Python may live: bound, but nothing else)."""
    path = Path.home() / f".arena-isolation-test-{os.getpid()}"
    path.write_text("the organiser's own")
    yield str(path)
    path.unlink()


@pytest.fixture
def victim():
    """A process of the arena's user, as another bot or the arena is: a bot must not reach it."""
    proc = subprocess.Popen(["sleep", "120"])
    yield proc
    proc.kill()
    proc.wait()


def test_a_hostile_bot_sees_and_touches_nothing_but_its_own_folder(tmp_path, monkeypatch, victim, home_file):
    monkeypatch.setenv("ORGANISER_SECRET", SECRET)
    report = snooping_match(tmp_path, victim.pid, home_file)
    assert_contained(report, tmp_path, victim)
    uid = [line for line in report["said"] if line.startswith("snoop: uid ")]
    if os.getuid() == 0:
        assert uid and all(line.startswith("snoop: uid 65534: blocked") for line in uid), uid


# The arena itself as uid 1000, in a user namespace of its own (where it is not root and creates
# its bots' namespaces as any user would), reading and writing the same files.
NON_ROOT_ARENA = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {root!r})
    from pathlib import Path
    from tests.sandbox.test_isolation import snooping_match
    print(json.dumps(snooping_match(Path({folder!r}), {victim}, {home_file!r})))
""")


@pytest.mark.skipif(os.getuid() != 0, reason="runs the arena as another user: needs root (an ordinary arena "
                                               "runs the test above as itself)")
def test_under_an_arena_that_is_not_root_the_same_bot_is_contained_as_well(tmp_path, victim, home_file):
    bwrap = shutil.which("bwrap")
    code = NON_ROOT_ARENA.format(root=str(ROOT), folder=str(tmp_path), victim=victim.pid, home_file=home_file)
    env = {**os.environ, "ORGANISER_SECRET": SECRET}
    command = [bwrap, "--unshare-user", "--uid", "1000", "--gid", "1000", "--dev-bind", "/", "/", "--",
               sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert_contained(report, tmp_path, victim)
    uid = [line for line in report["said"] if line.startswith("snoop: uid ")]
    assert uid and all(line.startswith("snoop: uid 1000: blocked") for line in uid), uid


def test_isolation_modes_are_named_in_config_terms():
    assert ISOLATION_MODES == ("auto", "required", "off")
    assert find_isolation("off").why_not == 'isolation = "off"' and not find_isolation("off").active


def test_a_bot_that_asks_for_a_writable_folder_writes_in_a_private_copy_only(tmp_path):
    """`writable_folder = true`: the bot may write in its folder, which is a copy of its own made
    for this start; the folder the organiser holds is never written."""
    mine = HOSTILE_BOTS / "notes-of-a-bot.txt"
    inside = "/bot/notes-of-a-bot.txt"  # its own folder, where the sandbox shows it
    targets = {"write": [inside]}
    said = {}
    for writable in (False, True):
        snooper = replace(load_manifest(hostile_bot("snoop")), writable_folder=writable,
                          command=("{python}", "hostile.py", "snoop", json.dumps(targets)))
        logs = tmp_path / f"logs-{writable}"
        limits = TimeLimits(move_timeout_s=10.0, startup_timeout_s=30.0)
        with open_table([snooper, load_manifest("random_bot")], BotSettings(limits=limits, log_dir=logs)) as seats:
            result = play_match(seats, Rules.from_options({"num_players": "2"}), 5, games=1, limits=limits)
        assert [f for r in result.records for f in r.faults] == []
        said[writable] = [line for line in (logs / "seat0-hostile_snoop.stderr.log").read_text().splitlines()
                          if line.startswith(f"snoop: write {inside}")]
    assert said[False] == [f"snoop: write {inside}: blocked (OSError)"]  # read-only: EROFS
    assert said[True] == [f"snoop: write {inside}: LEAKED (wrote it)"]  # in its own copy
    assert not mine.exists()


def test_a_build_step_writes_its_copy_and_nothing_else(tmp_path):
    from arena.submission.prepared import prepare_bot

    folder = tmp_path / "builder"
    folder.mkdir()
    outside = tmp_path / "outside.txt"
    (folder / "bot.toml").write_text(
        'name = "builder"\ncommand = ["sh", "bot.sh"]\n'
        'build = ["sh", "-c", "echo built > built.txt; id -u > uid.txt; '
        f'cat {BOTS_DIR / "random_bot" / "bot.py"} > stolen.txt 2>/dev/null; echo x > {outside} 2>/dev/null; true"]\n')
    built = prepare_bot(load_manifest(folder), isolation=ISOLATION, cache=tmp_path / "cache").manifest.directory
    assert (built / "built.txt").read_text() == "built\n"  # a build leaves its outputs in its copy
    assert not (folder / "built.txt").exists()  # never in the author's folder
    assert (built / "stolen.txt").read_text() == ""  # another bot's file is not there to read
    assert not outside.exists()
    if os.getuid() == 0:
        assert (built / "uid.txt").read_text().strip() == "65534"  # never as root


def test_a_bot_that_aborts_itself_is_recorded_as_killed_by_its_signal_not_as_hung():
    """A sandboxed bot ran as process 1 of its namespace, which drops every signal it has no
    handler for, its own too: abort() (a failed C assert) was reported as SIGSEGV, and raise(SIGSEGV)
    did nothing, so a bot that killed itself was charged timeouts and called hung (an author's
    trial). Under bubblewrap's own init it dies of the signal it raised, and is said to."""
    limits = TimeLimits(move_timeout_s=10.0, startup_timeout_s=30.0)
    manifests = [load_manifest(hostile_bot("self_abort")), load_manifest("random_bot"), load_manifest("random_bot")]
    with open_table(manifests, BotSettings(limits=limits)) as seats:
        result = play_match(seats, Rules(), seed=5, games=1, limits=limits)
    faults = [(f.seat, f.kind.value, f.detail) for f in result.records[0].faults if f.kind.value != "dead"]
    assert len(faults) == 1, faults
    seat, kind, detail = faults[0]
    assert (seat, kind) == (0, "exited"), faults
    assert "exited (killed by signal SIGABRT); its stderr says: self_abort: assertion failed" in detail, detail
