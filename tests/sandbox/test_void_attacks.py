"""Void is never a way out (issue 39, protocol.md section 9): each bot of a hostile audit that turned
its own losses into void games, played against its honest twin (the same bot without the trick,
same name, so the same cards) over the same deals. With the trick a bot scores at most what its twin
scores, and no game is left void. Under a root arena and under an ordinary one (the arena as uid
1000 in a user namespace of its own, as test_trust_boundary.py runs it).

The audit's bots: limits set so low that the sandbox could not start (open_files = 3,
address_space_mb = 1; processes = 1 under an ordinary arena); a writable folder whose copy failed
before the ready mark (a 2 MB file under file_size_mb = 1, 25,000 links made by the build, a build
output the memory limit killed mid-copy: here 80 MB under memory_mb = 64, the mechanism kept); a
sandbox's /tmp and /dev/shm left out of an ordinary arena's memory sum; and a ZeroMQ service that
drops the conversation once it looks lost, then refuses every handshake through its ZAP handler.

Each attack is a function returning what it saw (JSON), so that the non-root arena can run it too.
The twins play random legal moves; a bot charged at every start gets the referee's fallback moves
(draw, lowest card, pick up), which lose every game here."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from arena.play.records import GameRecord, TimeLimits, VoidGame
from arena.play.startup import BotSettings, granted
from arena.sandbox.isolation import find_isolation
from arena.schedule.games import TableSpec
from arena.submission.lookup import load_manifest
from arena.submission.manifest import BotManifest, ManifestError
from arena.submission.prepared import prepare_bot
from arena.tournament.config import config_from_dict
from arena.tournament.runner import build_schedule
from arena.tournament.table_play import play_table
from tests.bots_support import BOTS_DIR, HOSTILE_BOTS, ROOT
from tests.db_support import connected

ISOLATION = find_isolation()
isolated = pytest.mark.skipif(not ISOLATION.active, reason=f"no isolation on this machine: {ISOLATION.why_not}")
as_root_only = pytest.mark.skipif(os.getuid() != 0, reason="runs the arena as another user: needs root (an ordinary "
                                                           "arena runs the same attacks as itself)")
LIMITS = {"move_timeout_s": 10.0, "startup_timeout_s": 10.0, "start_retry_s": 1.0}
DEALS = 2  # two seatings each: 4 games a table


def _bot(folder: Path, name: str, manifest_extra: str = "", files: dict[str, bytes] | None = None) -> Path:
    """A bot folder playing random_bot's random legal moves, with the manifest lines of its trick."""
    folder.mkdir(parents=True)
    shutil.copy(BOTS_DIR / "random_bot" / "bot.py", folder / "bot.py")
    for rel, data in (files or {}).items():
        (folder / rel).write_bytes(data)
    (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = ["{{python}}", "bot.py"]\n{manifest_extra}')
    return folder


def _config(folder: Path, name: str):
    return config_from_dict({"name": "attack", "seed": 39, "table_size": 2, "deals": DEALS,
                             "bots": [name, "random_bot"], "limits": LIMITS}, folder / "attack.toml")


def _table(folder: Path, bot: BotManifest, table: TableSpec | None = None) -> dict:
    """The bot's table against random_bot, played as a tournament's worker plays it (retry window and
    void games included): its points per game, its faults, and the void games."""
    config = _config(folder, bot.name)
    (table_spec,) = build_schedule(config) if table is None else (table,)
    found: list[tuple] = []
    settings = BotSettings(limits=TimeLimits(LIMITS["move_timeout_s"], LIMITS["startup_timeout_s"]))
    play_table(table_spec, {bot.name: bot, "random_bot": load_manifest("random_bot")}, config, settings,
               lambda spec, item: found.append((spec, item)))
    played = [(spec, item) for spec, item in found if isinstance(item, GameRecord)]
    faults = [(f.kind.value, f.detail) for _, r in played for f in r.faults
              if r.bots[f.seat] == bot.name and f.kind.value != "dead"]  # dead: the moves made for it since
    return {"games": len(found), "void": [item.why for _, item in found if isinstance(item, VoidGame)],
            "points": sum(r.points[r.bots.index(bot.name)] for _, r in played) / max(1, len(found)),
            "kinds": sorted({kind for kind, _ in faults}), "first": faults[0][1] if faults else ""}


def _prepared(folder: Path) -> BotManifest:
    """The bot copied and built as a run prepares it, with the limits it is granted."""
    manifest = load_manifest(folder)
    return prepare_bot(manifest, cache=folder.parent / "cache", limits=granted(manifest, BotSettings()).limits).manifest


def _versus(folder: Path, trick: BotManifest, twin: BotManifest) -> dict:
    return {"trick": _table(folder / "trick-run", trick), "twin": _table(folder / "twin-run", twin)}


# ---------------------------------------------------------------- the attacks


def attack_self_limits(folder: str) -> dict:
    """Limits set below what the sandbox needed to start: the manifest is refused at its floors
    now, and the same limits given past them (as a manifest of an older arena would) reach only the
    bot's own program, after its ready mark: charged. processes = 1 is a limit an honest bot of one
    process may set: it plays."""
    root = Path(folder)
    twin = _prepared(_bot(root / "twin", "selfish"))
    seen: dict = {"refused": []}
    for limit in ("open_files = 3", "address_space_mb = 1"):
        try:
            load_manifest(_bot(root / limit.split()[0], "selfish", f"[limits]\n{limit}\n"))
        except ManifestError as exc:
            seen["refused"].append(str(exc))
    for key, value in (("open_files", 3), ("address_space_mb", 1), ("processes", 1)):
        trick = replace(twin, limits={key: value})
        seen[key] = _versus(root / key, trick, twin)
    return seen


def attack_copy_file(folder: str) -> dict:
    """A writable folder holding a 2 MB file under file_size_mb = 1: its copy failed before the mark."""
    root = Path(folder)
    extra = "writable_folder = true\n[limits]\nfile_size_mb = 1\n"
    trick = _prepared(_bot(root / "trick", "copier", extra, {"data.bin": os.urandom(2 << 20)}))
    twin = _prepared(_bot(root / "twin", "copier", extra, {"data.bin": os.urandom(512 << 10)}))
    return _versus(root, trick, twin)


LINKS_BUILD = ("import os\nos.mkdir('links')\n"
               "for i in range(25000):\n    os.symlink('x' * 200 + str(i), f'links/{i}')\n")


def attack_copy_links(folder: str) -> dict:
    """A build that leaves 25,000 links (long targets: a page each) in a writable folder sized by its
    regular files alone: ENOSPC before the mark. Sized by every entry now, the copy fits."""
    root = Path(folder)
    extra = 'writable_folder = true\nbuild = ["{python}", "make.py"]\n'
    trick = _prepared(_bot(root / "trick", "linker", extra, {"make.py": LINKS_BUILD.encode(), ".gitignore": b"links\n"}))
    twin = _prepared(_bot(root / "twin", "linker", extra, {"make.py": b"pass\n"}))
    return _versus(root, trick, twin)


# Plays random_bot's moves after holding its start for a moment: the memory watchdog of an ordinary
# arena looks every 0.2 s, and four games of random moves are over sooner than that. The audit's
# bots held their memory for a whole tournament.
SLOW_START = "import runpy, time\ntime.sleep(0.6)\nrunpy.run_path('bot.py', run_name='__main__')\n"
BIG_BUILD = "import os\nwith open('big.bin', 'wb') as out:\n    for _ in range(80):\n        out.write(os.urandom(1 << 20))\n"


def attack_copy_memory(folder: str) -> dict:
    """A build output larger than the bot's memory (80 MB under memory_mb = 64; the audit's was 2.2 GB
    under 2048): refused before its start now; and with that refusal taken away, the memory limit
    that kills the copy (a cgroup's, or the watchdog's sum of the copy's tmpfs) is charged too."""
    from arena.sandbox import guard

    root = Path(folder)
    extra = 'writable_folder = true\nbuild = ["{python}", "make.py"]\n[limits]\nmemory_mb = 64\nfile_size_mb = 100\n'
    files = {".gitignore": b"big.bin\n", "slow.py": SLOW_START.encode()}
    trick = _prepared(_bot(root / "trick", "hoarder", extra, {**files, "make.py": BIG_BUILD.encode()}))
    twin = _prepared(_bot(root / "twin", "hoarder", extra, {**files, "make.py": BIG_BUILD.replace("80", "1").encode()}))
    trick, twin = (replace(bot, command=("{python}", "slow.py")) for bot in (trick, twin))
    seen = _versus(root, trick, twin)
    original = guard.copy_problem
    guard.copy_problem = lambda size, limits: None  # type: ignore[assignment]  # as if it passed
    try:
        seen["unbounded"] = _table(root / "unbounded", trick)
    finally:
        guard.copy_problem = original
    return seen


def attack_tmp_memory(folder: str) -> dict:
    """A bot that keeps 2 x 40 MB in its /tmp and /dev/shm under memory_mb = 64: an ordinary arena's
    watchdog summed resident memory alone (a bot held 2,213 MB under 2048)."""
    root = Path(folder)
    hog = ("import os\nfor path in ('/tmp/a', '/dev/shm/b'):\n    with open(path, 'wb') as out:\n"
           "        for _ in range(40):\n            out.write(os.urandom(1 << 20))\n" + SLOW_START)
    files = {"hog.py": hog.encode(), "slow.py": SLOW_START.encode()}
    trick = _prepared(_bot(root / "trick", "tmphog", '[limits]\nmemory_mb = 64\n', files))
    twin = _prepared(_bot(root / "twin", "tmphog", '[limits]\nmemory_mb = 64\n', files))
    trick, twin = replace(trick, command=("{python}", "hog.py")), replace(twin, command=("{python}", "slow.py"))
    return _versus(root, trick, twin)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _service_run(root: Path, opt_out: bool) -> dict:
    """A tournament run (its feed, pool and worker as `arena tournament run` has them) of the service
    against random_bot; its points per game, faults and void games from the results."""

    import zmq.auth

    from arena.tournament.session import RunOptions, TournamentSession

    root.mkdir(parents=True)
    keys = root / "svc" / "keys"
    keys.mkdir(parents=True)
    zmq.auth.create_certificates(str(keys), "server")
    zmq.auth.create_certificates(str(keys), "client")
    endpoint = f"tcp://127.0.0.1:{_free_port()}"
    (root / "svc" / "bot.toml").write_text(
        f'name = "opt_out"\ntransport = "zmq"\nendpoint = "{endpoint}"\n'
        'server_public_key = "keys/server.key"\nclient_secret_key = "keys/client.key_secret"\n')
    config = root / "t.toml"
    config.write_text(f'name = "t"\nseed = 39\ntable_size = 2\ndeals = {DEALS}\nbots = ["svc/bot.toml", "random_bot"]\n'
                      "[limits]\n" + "".join(f"{k} = {v}\n" for k, v in LIMITS.items()))
    command = [sys.executable, str(HOSTILE_BOTS / "opt_out_service.py"), endpoint, str(keys / "server.key_secret"),
               str(keys / "client.key"), *(["--opt-out"] if opt_out else [])]
    service = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(0.5)
        with TournamentSession(config, RunOptions(workers=1, unchecked=True)) as session:
            summary = session.play().summary
    finally:
        service.kill()
        said = service.communicate()[1].decode()
    with connected(config.with_suffix(".sqlite")) as db:
        rows = db.execute("SELECT bots, points, faults FROM games").fetchall()
        voids = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'void_games'").fetchone() is not None
        pending = [key for (key,) in db.execute("SELECT key FROM void_games v WHERE NOT EXISTS "
                                                "(SELECT 1 FROM games g WHERE g.key = v.key)")] if voids else []
        tried = db.execute("SELECT COUNT(*) FROM void_games").fetchone()[0] if voids else 0
    points = [int(p.split(",")[b.split(",").index("opt_out")]) for b, p, _ in rows]
    kinds = sorted({f["kind"] for b, _, fs in rows for f in json.loads(fs)
                    if b.split(",")[f["seat"]] == "opt_out" and f["kind"] != "dead"})
    return {"games": len(rows), "points": sum(points) / max(1, summary.total), "kinds": kinds,
            "void": sorted(pending), "void_summary": summary.void, "voided_on_the_way": tried, "said": said[-500:]}


def attack_opt_out_service(folder: str) -> dict:
    """The service that opts out when losing, in a tournament run, and its honest twin."""
    root = Path(folder)
    return {"trick": _service_run(root / "trick", opt_out=True), "twin": _service_run(root / "twin", opt_out=False)}


ATTACKS = {"self_limits": attack_self_limits, "copy_file": attack_copy_file, "copy_links": attack_copy_links,
           "copy_memory": attack_copy_memory, "tmp_memory": attack_tmp_memory,
           "opt_out_service": attack_opt_out_service}


# ---------------------------------------------------------------- what each must show


def assert_no_gain(seen: dict) -> None:
    """The trick scores at most its twin's points per game over the same deals, and voids nothing."""
    trick, twin = seen["trick"], seen["twin"]
    assert trick["void"] == [] and twin["void"] == [], (trick["void"], twin["void"])
    assert trick["games"] == twin["games"] == 2 * DEALS, (trick, twin)
    assert trick["points"] <= twin["points"], (trick, twin)


def assert_self_limits_gain_nothing(seen: dict) -> None:
    assert len(seen["refused"]) == 2 and all("expected a whole number from" in said for said in seen["refused"])
    for key in ("open_files", "address_space_mb"):
        assert_no_gain(seen[key])
        trick = seen[key]["trick"]
        assert trick["kinds"] == ["no_hello"] and "sandbox could not be set up" not in trick["first"], trick
        assert seen[key]["twin"]["points"] > 0  # the twin wins games: the comparison is not 0 <= 0
    assert_no_gain(seen["processes"])
    assert seen["processes"]["trick"] == seen["processes"]["twin"]  # one process is enough: it plays as its twin


def assert_copy_refused_and_charged(seen: dict) -> None:
    assert_no_gain(seen)
    trick = seen["trick"]
    assert trick["kinds"] == ["no_hello"] and "writable folder cannot be copied" in trick["first"], trick
    assert seen["twin"]["kinds"] == [] and seen["twin"]["points"] > 0, seen["twin"]


def assert_links_copied(seen: dict) -> None:
    assert_no_gain(seen)
    assert seen["trick"]["kinds"] == [], seen["trick"]  # it starts: the copy now has room for its links


def assert_memory_copy_charged(seen: dict) -> None:
    assert_copy_refused_and_charged(seen)
    unbounded = seen["unbounded"]
    assert unbounded["void"] == [] and unbounded["games"] == 2 * DEALS, unbounded
    assert unbounded["kinds"] and set(unbounded["kinds"]) <= {"no_hello", "exited"}, unbounded
    assert unbounded["points"] <= seen["twin"]["points"]


def assert_tmp_counted(seen: dict) -> None:
    assert_no_gain(seen)
    trick = seen["trick"]
    assert trick["kinds"] and set(trick["kinds"]) <= {"no_hello", "exited"}, trick
    assert "memory" in trick["first"] and "64 MB" in trick["first"], trick


def assert_service_charged(seen: dict) -> None:
    trick, twin = seen["trick"], seen["twin"]
    assert "looks lost" in trick["said"], trick["said"]  # it did opt out
    assert trick["void"] == [] and trick["void_summary"] == 0 and twin["void"] == [], (trick, twin)
    assert trick["games"] == twin["games"] == 2 * DEALS, (trick, twin)
    assert trick["points"] <= twin["points"], (trick, twin)
    assert "exited" in trick["kinds"] and "no_hello" in trick["kinds"], trick
    assert twin["kinds"] == [] and twin["points"] > 0, twin


CHECKS = {"self_limits": assert_self_limits_gain_nothing, "copy_file": assert_copy_refused_and_charged,
          "copy_links": assert_links_copied, "copy_memory": assert_memory_copy_charged,
          "tmp_memory": assert_tmp_counted, "opt_out_service": assert_service_charged}


@isolated
@pytest.mark.slow
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_trick_gains_nothing_and_voids_nothing_under_this_arena(attack, tmp_path):
    CHECKS[attack](ATTACKS[attack](str(tmp_path)))


# The arena as uid 1000 in a user namespace of its own, where it is not root.
NON_ROOT_ARENA = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {root!r})
    from tests.sandbox.test_void_attacks import ATTACKS
    print(json.dumps(ATTACKS[{attack!r}]({folder!r})))
