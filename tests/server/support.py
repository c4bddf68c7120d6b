"""A league served in process for the server's tests (Starlette's TestClient runs its start-up and
shut-down), with authors made through the accounts layer and archives built in the test."""

from __future__ import annotations

import io
import re
import shutil
import tarfile
import time
import zipfile
from pathlib import Path

from starlette.testclient import TestClient

from arena.server import accounts
from arena.server.app import ServerSettings, build_app
from arena.server.paths import ServerPaths
from arena.server.store import ServerStore

REPO = Path(__file__).resolve().parents[2]
HOUSE = ["random_bot", "heuristic_bot", "shell_bot"]


def write_league(folder: Path, bots: list[str] = HOUSE) -> Path:
    config = folder / "class.toml"
    config.write_text(f'name = "class"\nseed = 3\nbots = {bots!r}\nschedule = "league"\nworkers = 1\n'
                      'isolation = "auto"\n'.replace("'", '"'))
    return config


def serve(config: Path, *, play: bool = False, public: bool = False) -> TestClient:
    return TestClient(build_app(ServerSettings(config, play=play, public=public)), base_url="http://127.0.0.1:8000")


def add_author(config: Path, name: str, organiser: bool = False) -> tuple[str, str]:
    store = ServerStore(ServerPaths(config).server_file)
    try:
        return accounts.add_author(store, name, organiser=organiser)
    finally:
        store.close()


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the page has no CSRF field"
    return found.group(1)


def sign_up(client: TestClient, code: str, password: str = "correct horse battery") -> None:
    page = client.get(f"/signup/{code}")
    assert page.status_code == 200, page.text
    done = client.post(f"/signup/{code}", data={"csrf": csrf_of(page.text), "password": password},
                       follow_redirects=False)
    assert done.status_code == 303, done.text


def bot_folder(tmp: Path, name: str, source: str = "random_bot", stderr_line: str = "") -> Path:
    """A copy of a bundled bot named `name`."""
    folder = tmp / f"src-{name}"
    shutil.copytree(REPO / "bots" / source, folder, ignore=shutil.ignore_patterns("__pycache__", ".arena*"))
    manifest = folder / "bot.toml"
    manifest.write_text(re.sub(r'^name = ".*"$', f'name = "{name}"', manifest.read_text(), count=1, flags=re.M))
    return folder


def tar_gz(folder: Path, top: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(folder, arcname=top or ".", filter=lambda info: None if "__pycache__" in info.name else info)
    return buffer.getvalue()


def zip_slip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.toml", 'name = "slip_bot"\n')
        archive.writestr("a/../../../escaped.txt", "out")
    return buffer.getvalue()


def wait_for_state(config: Path, bot: str, timeout_s: float = 180.0) -> str:
    """The bot's latest upload's state once its check has ended."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        store = ServerStore(ServerPaths(config).server_file)
        try:
            latest = store.latest_upload(bot)
        finally:
            store.close()
        if latest is not None and latest.state != "checking":
            return latest.state
        time.sleep(0.5)
    raise AssertionError(f"{bot}'s check did not end in {timeout_s} s")
