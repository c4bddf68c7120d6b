"""A league's queue and "why this table" (issue 43): `arena games --queue` and `--tables`, each
game's table and why it was chosen in `arena games`, its JSON and its replay, and the queue on the
standings page, the live page and the live board. One real league of the bundled bots is played
(two tables), and a third table is queued in its results as a league run queues them
(results/league_queue.py), with a sentence of hostile text: every view shows it as text."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from arena.results.league_queue import LeagueTable, league_tables, queue_tables
from arena.results.store import ResultStore
from tests.cli_support import invoke

HOSTILE = '</script><script>window.__pwned=1</script> <b>&amp;</b> [bold]x[/bold] "quoted"'
BOTS = ["random_bot", "heuristic_bot", "shell_bot", "js_bot"]


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """A league played for 12 games (two tables), then a table queued by hand with a hostile why."""
    folder = tmp_path_factory.mktemp("league")
    config = folder / "club.toml"
    config.write_text(f'name = "club"\nbots = {json.dumps(BOTS)}\nschedule = "league"\ndeals = 1\nworkers = 2\n'
                      'seed = 11\n', encoding="utf-8")
    ran = invoke("tournament", "run", str(config), "--games", "12")
    assert ran.exit_code == 0, ran.output
    store = ResultStore(folder / "club.sqlite")
    try:
        played = league_tables(store)
        queued = LeagueTable(played[-1].number + 1, ("random_bot", "shell_bot", "js_bot"), "information",
                             f"information: {HOSTILE}")
        queue_tables(store, [queued])
    finally:
        store.close()
    return config, played, queued


def _json_lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines()]


def test_the_queue_lists_the_queued_tables_next_first_with_why_and_the_tables_list_every_one(league):
    config, played, queued = league
    assert len(played) >= 2 and all(table.status == "played" for table in played)
    shown = invoke("games", str(config), "--queue")
    said = " ".join(shown.output.split())
    assert shown.exit_code == 0, said
    assert f"club: 1 table queued, next first table {queued.number} random_bot, shell_bot, js_bot" in said
    assert "0 of 6 games stored" in said and HOSTILE in said  # Rich markup shown as text, not applied
    [line] = _json_lines(invoke("games", str(config), "--queue", "--format", "json").output)
    assert line == {"number": queued.number, "bots": list(queued.bots), "reason": "information",
                    "why": queued.why, "chosen_at": line["chosen_at"], "status": "queued", "ended_at": None,
                    "games_stored": 0, "games": 6}
    every = _json_lines(invoke("games", str(config), "--tables", "--format", "json").output)
    assert [t["number"] for t in every] == [queued.number] + [t.number for t in reversed(played)]  # the latest first
    assert [(t["why"], t["status"]) for t in every[1:]] == [(t.why, "played") for t in reversed(played)]
    assert all(t["games_stored"] == 6 for t in every[1:])
    # --bot: the tables that seat it; the queue of a bot with none queued says so.
    heuristic = _json_lines(invoke("games", str(config), "--tables", "-b", "heuristic_bot", "--format", "json").output)
    assert [t["number"] for t in heuristic] == [t.number for t in reversed(played) if "heuristic_bot" in t.bots]
    none = invoke("games", str(config), "--queue", "-b", "heuristic_bot")
    assert none.exit_code == 0 and "0 tables queued with heuristic_bot" in none.output
    csv_rows = invoke("games", str(config), "--queue", "--format", "csv").output.splitlines()
    assert csv_rows[0].startswith("number,bots,reason,why") and "random_bot;shell_bot;js_bot" in csv_rows[1]


def test_every_game_of_a_league_says_why_its_table_was_chosen_in_the_list_its_json_and_its_replay(league):
    config, played, _ = league
    whys = {table.number: table.why for table in played}
    games = _json_lines(invoke("games", str(config), "--format", "json").output)
    assert len(games) == 6 * len(played)
    for game in games:
        assert game["table_choice"]["why"] == whys[game["table"]] and game["key"].startswith(f"t{game['table']:04d}")
    listed = " ".join(invoke("games", str(config), "--limit", "0").output.split())
    assert "why each table was chosen:" in listed
    for number, why in whys.items():
        assert f"table {number}: {' '.join(why.split())}" in listed
    text = invoke("replay", str(config), str(games[-1]["number"])).output.splitlines()
    assert text[1] == f"why this table (league table {games[-1]['table']}): {whys[games[-1]['table']]}"
    replay = json.loads(invoke("replay", str(config), str(games[-1]["number"]), "--format", "json").output)
    assert replay["game"]["table_choice"] == {"number": games[-1]["table"], "reason": games[-1]["table_choice"]["reason"],
                                              "why": whys[games[-1]["table"]],
                                              "chosen_at": games[-1]["table_choice"]["chosen_at"]}


def test_a_tournament_laid_out_ahead_has_no_queue_and_says_so(tmp_path, league):
    config = tmp_path / "rr.toml"
    config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 1\n', encoding="utf-8")
    for option in ("--queue", "--tables"):
        refused = invoke("games", str(config), option)
        said = " ".join(refused.output.split())
        assert refused.exit_code == 2 and "is a round robin: its tables are laid out ahead" in said, said
        assert 'only a league (schedule = "league") keeps a queue' in said
    league_config = str(league[0])
    both = invoke("games", league_config, "--queue", "--void")
    assert both.exit_code == 2 and "give one of them" in both.output
    for given in (["--faults"], ["--skitgubbe", "random_bot"], ["-o", str(tmp_path / "q.html")]):
        assert invoke("games", league_config, "--queue", *given).exit_code == 2


def test_the_standings_page_and_the_games_page_show_the_queue_and_each_tables_why_escaped(league, tmp_path):
    config, played, queued = league
    page = tmp_path / "standings.html"
    assert invoke("standings", str(config), "-o", str(page)).exit_code == 0
    text = page.read_text(encoding="utf-8")
    section = text[text.index('id="league-queue"'):]
    assert f'id="table-{queued.number}"' in section and "0 of 6 games stored" in section
    assert "window.__pwned" in section and "<script>window" not in text and "<b>&amp;</b>" not in text
    assert "&lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;" in section
    assert f"{len(played) + 1} tables chosen so far" in section
    for table in played:  # the latest, each with why
        assert f'id="table-{table.number}"' in section and table.why in section
    index = (tmp_path / "standings-games" / "index.html").read_text(encoding="utf-8")  # the report's game pages
    assert "Why each table was chosen" in index and all(f'id="table-{t.number}"' in index for t in played)
    data = json.loads(invoke("standings", str(config), "--format", "json").output)
    assert data["league"]["queued"][0]["why"] == queued.why and data["league"]["tables_chosen"] == len(played) + 1
    games_page = tmp_path / "games.html"
    assert invoke("games", str(config), "-o", str(games_page)).exit_code == 0
    listed = games_page.read_text(encoding="utf-8")
    assert "Why each table was chosen" in listed
    assert all(f'<a href="#table-{t.number}">{t.number}</a> {t.reason}' in listed for t in played)


def test_the_live_board_names_the_queued_tables_in_one_line(league):
    from arena.report.live import LiveBoard
    from arena.tournament.results import TournamentResults

    config, _, queued = league

    def queue_lines(width: int) -> list[str]:
        with TournamentResults.open(config) as results:
            console = Console(file=io.StringIO(), width=width, color_system=None)
            body = LiveBoard(results, console).body(4)
            lines = console.render_lines(body, console.options, pad=False)
        return [text for text in ("".join(segment.text for segment in line) for line in lines)
                if text.startswith("queued: ")]

    assert queue_lines(80) == [f"queued: table {queued.number} random_bot, shell_bot, js_bot (information)"]
    [cut] = queue_lines(40)  # one line, cut
    assert len(cut) == 40 and cut.startswith(f"queued: table {queued.number} random_bot") and cut.endswith("…")


@pytest.fixture(scope="module")
def played_on(league, tmp_path_factory):
    """The league's copy after one more run of --games 1: the queued table played."""
    import shutil

    config = league[0]
    copy = tmp_path_factory.mktemp("played") / config.name
    shutil.copy(config, copy)
    shutil.copy(config.with_suffix(".sqlite"), copy.with_suffix(".sqlite"))
    assert invoke("tournament", "run", str(copy), "--games", "1").exit_code == 0
    return copy


