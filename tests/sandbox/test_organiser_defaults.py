"""Organiser defaults that protect (issue 39, docs/sandbox.md and docs/cluster.md): `arena play` says
what its bots see and requires isolation for a bot that is not bundled; a bot granted the network
reaches the world but nothing on the organiser's loopback (as root and as an ordinary user), or the
grant is refused where that cannot be had; a plain Dask cluster listening beyond the loopback is said."""

from __future__ import annotations

import json
import os
import shutil
import socket
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
from arena.sandbox.isolation import Isolation, find_isolation
from arena.sandbox.outbound import SLIRP
from arena.submission.lookup import load_manifest
from arena.tournament.cluster_exposure import exposure_warnings
from tests.bots_support import BOTS_DIR, ROOT, hostile_bot
from tests.cli_support import invoke

ISOLATION = find_isolation()
isolated = pytest.mark.skipif(not ISOLATION.active, reason=f"no isolation on this machine: {ISOLATION.why_not}")
with_slirp = pytest.mark.skipif(shutil.which(SLIRP) is None, reason=f"{SLIRP} is not installed (apt-get install {SLIRP})")
as_root_only = pytest.mark.skipif(os.getuid() != 0, reason="runs the arena as another user: needs root (an ordinary "
                                                           "arena runs the same attack as itself)")
NONE_HERE = Isolation(why_not="bubblewrap is not installed: apt-get install bubblewrap")


def _copy_of_random_bot(tmp_path: Path) -> Path:
    folder = tmp_path / "stranger"
    shutil.copytree(BOTS_DIR / "random_bot", folder)
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random_bot"', 'name = "stranger"'))
    return folder


def test_play_says_what_its_bots_see_first(tmp_path):
    result = invoke("play", "random_bot", str(_copy_of_random_bot(tmp_path)), "--games", "1")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == f"isolation: {ISOLATION.summary()}"


def test_play_refuses_a_stranger_s_bot_without_isolation_unless_told(tmp_path, monkeypatch):
    from arena.play import isolation_mode

    monkeypatch.setattr(isolation_mode, "find_isolation", lambda mode="auto": NONE_HERE if mode != "off" else
                        Isolation(why_not='isolation = "off"'))
    stranger = str(_copy_of_random_bot(tmp_path))
    refused = invoke("play", "random_bot", stranger, "--games", "1")
    said = " ".join(refused.output.split())
    assert refused.exit_code == 2, said
    assert "--isolation required (the default, since stranger is not a bundled bot)" in said, said
    assert said.count("apt-get install bubblewrap") == 1 and "--isolation auto" in said, said
    assert "game 1" not in said
    allowed = invoke("play", "random_bot", stranger, "--games", "1", "--isolation", "auto")
    assert allowed.exit_code == 0, allowed.output
    assert allowed.output.splitlines()[0].startswith("isolation: none: bots can read whatever")
    bundled = invoke("play", "random_bot", "shell_bot", "--games", "1")  # only bundled bots: auto by default
    assert bundled.exit_code == 0 and bundled.output.startswith("isolation: none"), bundled.output
    bad = invoke("play", "random_bot", "shell_bot", "--isolation", "sometimes")
    said = " ".join(bad.output.split())  # a choice the command line offers (click), not a hand check
    assert bad.exit_code == 2 and "'--isolation'" in said and "'sometimes' is not one of 'auto', 'required', 'off'" in said


# ---------------------------------------------------------------- a bot granted the network


