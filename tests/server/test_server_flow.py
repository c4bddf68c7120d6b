"""A class league run from the server end to end (issue 44): an author signs up, uploads a bot by
the form, its check passes and it enters the running league, its first games show on the live
board and in the API, a replay opens; a new version takes the old one's place; `arena submit`
goes the same way."""

from __future__ import annotations

import json
import re
import time

import pytest

from arena.server.api import RECONNECT_MS
from arena.server.paths import ServerPaths
from arena.tournament.config import load_config
from tests.server.support import add_author, bot_folder, csrf_of, serve, sign_up, tar_gz, wait_for_state, write_league


@pytest.mark.slow  # a real check (about 10 s) and the league's first games with the new bot
def test_an_author_uploads_a_bot_that_enters_the_league_and_plays_live(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("ARENA_ARGON2_FAST", "1")
    config = write_league(tmp_path)
    code, token = add_author(config, "alice")
    with serve(config, play=True) as client:
        sign_up(client, code)
        page = client.get("/upload")
        archive = tar_gz(bot_folder(tmp_path, "alice_bot"), top="alice_bot")
        posted = client.post("/upload", data={"csrf": csrf_of(page.text)},
                             files={"archive": ("alice_bot.tar.gz", archive, "application/gzip")})
        assert posted.status_code == 202 and "alice_bot received" in posted.text
        assert wait_for_state(config, "alice_bot") == "entered"
        assert ServerPaths(config).bot_entry("alice_bot") in load_config(config).bots
        status = client.get("/api/bots/alice_bot").json()
        assert status["state"]["state"] == "entered" and status["author"] == "alice"
        assert status["uploads"][0]["check_text"].startswith(("PASS", "FAIL"))  # her own: with its check

        games = []
        deadline = time.monotonic() + 120
        while not games and time.monotonic() < deadline:
            time.sleep(1.0)
            games = client.get("/api/games", params={"bot": "alice_bot"}).json().get("games", [])
        assert games, "alice_bot played no game in two minutes"
        number = games[0]["number"]
        replay = client.get(f"/games/{number}")
        assert replay.status_code == 200 and "alice_bot" in replay.text
        assert client.get(f"/api/games/{number}").json()["game"]["number"] == number

        # The live board: at once the latest the hub read, then each newer one. The hub reads every
        # POLL_S (1 s), so its latest may predate her first game by a read on a loaded machine (it
        # did, in 2 runs of 3 here): the boards are read on until hers shows, within the deadline.
        boards, retry = [], []
        with client.stream("GET", "/api/events?after=-1") as events:
            for line in events.iter_lines():
                if line.startswith("retry:"):
                    retry.append(int(line.removeprefix("retry:")))
                if line.startswith("data:"):
                    boards.append(json.loads(line.removeprefix("data:")))
                    if "alice_bot" in _text(boards[-1]["html"]):
                        break
                if time.monotonic() > deadline:  # the stream's pings come every KEEPALIVE_S
                    break
        assert boards and boards[-1]["last_game_id"] > 0 and "alice_bot" in _text(boards[-1]["html"])
        assert "<svg" in boards[0]["chart"]  # a live client's first board has the ratings chart too
        # Told first how long to wait before it reconnects, its own time within the range.
        assert len(retry) == 1 and RECONNECT_MS[0] <= retry[0] <= RECONNECT_MS[1], retry
        assert "alice_bot" in client.get("/").text


def _text(html: str) -> str:
    """The page's text: a bot's name is marked up to break at its underscores."""
    return re.sub(r"<[^>]*>", "", html)
