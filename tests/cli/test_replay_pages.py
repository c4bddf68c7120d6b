"""The replay pages from the command line, after a real run: `arena replay -o game.html|.json|.txt`
(the format by the suffix, or --format), `arena games --format html -o FILE` and `arena standings
-o FILE.html` with their game pages beside them, and a run's live page (`--html`) keeping the pages
of the games it stores; with `--log`, a crashing bot's fault keeps its stderr's last lines."""

from __future__ import annotations

import html
import json
import re

import pytest

from arena.cli.app import app
from tests.bots_support import hostile_bot
from tests.cli_support import invoke, runner
from tests.load_support import GENEROUS_LIMITS


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Six games of heuristic_bot, random_bot and a bot that crashes in its even games, run with
    --log and --html."""
    folder = tmp_path_factory.mktemp("run")
    config = folder / "t.toml"
    config.write_text(f'name = "Cup"\nseed = 11\ndeals = 1\nworkers = 2\nisolation = "auto"\n'
                      f'bots = ["heuristic_bot", "random_bot", "{hostile_bot("crash_even_games")}"]\n' + GENEROUS_LIMITS)
    run = invoke("tournament", "run", str(config), "--log", str(folder / "logs"), "--html", str(folder / "live.html"),
                 "--unchecked")  # the hostile bot, never checked on this machine
    assert run.exit_code == 0, run.output
    return folder, config


def _embedded(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="game">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


def _links_resolve(page) -> list[str]:
    """The page's links (a game page's: its script's link back to the list), each to a file that is there."""
    text = page.read_text()
    links = [html.unescape(link) for link in re.findall(r'<a href="([^"]+)"', text)]
    data = re.search(r'<script type="application/json" id="page">(.*?)</script>', text, re.S)
    if data is not None:
        links.append(json.loads(data.group(1))["back"])
        assert '<script src="replay.js"></script>' in text and (page.parent / "replay.js").exists()
    from urllib.parse import unquote

    missing = [link for link in links if not (page.parent / unquote(link)).exists()]
    assert missing == [], f"{page.name} links to files that are not there: {missing}"
    return links


@pytest.mark.slow
def test_a_game_is_written_as_a_page_as_json_or_as_text_by_the_files_suffix(played):
    folder, config = played
    for name, start in (("g.html", "<!DOCTYPE html>"), ("g.json", "{"), ("g.txt", "game 2 (t0000-d0000-s01)")):
        done = invoke("replay", str(config), "2", "-o", str(folder / name))
        assert done.exit_code == 0 and (folder / name).read_text().startswith(start), done.output
    as_json = json.loads((folder / "g.json").read_text())
    assert _embedded((folder / "g.html").read_text()) == as_json  # the page carries the same data
    printed = runner.invoke(app, ["replay", str(config), "2", "--format", "json"])  # its stderr says "Traceback"
    assert printed.exit_code == 0 and printed.output.strip() == (folder / "g.json").read_text().strip()
    assert '<main data-step="0" data-steps="' in (folder / "g.html").read_text()
    [crash] = [fault for fault in as_json["faults"] if fault["kind"] == "exited"]  # the bot crashed in game 2
    assert "ValueError: gave up in game 2" in crash["stderr"]  # kept with --log
    assert all(move["legal"] >= 1 for move in as_json["moves"])
    assert sum(move["think_ms"] is not None for move in as_json["moves"]) > len(as_json["moves"]) / 2
    assert as_json["engine"]["arena"] and as_json["bots"][0]["version"]


@pytest.mark.slow
@pytest.mark.parametrize("args, said", [
    (["-o", "x.pdf"], "no replay format is written as '.pdf'"),
    (["--format", "svg"], "'svg' is not one of 'text', 'html', 'json'"),
    (["-o", "x.html", "--seat", "1"], "open it with ?seat=1"),
    (["--format", "html", "-o", "t.sqlite"], "this tournament's own results"),
])
def test_a_replay_that_cannot_be_written_as_asked_says_why(played, args, said):
    folder, config = played
    args = [str(folder / arg) if arg.startswith(("x.", "t.")) else arg for arg in args]
    done = invoke("replay", str(config), "1", *args)
    assert done.exit_code == 2 and said in " ".join(done.output.split())
    assert not (folder / "x.pdf").exists() and not (folder / "x.html").exists()


@pytest.mark.slow
def test_the_games_list_the_standings_and_the_live_page_link_every_game_to_its_page(played):
    folder, config = played
    listed = invoke("games", str(config), "-o", str(folder / "list.html"), "--bot", "random_bot")
    assert listed.exit_code == 0 and "6 game pages" in listed.output, listed.output
    links = _links_resolve(folder / "list.html")
    assert sorted(links) == sorted(f"list-games/{n}.html" for n in range(1, 7))
    assert _links_resolve(folder / "list-games" / "3.html") == ["../list.html"]
    standings = invoke("standings", str(config), "-o", str(folder / "s.html"))
    assert standings.exit_code == 0 and "wrote 6 game pages in" in " ".join(standings.output.split())
    assert "s-games/index.html" in _links_resolve(folder / "s.html")
    assert len(_links_resolve(folder / "s-games" / "index.html")) == 7  # the standings, and each game
    assert "live-games/index.html" in _links_resolve(folder / "live.html")  # the run's final page
    assert len(_links_resolve(folder / "live-games" / "index.html")) == 7
    cells = re.findall(r'<td class="bot">(.*?)</td>', (folder / "s.html").read_text())
    in_report = {re.sub(r"<[^>]+>", "", cell): re.search(r"background:(#[0-9a-f]{6})", cell).group(1) for cell in cells}
    page = (folder / "s-games" / "4.html").read_text()
    bots = [bot["name"] for bot in _embedded(page)["bots"]]
    colours = json.loads(re.search(r'id="page">(.*?)</script>', page).group(1))["colours"]
    assert len(in_report) == 3 and dict(zip(bots, colours)) == in_report  # each bot in its report colour
    bare = invoke("standings", str(config), "-o", str(folder / "bare.html"), "--no-game-pages")
    assert bare.exit_code == 0 and not (folder / "bare-games").exists() and "-games/" not in (folder / "bare.html").read_text()


@pytest.mark.slow
def test_pages_that_cannot_be_written_say_where_and_why(played):
    folder, config = played
    (folder / "blocked-games").write_text("a file where the folder of pages would go")
    done = invoke("standings", str(config), "-o", str(folder / "blocked.html"))
    assert done.exit_code == 2 and "cannot write the game pages to" in " ".join(done.output.split())
    assert not (folder / "blocked.html").exists()  # no report linking to pages that are not there