""")


@isolated
@as_root_only
@pytest.mark.slow
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_same_trick_gains_nothing_under_an_arena_that_is_not_root(attack, tmp_path):
    code = NON_ROOT_ARENA.format(root=str(ROOT), attack=attack, folder=str(tmp_path))
    command = [shutil.which("bwrap"), "--unshare-user", "--uid", "1000", "--gid", "1000", "--dev-bind", "/", "/", "--",
               sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "user-cache")})
    assert done.returncode == 0, done.stderr[-3000:]
    CHECKS[attack](json.loads(done.stdout.strip().splitlines()[-1]))


# ---------------------------------------------------------------- refused before any game


def test_a_writable_folder_that_cannot_be_copied_is_refused_by_the_check_and_at_a_runs_start(tmp_path):
    from tests.cli_support import invoke

    folder = _bot(tmp_path / "copier", "copier", "writable_folder = true\n[limits]\nfile_size_mb = 1\n",
                  {"data.bin": b"x" * (2 << 20)})
    checked = invoke("bot", "check", str(folder), "--games", "1")
    said = " ".join(checked.output.split())
    assert checked.exit_code == 1 and "FAIL build" in said, said
    assert "'data.bin' is 2.0 MB, above its file_size_mb of 1" in said, said
    config = tmp_path / "t.toml"
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "{folder}"]\ndeals = 1\n[grant.copier]\nunchecked = true\n')
    run = invoke("tournament", "run", str(config))
    said = " ".join(run.output.split())
    assert run.exit_code == 2 and "key 'writable_folder': its writable folder cannot be copied" in said, said
    assert not config.with_suffix(".sqlite").exists()

