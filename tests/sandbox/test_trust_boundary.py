"""The bot asks, the organiser grants (issue 30, docs/sandbox.md): each attack of a hostile trial
on what a bot author hands in beside its moves fails, with the game going on or a clear refusal,
under a root arena and under an ordinary one (the arena as uid 1000 in a user namespace of its
own, as test_isolation.py runs it).

The attacks: a build that writes kernel settings or runs as root; a bot that writes /proc/sys, its
own /dev or the host's RAM through /dev/shm; a manifest that asks for the network, or for limits
beyond the ceilings; a tcp bot that reaches the organiser's loopback or takes a service's port; two
bots passing a hand through a lock on a shared file; a child killed by the memory limit without a
recorded fault; a build that writes a different program on each run.

Each attack is a function returning what it saw (JSON), so that the non-root arena can run it too."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
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
from tests.bots_support import BOTS_DIR, ROOT, hostile_bot
from tests.cli_support import invoke

ISOLATION = find_isolation()
isolated = pytest.mark.skipif(not ISOLATION.active, reason=f"no isolation on this machine: {ISOLATION.why_not}")
as_root_only = pytest.mark.skipif(os.getuid() != 0, reason="runs the arena as another user: needs root (an ordinary "
                                                           "arena runs the same attacks as itself)")
LIMITS = TimeLimits(move_timeout_s=10.0, startup_timeout_s=30.0)


def _said(logs: Path, label: str, mode: str) -> list[str]:
    path = logs / f"{label}.stderr.log"
    text = path.read_text() if path.exists() else ""
    return [line for line in text.splitlines() if line.startswith(f"{mode}: ")]


def _match(manifest, logs: Path, settings: BotSettings | None = None, games: int = 1) -> tuple[list, list]:
    """A match of `manifest` against random_bot at a table of two; (faults, the other seat's faults)."""
    settings = replace(settings or BotSettings(), limits=LIMITS, log_dir=logs)
    with open_table([manifest, load_manifest("random_bot")], settings) as seats:
        result = play_match(seats, Rules.from_options({"num_players": "2"}), 5, games=games, limits=LIMITS)
    faults = [(f.kind.value, f.detail) for r in result.records for f in r.faults if f.seat == 0]
    others = [(f.kind.value, f.detail) for r in result.records for f in r.faults if f.seat != 0]
    return faults, others


# ---------------------------------------------------------------- the attacks


def attack_kernel(folder: str) -> dict:
    """A bot and a build that reach for the kernel's settings, /dev and /dev/shm."""
    logs = Path(folder) / "logs"
    faults, others = _match(load_manifest(hostile_bot("kernel")), logs)
    bot = Path(folder) / "builder"
    bot.mkdir()
    shutil.copy(BOTS_DIR / "random_bot" / "bot.py", bot / "bot.py")
    probe = textwrap.dedent("""
        import os
        out = open("report.txt", "w")
        out.write(f"uid {os.getuid()}\\n")
        for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/printk_ratelimit_burst"):
            try:
                os.close(os.open(path, os.O_WRONLY))  # opened, never written
                out.write(f"LEAKED {path}\\n")
            except OSError as exc:
                out.write(f"blocked {path} {type(exc).__name__}\\n")
    """)
    (bot / "probe.py").write_text(probe)
    (bot / "bot.toml").write_text('name = "builder"\ncommand = ["{python}", "bot.py"]\nbuild = ["{python}", "probe.py"]\n')
    built = prepare_bot(load_manifest(bot), cache=Path(folder) / "cache").manifest.directory
    return {"said": _said(logs, "seat0-hostile_kernel", "kernel"), "faults": faults, "others": others,
            "build": (built / "report.txt").read_text().splitlines()}


def attack_lock(folder: str) -> dict:
    """A bot holds a lock on a file every sandbox shares; can anyone see it while it does?"""
    logs = Path(folder) / "logs"
    seen = {"free": 0, "held": 0}
    stop = threading.Event()

    def look() -> None:
        with open(sys.executable, "rb") as same_file:
            while not stop.is_set():
                said = _said(logs, "seat0-hostile_lock", "lock")
                if any("holding a lock" in line for line in said):
                    try:
                        fcntl.flock(same_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        fcntl.flock(same_file, fcntl.LOCK_UN)
                        seen["free"] += 1
                    except OSError:
                        seen["held"] += 1
                time.sleep(0.05)

    watcher = threading.Thread(target=look, daemon=True)
    watcher.start()
    try:
        faults, others = _match(load_manifest(hostile_bot("lock")), logs)
    finally:
        stop.set()
        watcher.join()
    return {"said": _said(logs, "seat0-hostile_lock", "lock"), "seen": seen, "faults": faults, "others": others}


def attack_memory(folder: str) -> dict:
    """A bot whose child takes more memory than the bot's limit while the bot plays on."""
    logs = Path(folder) / "logs"
    faults, others = _match(load_manifest(hostile_bot("memory_child")), logs,
                            BotSettings(sandbox_limits={"memory_mb": 128}))
    return {"faults": faults, "others": others}


def attack_tcp(folder: str) -> dict:
    """A tcp bot, granted its endpoint, tries the organiser's loopback service and takes the port
    of a loopback service that is down; the host tries that port while the bot holds it."""
    logs = Path(folder) / "logs"
    service = socket.socket()
    service.bind(("127.0.0.1", 0))
    service.listen(8)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        down = probe.getsockname()[1]
    targets = {"connect": [service.getsockname()[1]], "bind": [down], "wait": 2.0}
    reach = replace(load_manifest(hostile_bot("zmq_reach")),
                    command=("{python}", "zmq_reach.py", "{endpoint}", json.dumps(targets)))
    reached_down = []
    stop = threading.Event()

    def knock() -> None:
        while not stop.is_set():
            try:
                socket.create_connection(("127.0.0.1", down), timeout=0.2).close()
                reached_down.append(True)
            except OSError:
                pass
            time.sleep(0.05)

    knocker = threading.Thread(target=knock, daemon=True)
    knocker.start()
    try:
        granted = _match(reach, logs, BotSettings(grants={"hostile_zmq_reach": {"zmq_tcp": True}}))
        refused = _match(reach, Path(folder) / "logs-refused")
    finally:
        stop.set()
        knocker.join()
        service.close()
    return {"said": _said(logs, "seat0-hostile_zmq_reach", "zmq_reach"), "faults": granted[0], "others": granted[1],
            "reached_down": bool(reached_down), "refused": refused[0]}


def attack_version(folder: str) -> dict:
    """A build that writes a different program on each run (a gitignored strategy.py), prepared
    twice: the second run must play what the first built."""
    bot = Path(folder) / "dodger"
    bot.mkdir()
    (bot / "bot.py").write_text((BOTS_DIR / "random_bot" / "bot.py").read_text())
    (bot / ".gitignore").write_text("strategy.py\n")
    (bot / "bot.toml").write_text('name = "dodger"\ncommand = ["{python}", "bot.py"]\nbuild = ["{python}", "-c", '
                                  '"import random; open(\'strategy.py\', \'w\').write(str(random.random()))"]\n')
    cache = Path(folder) / "cache"
    first = prepare_bot(load_manifest(bot), cache=cache)
    second = prepare_bot(load_manifest(bot), cache=cache)
    return {"builds": [first.build, second.build], "versions": [first.version, second.version],
            "strategies": [(p.manifest.directory / "strategy.py").read_text() for p in (first, second)],
            "built_now": [first.built_now, second.built_now], "in_folder": (bot / "strategy.py").exists()}


def attack_shared_state(folder: str) -> dict:
    """A bot reaches for what the kernel shares between all bots beyond files: its uid's keyring,
    the page cache's residency of /usr (colluding bots passed a hand through each)."""
    logs = Path(folder) / "logs"
    faults, others = _match(load_manifest(hostile_bot("shared_state")), logs)
    return {"said": _said(logs, "seat0-hostile_shared_state", "shared_state"), "faults": faults, "others": others}


def attack_ipc(folder: str) -> dict:
    """A ZeroMQ bot on ipc puts a link where its socket goes, to a socket of the host's that the
    arena must never connect to; another fills its socket's folder, on the host's disk."""
    host = socket.socket(socket.AF_UNIX)
    target = os.path.join(folder, "host.sock")
    host.bind(target)
    host.listen(8)
    host.settimeout(0.1)
    linker = replace(load_manifest(hostile_bot("zmq_reach")), zmq_endpoint_kind="ipc",
                     command=("{python}", "zmq_reach.py", "{endpoint}", json.dumps({"link_to": target})))
    filler = replace(load_manifest(hostile_bot("zmq_reach")), zmq_endpoint_kind="ipc",
                     command=("{python}", "zmq_reach.py", "{endpoint}", json.dumps({"fill_mb": 4, "wait": 1.0})))
    settings = BotSettings(limits=TimeLimits(move_timeout_s=10.0, startup_timeout_s=3.0), log_dir=Path(folder) / "logs")
    with open_table([linker, load_manifest("random_bot")], settings) as seats:
        linked = seats[0].dead_reason
    reached = 0
    try:
        while True:
            host.accept()[0].close()
            reached += 1
    except OSError:
        pass
    host.close()
    faults, others = _match(filler, Path(folder) / "logs-fill")
    return {"linked": linked, "reached": reached, "faults": faults, "others": others}


ATTACKS = {"kernel": attack_kernel, "lock": attack_lock, "memory": attack_memory, "tcp": attack_tcp,
           "version": attack_version, "shared_state": attack_shared_state, "ipc": attack_ipc}


# ---------------------------------------------------------------- what each must show


def assert_kernel_untouched(seen: dict) -> None:
    said = seen["said"]
    assert [line for line in said if "open-for-writing" in line] and not [line for line in said if "LEAKED" in line], said
    shm = [line for line in said if "/dev/shm" in line]
    assert shm and "stopped at" in shm[0], said
    assert int(shm[0].split("stopped at ")[1].split()[0]) <= 64, shm  # its file_size_mb, not the host's RAM
    assert seen["faults"] == [] and seen["others"] == []  # the game went on
    build = seen["build"]
    assert build[0] != "uid 0" and [line for line in build[1:] if line.startswith("blocked")] == build[1:], build


def assert_lock_unseen(seen: dict) -> None:
    said = seen["said"]
    assert any("holding a lock" in line for line in said), said  # it did take (what it thought was) the lock
    assert any("inotify init: blocked" in line for line in said), said
    assert seen["seen"]["free"] > 0 and seen["seen"]["held"] == 0, seen["seen"]
    assert seen["faults"] == [] and seen["others"] == []


def assert_memory_recorded(seen: dict) -> None:
    faults = seen["faults"]
    assert faults and faults[0][0] == "exited", faults
    assert "sandbox: more than 128 MB" in faults[0][1] and "memory" in faults[0][1], faults[0]
    assert seen["others"] == []


def assert_tcp_contained(seen: dict) -> None:
    said = seen["said"]
    assert [line for line in said if line.startswith("zmq_reach: connect")], said
    assert not [line for line in said if "LEAKED" in line], said
    assert seen["faults"] == [] and seen["others"] == []  # it played, joined to the arena alone
    assert not seen["reached_down"]  # the port it took is its own loopback's, not the host's
    assert seen["refused"] and "only the organiser grants" in seen["refused"][0][1], seen["refused"]


def assert_version_held(seen: dict) -> None:
    assert seen["built_now"] == [True, False]
    assert seen["builds"][0] == seen["builds"][1] and seen["strategies"][0] == seen["strategies"][1]
    assert not seen["in_folder"]


def assert_shared_state_closed(seen: dict) -> None:
    said = seen["said"]
    assert {line.split()[1] for line in said} == {"add_key", "keyctl", "preadv2-nowait", "mincore"}, said
    assert not [line for line in said if "LEAKED" in line], said
    assert seen["faults"] == [] and seen["others"] == []


def assert_ipc_held(seen: dict) -> None:
    assert seen["reached"] == 0  # the arena never followed the bot's link to the host's socket
    assert "no hello" in seen["linked"], seen["linked"]
    faults = seen["faults"]
    # Charged to the bot, never void: it fills the folder as it starts, and the sandbox's watch
    # kills it before or just after its hello (no_hello or exited, a race the test cannot fix).
    assert faults and faults[0][0] in ("no_hello", "exited") and "written into its socket's folder" in faults[0][1], faults


CHECKS = {"kernel": assert_kernel_untouched, "lock": assert_lock_unseen, "memory": assert_memory_recorded,
          "tcp": assert_tcp_contained, "version": assert_version_held, "shared_state": assert_shared_state_closed,
          "ipc": assert_ipc_held}


@isolated
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_attack_fails_under_this_arena(attack, tmp_path):
    CHECKS[attack](ATTACKS[attack](str(tmp_path)))


# The arena as uid 1000 in a user namespace of its own, where it is not root.
NON_ROOT_ARENA = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {root!r})
    from tests.sandbox.test_trust_boundary import ATTACKS
    print(json.dumps(ATTACKS[{attack!r}]({folder!r})))
""")


@isolated
@as_root_only
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_same_attack_fails_under_an_arena_that_is_not_root(attack, tmp_path):
    code = NON_ROOT_ARENA.format(root=str(ROOT), attack=attack, folder=str(tmp_path))
    command = [shutil.which("bwrap"), "--unshare-user", "--uid", "1000", "--gid", "1000", "--dev-bind", "/", "/", "--",
               sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, cwd=ROOT,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "user-cache")})
    assert done.returncode == 0, done.stderr[-3000:]
    CHECKS[attack](json.loads(done.stdout.strip().splitlines()[-1]))


# ---------------------------------------------------------------- refusals before any game


def _asking(tmp_path: Path, name: str, extra: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(BOTS_DIR / "random_bot" / "bot.py", folder / "bot.py")
    (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = ["{{python}}", "bot.py"]\n{extra}')
    return folder


@pytest.mark.parametrize("asked,key,value,ceiling", [
    ("address_space_mb = 4194304", "address_space_mb", "4194304", "8192"),  # 4 TiB
    ("processes = 300", "processes", "300", "128"),
    ("file_size_mb = 300", "file_size_mb", "300", "128"),
])
def test_a_manifest_asking_beyond_a_ceiling_is_refused_at_check_add_and_run_start(tmp_path, asked, key, value, ceiling):
    folder = _asking(tmp_path, "greedy", f"[limits]\n{asked}\n")
    config = tmp_path / "t.toml"
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "{folder}"]\ndeals = 1\n')
    for command in (["bot", "check", str(folder)], ["bot", "add", str(folder), "--dir", str(tmp_path / "bots")],
                    ["tournament", "run", str(config)]):
        result = invoke(*command)
        said = " ".join(result.output.split())
        assert result.exit_code != 0, (command, said)
        assert f"key 'limits.{key}': asks for {value}, above the ceiling of {ceiling}" in said, (command, said)
        assert "to grant it" in said, said
    assert not (tmp_path / "bots" / "greedy").exists()
    assert not config.with_suffix(".sqlite").exists()  # refused before anything was stored


def test_the_organiser_grants_a_limit_to_one_bot_and_the_run_says_so(tmp_path):
    folder = _asking(tmp_path, "jvmish", "[limits]\naddress_space_mb = 12000\n")
    config = tmp_path / "t.toml"
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "{folder}"]\ndeals = 1\n'
                      '[grant.jvmish]\naddress_space_mb = 16384\nunchecked = true\n')
    result = invoke("tournament", "run", str(config), "--workers", "1")
    said = " ".join(result.output.split())
    assert result.exit_code == 0 and "granted to jvmish: address_space_mb 12000" in said, said
    assert invoke("bot", "check", str(folder), "--games", "1",
                  "--grant", "jvmish.address_space_mb=16384").exit_code == 0


def test_a_tcp_endpoint_is_refused_at_run_start_unless_granted(tmp_path):
    folder = tmp_path / "tcp_bot"
    shutil.copytree(BOTS_DIR / "zmq_bot", folder)
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('zmq_endpoint_kind = "ipc"', 'zmq_endpoint_kind = "tcp"'))
    config = tmp_path / "t.toml"
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "{folder}"]\ndeals = 1\n')
    refused = invoke("tournament", "run", str(config))
    said = " ".join(refused.output.split())
    assert refused.exit_code == 2 and "key 'zmq_endpoint_kind'" in said and "[grant.zmq_bot] zmq_tcp = true" in said
    config.write_text(config.read_text() + "[grant.zmq_bot]\nzmq_tcp = true\n")
    granted = invoke("tournament", "run", str(config), "--workers", "1", "--unchecked")
    said = " ".join(granted.output.split())
    assert granted.exit_code == 0 and "granted to zmq_bot: a tcp endpoint joined to the arena alone" in said, said


def test_results_config_or_logs_where_every_bot_can_read_them_are_refused(tmp_path):
    venv_league = Path(sys.prefix) / f"league-{os.getpid()}"  # a workspace made inside the arena's venv
    venv_league.mkdir()
    try:
        config = venv_league / "t.toml"
        config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 1\n')
        result = invoke("tournament", "run", str(config))
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and "which every bot's sandbox can read" in said, said
        assert not config.with_suffix(".sqlite").exists()
        fine = tmp_path / "t.toml"
        fine.write_text(config.read_text())
        logged = invoke("tournament", "run", str(fine), "--log", str(venv_league / "logs"))
        assert logged.exit_code == 2 and "--log lies in" in " ".join(logged.output.split()), logged.output
    finally:
        shutil.rmtree(venv_league)


def test_a_config_that_asks_for_isolation_is_refused_without_it_naming_the_install_and_the_way_out(tmp_path,
                                                                                                   monkeypatch):
    from arena.sandbox import isolation

    monkeypatch.chdir(tmp_path)
    assert invoke("tournament", "new", "league", "-b", "random_bot", "-b", "heuristic_bot", "-b", "shell_bot").exit_code == 0
    written = (tmp_path / "tournaments" / "league.toml").read_text()
    assert 'isolation = "required"' in written
    monkeypatch.setattr(isolation, "_probe",
                        lambda: isolation.Isolation(why_not="bubblewrap is not installed: apt-get install bubblewrap"))
    result = invoke("tournament", "run", "tournaments/league.toml")
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and said.count("apt-get install bubblewrap") == 1 and 'isolation = "auto"' in said, said


@isolated
@as_root_only
def test_a_bots_ipc_socket_is_out_of_reach_of_other_processes_of_its_user(tmp_path):
    """A root arena gave each bot's ipc folder to uid 65534, so any host process running as
    nobody could talk to the bot; the socket now lies in a folder only the arena can enter."""
    manifest = load_manifest("zmq_bot")
    with open_table([manifest, load_manifest("random_bot")], BotSettings(limits=LIMITS)) as seats:
        endpoint = seats[0].transport.inner.endpoint  # ipc://.../arena-zmq-X/sock/bot.sock
        path = endpoint.removeprefix("ipc://")
        outer = Path(path).parents[1]
        assert os.stat(outer).st_mode & 0o777 == 0o700 and os.stat(outer).st_uid == 0
        child = os.fork()
        if child == 0:  # as nobody, the bot's own uid, on the host
            os.setgid(65534)
            os.setuid(65534)
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(path)
                os._exit(1)
            except PermissionError:
                os._exit(0)
            except OSError:
                os._exit(2)
        _, status = os.waitpid(child, 0)
        assert os.WEXITSTATUS(status) == 0, "a process of the bot's uid reached its socket"
