"""The league server killed with SIGKILL mid-upload and mid-league, then started again (issue 44): the
upload left checking is checked again and entered once, no game is lost or stored twice, the
league goes on, and no process of the killed server is left. An author's `arena submit` against
the real server on loopback; the server started again serves 200 live clients and 20 readers
while it checks the upload and plays (tests/server/live_load.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from arena.server.paths import ServerPaths
from arena.server.store import ServerStore
from tests.cli_support import invoke
from tests.server.live_load import LiveLoad
from tests.server.support import add_author, bot_folder, write_league
from tests.db_support import connected


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(config: Path, port: int, env: dict) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(config), "--port", str(port), "--public"],
                              cwd=config.parent, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/standings", timeout=1):
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise AssertionError("the server did not answer in 30 s")


def stored_keys(database: Path) -> list[str]:
    if not database.exists():
        return []
    with connected(database, read_only=True) as db:
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'games'").fetchone() is None:
            return []  # the league's run made the file and has not yet written its tables
        return [key for (key,) in db.execute("SELECT key FROM games")]


def upload_state(config: Path, bot: str) -> str | None:
    store = ServerStore(ServerPaths(config).server_file)
    try:
        latest = store.latest_upload(bot)
        return None if latest is None else latest.state
    finally:
        store.close()


def wait(predicate, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.3)
    raise AssertionError(f"{what} did not happen in {timeout_s} s")


def processes_of(folder: Path) -> list[str]:
    """Processes still running with the league's folder in their command line."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(folder) in line:
            found.append(f"{pid}: {line[:120]}")
    return found


@pytest.mark.slow  # two servers, a real check, the league's games: about 30 s
def test_a_killed_server_loses_no_upload_and_no_game_and_goes_on(tmp_path, monkeypatch):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "ARENA_ARGON2_FAST": "1"}
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    monkeypatch.setenv("ARENA_ARGON2_FAST", "1")
    config = write_league(tmp_path)
    database = tmp_path / "class.sqlite"
    _, token = add_author(config, "alice")
    port = free_port()
    server = start_server(config, port, env)
    try:
        wait(lambda: len(stored_keys(database)) >= 12, 60, "the league's first games")
        submitted = invoke("submit", f"http://127.0.0.1:{port}", str(bot_folder(tmp_path, "alice_bot")),
                           "--token", token, "--wait", "0")
        assert submitted.exit_code == 0 and "alice_bot: checking" in submitted.output, submitted.output
        assert upload_state(config, "alice_bot") == "checking"
    finally:
        os.kill(server.pid, signal.SIGKILL)  # mid-league, and mid-upload: its check has just begun
        server.wait()
    wait(lambda: not processes_of(tmp_path), 20, "the killed server's league run and check ending")
    keys = stored_keys(database)
    assert len(keys) == len(set(keys))

    server = start_server(config, port, env)
    try:
        # Started again under load: 200 live clients and 20 readers while the upload is checked
        # again, enters, and plays (issue 44's load; its timing is benchmarks/server.py's).
        with LiveLoad(f"http://127.0.0.1:{port}") as load:
            wait(lambda: upload_state(config, "alice_bot") != "checking", 120, "the upload checked again")
            assert upload_state(config, "alice_bot") == "entered"
            wait(lambda: any("alice_bot" in bots for bots in _seated(database)), 120, "alice_bot's first game")
        assert load.errors == [] and set(load.pages) == {200} and sum(load.pages.values()) >= 20, load.pages
        assert min(load.boards) >= 2, sorted(load.boards)[:5]  # each live client fed as games were stored
        after = stored_keys(database)
        assert len(after) == len(set(after)) and set(keys) <= set(after) and len(after) > len(keys)
        entries = [entry for entry in config.read_text().split("bots = ")[1].split("\n")[0].split(",")
                   if "alice_bot" in entry]
        assert len(entries) == 1  # entered once, though its check ran twice
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)
    wait(lambda: not processes_of(tmp_path), 20, "every process of the stopped server ending")


def _seated(database: Path) -> list[str]:
    with connected(database, read_only=True) as db:
        return [bots for (bots,) in db.execute("SELECT bots FROM games ORDER BY id DESC LIMIT 50")]