def test_a_league_run_plays_the_queued_table_first(league, played_on):
    """What the queue says is next is what the next run plays: the queued table, whole."""
    _, played, queued = league
    every = _json_lines(invoke("games", str(played_on), "--tables", "--format", "json").output)
    assert [(t["number"], t["status"], t["games_stored"]) for t in every][0] == (queued.number, "played", 6)
    assert len(every) == len(played) + 1  # nothing chosen beyond it: --games 1 is one table
    assert "No table is queued" in invoke("games", str(played_on), "--queue").output


# ---- in a real browser: the live page's queue and a replay page's "why this table", at 400 and 1280 px

CHROMIUM, DRIVER = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (it is in the test extra)")
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("no Chromium or chromedriver on this machine (Debian: apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--disable-gpu", "--no-first-run", "--disable-extensions", "--window-size=1280,900",
                 f"--user-data-dir={tmp_path_factory.mktemp('profile')}"):
        options.add_argument(flag)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium refuses to run as root with its own sandbox
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


SEEN = """
const width = document.documentElement.clientWidth, out = [];
for (const e of document.querySelectorAll(arguments[0])) {
  const r = e.getBoundingClientRect();
  out.push({text: e.innerText, right: r.right, left: r.left});
}
return {width, page: document.documentElement.scrollWidth, found: out, pwned: window.__pwned === undefined ? null : 1};
"""


