"""`arena submit URL FOLDER --token T`: an author's bot folder packed as the server takes it (a
.tar.gz of the files a version is made of: arena/submission/versions.py's, no link, no build
output) and posted to URL/api/bots with the author's token; then the bot's status is followed
until its check has ended (or `wait_s` passed). Plain urllib: nothing to install beside the arena."""

from __future__ import annotations

import io
import json
import secrets
import tarfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from arena.errors import ArenaError

TIMEOUT_S = 60.0


class SubmitError(ArenaError):
    """The server refused the upload, or could not be reached: its sentence."""


@dataclass(frozen=True)
class Submitted:
    bot: str
    state: str  # checking, entered, refused or forced
    reason: str
    status_url: str


def pack(folder: Path) -> bytes:
    """The bot's files as a .tar.gz, bot.toml at its top (links refused, as `bot add` does)."""
    from arena.submission.versions import bot_entries

    if not (folder / "bot.toml").is_file():
        raise SubmitError(f"{folder}: no bot.toml there (give the bot's folder)")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for entry in bot_entries(folder):
            if entry.kind == "link":
                raise SubmitError(f"{folder / entry.rel}: a link; the server takes files and folders only")
            info = tarfile.TarInfo(entry.rel)
            if entry.kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
                continue
            data = (folder / entry.rel).read_bytes()
            info.size, info.mode = len(data), 0o755 if entry.executable else 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def submit(url: str, folder: Path, token: str, *, wait_s: float = 600.0,
           on_state: Callable[[str], None] = lambda state: None) -> Submitted:
    """Upload the folder and follow its check; SubmitError with the server's own sentence."""
    base = url.rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise SubmitError(f"{url}: expected the server's address, http://HOST:PORT or https://HOST")
    boundary = secrets.token_hex(16)
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"archive\"; filename=\"bot.tar.gz\"\r\n"
            f"Content-Type: application/gzip\r\n\r\n").encode() + pack(folder) + f"\r\n--{boundary}--\r\n".encode()
    answer = _call(base + "/api/bots", token, body, f"multipart/form-data; boundary={boundary}")
    bot, state = str(answer.get("bot")), str(answer.get("state"))
    on_state(state)
    deadline = time.monotonic() + wait_s
    status: dict[str, Any] = {}
    while state == "checking" and time.monotonic() < deadline:
        time.sleep(2.0)
        status = (_call(f"{base}/api/bots/{bot}", token).get("state") or {})
        if status.get("upload") == answer.get("upload"):
            state = str(status.get("state"))
    if state != "checking":
        on_state(state)
    return Submitted(bot, state, str(status.get("reason") or ""), f"{base}/bots/{bot}")


def _call(url: str, token: str, body: bytes | None = None, content_type: str = "") -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=body, headers=headers, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return json.loads(response.read(1 << 20) or b"{}")
    except urllib.error.HTTPError as exc:
        try:
            said = json.loads(exc.read(1 << 16)).get("error")
        except ValueError:
            said = None
        raise SubmitError(f"{url}: {exc.code}: {said or exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise SubmitError(f"{url}: cannot reach the server ({getattr(exc, 'reason', exc)})") from None
    except ValueError:
        raise SubmitError(f"{url}: the answer is not the server's JSON") from None


__all__ = ["SubmitError", "Submitted", "pack", "submit"]