def _outward_address() -> str | None:
    """An address of this machine beyond the loopback, if it has one (a route out)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET: nothing is sent
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def attack_loopback(folder: str) -> dict:
    """A bot granted the network tries a listener on the host's loopback (through its own loopback
    and slirp4netns's alias of the host's) and, where this machine has one, a listener on its
    outward address; what it said, and whether the loopback listener took a connection."""
    loopback = socket.socket()
    loopback.bind(("127.0.0.1", 0))
    loopback.listen(8)
    outward = _outward_address()
    world = socket.socket()
    world.bind((outward or "127.0.0.1", 0))
    world.listen(8)
    port = loopback.getsockname()[1]
    targets = [["127.0.0.1", port], ["10.0.2.2", port]] + ([[outward, world.getsockname()[1]]] if outward else [])
    reach = replace(load_manifest(hostile_bot("net_reach")), command=("{python}", "net_reach.py", json.dumps(targets)))
    logs = Path(folder) / "logs"
    limits = TimeLimits(move_timeout_s=10.0, startup_timeout_s=30.0)
    settings = BotSettings(limits=limits, log_dir=logs, sandbox_limits={"no_network": False})
    try:
        with open_table([reach, load_manifest("random_bot")], settings) as seats:
            result = play_match(seats, Rules.from_options({"num_players": "2"}), 5, games=1, limits=limits)
        loopback.settimeout(0.2)
        try:
            loopback.accept()[0].close()
            taken = True
        except OSError:
            taken = False
    finally:
        loopback.close()
        world.close()
    said = [line.split(" ", 1)[1] for line in (logs / "seat0-net_reach.stderr.log").read_text().splitlines()
            if line.startswith("net_reach: ")]
    return {"said": said, "taken": taken, "outward": outward, "port": port,
            "faults": [(f.kind.value, f.detail) for r in result.records for f in r.faults]}


def assert_loopback_unreached(seen: dict) -> None:
    assert seen["faults"] == [], seen["faults"]
    assert not seen["taken"], seen
    port = seen["port"]
    assert [line for line in seen["said"] if line.startswith(f"127.0.0.1:{port} blocked")], seen["said"]
    assert [line for line in seen["said"] if line.startswith(f"10.0.2.2:{port} blocked")], seen["said"]
    if seen["outward"]:  # the grant is a network all the same: the machine's outward address answers
        assert [line for line in seen["said"] if line.startswith(seen["outward"]) and line.endswith("reached")], seen


@isolated
@with_slirp
def test_a_bot_granted_the_network_reaches_nothing_on_the_organiser_s_loopback(tmp_path):
    assert_loopback_unreached(attack_loopback(str(tmp_path)))


NON_ROOT_ARENA = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {root!r})
    from tests.sandbox.test_organiser_defaults import attack_loopback
    print(json.dumps(attack_loopback({folder!r})))
""")


@isolated
@with_slirp
@as_root_only
def test_a_bot_granted_the_network_reaches_nothing_on_the_loopback_under_an_arena_that_is_not_root(tmp_path):
    code = NON_ROOT_ARENA.format(root=str(ROOT), folder=str(tmp_path))
    command = [shutil.which("bwrap"), "--unshare-user", "--uid", "1000", "--gid", "1000", "--dev-bind", "/", "/", "--",
               sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, cwd=ROOT,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "user-cache")})
    assert done.returncode == 0, done.stderr[-3000:]
    assert_loopback_unreached(json.loads(done.stdout.strip().splitlines()[-1]))


@isolated
def test_the_network_is_refused_before_any_game_where_slirp4netns_is_missing(tmp_path, monkeypatch):
    from arena.sandbox import outbound

    real_which = shutil.which
    monkeypatch.setattr(outbound.shutil, "which", lambda name, *a, **k: None if name == SLIRP else real_which(name, *a, **k))
    result = invoke("play", str(hostile_bot("net_reach")), "random_bot", "--grant", "net_reach.no_network=false",
                    "--games", "1")
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "key 'limits.no_network'" in said and f"apt-get install {SLIRP}" in said, said
    assert "game 1" not in said
    checked = invoke("bot", "check", str(hostile_bot("net_reach")), "--grant", "net_reach.no_network=false")
    assert checked.exit_code == 1 and f"apt-get install {SLIRP}" in " ".join(checked.output.split())


# ---------------------------------------------------------------- a plain cluster beyond the loopback


def test_a_plain_scheduler_or_worker_listening_beyond_the_loopback_is_said():
    address = "tcp://127.0.0.1:8786"
    quiet = {"address": "tcp://127.0.0.1:8786", "workers": {"tcp://127.0.0.1:40001": {}}}
    assert exposure_warnings(address, quiet) == []
    loud = {"address": "tcp://192.0.2.2:8786", "workers": {"tcp://192.0.2.2:40001": {}, "tcp://127.0.0.1:40002": {}}}
    notes = exposure_warnings(address, loud)
    assert len(notes) == 2
    assert "listens beyond this machine's loopback (it says tcp://192.0.2.2:8786)" in notes[0]
    assert "dask scheduler --host 127.0.0.1" in notes[0]
    assert "tcp://192.0.2.2:40001" in notes[1] and "tcp://127.0.0.1:40002" not in notes[1]
    assert f"dask worker {address} --host 127.0.0.1 --nthreads 1" in notes[1]
    assert exposure_warnings("tls://scheduler:8786", loud) == []  # TLS guards itself