def _look(browser, url: str, width: int, selector: str, shot: str, scroll_to: str = "body") -> dict:
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
    browser.get(url)
    seen = browser.execute_script(SEEN, selector)
    browser.execute_script("document.querySelector(arguments[0]).scrollIntoView()", scroll_to)
    if os.environ.get("QUEUE_SCREENS"):  # for a person to look at (the house keeps them in notes/screens)
        Path(os.environ["QUEUE_SCREENS"]).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(os.environ["QUEUE_SCREENS"]) / f"queue-{shot}-{width}.png"))
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("width", [400, 1280])
def test_the_live_page_shows_the_queue_and_a_replay_page_why_its_table_was_chosen_as_text(
        browser, league, played_on, tmp_path, width):
    from arena.report.live_page import write_page
    from arena.tournament.results import TournamentResults

    config, _, queued = league
    live = tmp_path / "live.html"
    with TournamentResults.open(config) as results:
        write_page(live, results, refresh_s=5, progress="18/30 games, 20 games/s, 0:01 elapsed")
    seen = _look(browser, live.as_uri(), width, "#league-queue ~ ul.league li", "live", scroll_to="#league-queue")
    assert seen["page"] <= seen["width"] and seen["pwned"] is None, "the page scrolls sideways, or ran a script"
    assert seen["found"][0]["text"].startswith(f"table {queued.number}: random_bot, shell_bot, js_bot")
    assert HOSTILE in seen["found"][0]["text"]  # the sentence as text
    assert all(item["right"] <= seen["width"] and item["left"] >= 0 for item in seen["found"])
    last = max(_json_lines(invoke("games", str(played_on), "--format", "json").output), key=lambda g: g["number"])
    page = tmp_path / "game.html"
    assert invoke("replay", str(played_on), str(last["number"]), "-o", str(page)).exit_code == 0
    why = _look(browser, page.as_uri(), width, "p.why", "replay")
    assert why["page"] <= why["width"] and why["pwned"] is None
    [line] = why["found"]
    assert line["text"] == f"Why this table (league table {queued.number}): {queued.why}"
    assert line["right"] <= why["width"]


def test_a_queued_table_with_games_stored_is_said_to_be_under_way():
    from arena.report.league import games_words
    from arena.results.league_view import ChosenTable

    table = LeagueTable(4, ("a", "b", "c"), "fairness", "fairness: a has the fewest games")
    assert games_words(ChosenTable(table, 0, 6)) == "0 of 6 games stored"
    assert games_words(ChosenTable(table, 2, 6)) == "under way, 2 of 6 games stored"
    played = LeagueTable(4, ("a", "b", "c"), "fairness", "", status="played")
    assert games_words(ChosenTable(played, 6, 6)) == "6 games"
    assert games_words(ChosenTable(played, 4, 6)) == "4 of 6 games stored"  # two superseded since (a resubmission)
