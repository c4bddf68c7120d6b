"""The replay page, and the games list that links to it, in a real browser (Debian's chromium,
driven by chromedriver through selenium), one browser for the whole module: stepping through a
whole game by keys shows the arena engine's table at every step with each card of the deck exactly
once; `?step=N` opens at step N and the address follows the step; a seat's view (`?seat=N`) shows
no face that seat could not see (R8-R10); the page fits a phone's width and a desktop's
(screenshots at 400 and 1280 px, kept under the test's tmp folder, and copied to $REPLAY_SCREENS
when set), a long hand wrapping whole cards; hostile names, fault texts and stderr show as text,
never as markup or script; nothing is fetched from anywhere; the games list takes the width and
scrolls inside its box, never cutting a column."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from arena.report.replay_page import replay_page
from arena.results.replay_json import game_replay
from tests.fakes import faulty_at, random_policy, timeout_error
from tests.replay_support import engine_steps, played_row, seen_by, zones

CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None)
DRIVER = shutil.which("chromedriver")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (it is in the test extra)")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None, reason="no Chromium or chromedriver on this machine (Debian: apt-get install "
                                               "chromium chromium-driver; .ci/run installs them where it can)")]

# What hostile bots and organisers have put where text belongs: markup, script, Rich markup,
# terminal escapes, a comment and a template opener, a bidi override.
INJECT = ['<img src=x onerror="window.__pwned=1">', "</script><script>window.__pwned=2</script>",
          '"><svg onload=window.__pwned=3>', "[/b] [bold]x[/bold] [/]", "\x1b[31mred\x1b[0m <!--",
          "{{7*7}} ${window.__pwned=4} \u202eevil"]

ZONES_NOW = """
const out = {};
for (const e of document.querySelectorAll('[data-card]')) {
  if (e.dataset.card in out) out[e.dataset.card] = 'TWICE';
  else out[e.dataset.card] = e.dataset.zone;
}
return {step: document.querySelector('main').dataset.step, zones: out, href: location.search};
"""

# Records the zones of every step the page draws (keys are pressed by the test, from outside).
OBSERVE = """
window.__seen = [];
const main = document.querySelector('main');
const record = () => {
  const out = {};
  for (const e of document.querySelectorAll('[data-card]')) out[e.dataset.card] = e.dataset.card in out ? 'TWICE' : e.dataset.zone;
  window.__seen.push({step: main.dataset.step, zones: out, href: location.search});
};
new MutationObserver(record).observe(main, {attributes: true, attributeFilter: ['data-step']});
"""

# Every step by key presses in the page itself: where each card is.
WALK = """
const key = k => document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
key('Home');
const out = [], main = document.querySelector('main');
for (let k = 0; k <= +main.dataset.steps; k++) {
  const zones = {};
  for (const e of document.querySelectorAll('[data-card]')) zones[e.dataset.card] = e.dataset.card in zones ? 'TWICE' : e.dataset.zone;
  out.push(zones);
  key('ArrowRight');
}
return out;
"""

# Every step by key presses in the page itself: what each shows (faces, and how many backs).
EVERY_STEP = """
const key = k => document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
key('Home');
const out = [];
const main = document.querySelector('main'), last = +main.dataset.steps;
for (let k = 0; k <= last; k++) {
  const faces = [...document.querySelectorAll('[data-card]')].map(e => e.dataset.card);
  out.push({step: +main.dataset.step, faces: faces, backs: document.querySelectorAll('.card.back').length});
  key('ArrowRight');
}
return out;
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-extensions", "--disable-sync", "--disable-default-apps", "--window-size=1280,900",
                 f"--user-data-dir={tmp_path_factory.mktemp('profile')}"):
        options.add_argument(flag)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # Chromium refuses to run as root with its own sandbox
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _width(driver, width: int, height: int = 900) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """Pages of three games: default rules with faults (a timeout, a malformed line, an illegal
    move), four players with the trick pick-up of pagat, and two players with ten cards set aside."""
    folder = tmp_path_factory.mktemp("pages")
    rows = {
        "faults": played_row({}, seed=5, policies=[faulty_at(2, lambda t: timeout_error()), faulty_at(6, lambda t: "x"),
                                                   faulty_at(1, lambda t: "move 1 pickup", seed=3)]),
        "four": played_row({"num_players": 4, "pickup": "top_card", "ace_high": True}, seed=21),
        "two": played_row({"num_players": 2, "two_player_removed_cards": 10, "phase1_end": "play_out"}, seed=4),
    }
    pages = {}
    for name, row in rows.items():
        path = folder / f"{name}.html"
        path.write_text(replay_page(game_replay(row, 7, tournament="Cup")), encoding="utf-8")
        pages[name] = (path, row)
    return pages


def test_stepping_through_a_whole_game_by_keys_shows_the_engines_table_with_every_card_once(browser, games):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    path, row = games["faults"]
    expected = engine_steps(row)
    _width(browser, 1280)
    browser.get(path.as_uri())
    body = browser.find_element("tag name", "body")
    assert browser.find_element("tag name", "main").get_attribute("data-steps") == str(len(expected) - 1)
    first = browser.execute_script(ZONES_NOW)
    browser.execute_script(OBSERVE)
    keys = ActionChains(browser)
    for _ in expected[1:]:
        keys.send_keys(Keys.ARROW_RIGHT)  # real key presses, one per step, to the end
    keys.perform()
    seen = [first] + browser.execute_script("return window.__seen")
    assert len(seen) == len(expected)
    for step, (shown, state) in enumerate(zip(seen, expected)):
        assert shown["step"] == str(step)
        assert shown["zones"] == zones(state), f"step {step}"  # all 52 cards, each once, where the engine has them
    last = len(expected) - 1
    for key, step in ((Keys.HOME, 0), (Keys.END, last), (Keys.ARROW_LEFT, last - 1), (Keys.ARROW_RIGHT, last),
                      (Keys.ARROW_RIGHT, last)):
        body.send_keys(key)
        assert browser.execute_script(ZONES_NOW)["step"] == str(step)
    _address_is(browser, f"?step={last}")  # the address follows the step: a link to it


def _address_is(browser, search: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 5).until(lambda driver: driver.execute_script("return location.search") == search)


@pytest.mark.parametrize("name", ["four", "two"])
def test_under_other_rules_every_step_shows_the_engines_table(browser, games, name):
    path, row = games[name]
    expected = engine_steps(row)
    browser.get(path.as_uri())
    walked = browser.execute_script(WALK)
    assert len(walked) == len(expected)
    for step, (shown, state) in enumerate(zip(walked, expected)):
        assert shown == zones(state), f"step {step}"
    aside = [zone for zone in zones(expected[0]).values() if zone == "aside"]
    assert len(aside) == (10 if name == "two" else 0)  # R5: set aside unseen, and on the page all the same


def test_a_step_in_the_address_opens_there_and_a_step_out_of_range_opens_the_nearest(browser, games):
    path, row = games["faults"]
    expected = engine_steps(row)
    for asked, opened in ((37, 37), (0, 0), (99_999, len(expected) - 1), (-3, 0)):
        browser.get(path.as_uri() + f"?step={asked}")
        shown = browser.execute_script(ZONES_NOW)
        assert shown["step"] == str(opened) and shown["zones"] == zones(expected[opened])
        _address_is(browser, f"?step={opened}")
    browser.get(path.as_uri() + "?seat=2&step=12")
    browser.find_element("css selector", "button[aria-label^='next']").click()
    _address_is(browser, "?seat=2&step=13")  # the view stays in the address with the step


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_seats_view_shows_no_face_that_seat_could_not_see(browser, games, seat):
    path, row = games["faults"]
    allowed = seen_by(row, seat)
    browser.get(path.as_uri() + f"?seat={seat}")
    walked = browser.execute_script(EVERY_STEP)
    assert [w["step"] for w in walked] == list(range(len(allowed)))
    for step, (shown, may_see) in enumerate(zip(walked, allowed)):
        faces = shown["faces"]
        assert len(faces) == len(set(faces)) and set(faces) <= may_see, f"step {step}: {set(faces) - may_see}"
        assert len(faces) + shown["backs"] == 52, f"step {step}"  # the hidden ones as backs, without faces
    hand_at_start = set(engine_steps(row)[0]["hands"][seat])
    assert hand_at_start <= set(walked[0]["faces"])  # its own hand face up


FITS = """
const width = document.documentElement.clientWidth;
const cards = [...document.querySelectorAll('.card')].map(e => e.getBoundingClientRect());
const small = [...document.querySelectorAll('.card .r')].map(e => parseFloat(getComputedStyle(e).fontSize));
return {width, page: document.documentElement.scrollWidth, outside: cards.filter(r => r.left < 0 || r.right > width).length,
        cards: cards.length, smallest: Math.min(...small), height: document.documentElement.scrollHeight,
        fetched: performance.getEntriesByType('resource').map(r => r.name)};
"""


@pytest.mark.parametrize("width", [400, 1280])
def test_the_page_fits_a_phone_and_a_desktop_and_is_kept_as_screenshots(browser, games, tmp_path, width):
    path, _ = games["faults"]
    for step, view in ((0, ""), (60, ""), (150, "&seat=1")):
        _width(browser, width)
        browser.get(path.as_uri() + f"?step={step}{view}")
        fit = browser.execute_script(FITS)
        assert fit["page"] <= fit["width"], f"the page scrolls sideways at {width} px (step {step})"
        assert fit["outside"] == 0 and fit["cards"] >= 52, f"{fit['outside']} cards cut off at {width} px"
        assert fit["smallest"] >= 10, f"card text of {fit['smallest']} px"
        assert fit["fetched"] == []  # nothing requested from anywhere
        _width(browser, width, min(fit["height"], 2400))
        shot = tmp_path / f"replay-{width}px-step{step}{'-seat1' if view else ''}.png"
        browser.save_screenshot(str(shot))
        if os.environ.get("REPLAY_SCREENS"):
            Path(os.environ["REPLAY_SCREENS"]).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(os.environ["REPLAY_SCREENS"]) / shot.name)
    _width(browser, 1280)


ROWS_OF_CARDS = """
const out = [];
for (const box of document.querySelectorAll('.seat .cards')) {
  const seat = box.closest('.seat').getBoundingClientRect(), cards = [...box.children];
  const rects = cards.map(e => e.getBoundingClientRect());
  const rowEnds = rects.filter((r, i) => i === rects.length - 1 || Math.round(rects[i + 1].top) !== Math.round(r.top));
  const full = rects.length ? rects[rects.length - 1].width : 0;
  out.push({cards: rects.length, rows: rowEnds.length, full,
            narrowEnds: rowEnds.filter(r => r.width < full - 0.5).length,
            outside: rects.filter(r => r.right > seat.right - 1 || r.left < seat.left).length});
}
const board = document.querySelector('.board').getBoundingClientRect(), side = document.querySelector('.side').getBoundingClientRect();
return {hands: out, tableFirst: board.top < side.top, beside: side.left >= board.right};
"""


def _picks_up(seed: int):
    """Random legal play that picks up whenever it may: a hand that grows to most of the deck."""
    import random

    from tests.fakes import legal_moves_of

    rng = random.Random(seed)

    def policy(n: int, tokens: list[str]) -> str:
        legal = legal_moves_of(tokens)
        return f"move {tokens[1]} {'pickup' if 'pickup' in legal else rng.choice(legal)}"

    return policy


def test_a_fanned_hand_wraps_with_each_rows_last_card_whole_and_on_a_phone_the_table_comes_first(browser, tmp_path):
    """The teacher's trial: in a hand of 45 to 49 cards the last card of a row was cut to its corner,
    and at 400 px the move panel came before the table."""
    row = played_row({"num_players": 2}, seed=1, policies=[_picks_up(1), random_policy(8)])
    sizes = {len(hand): step for step, state in enumerate(engine_steps(row)) for hand in state["hands"]}
    assert {45, 49} <= set(sizes)
    path = tmp_path / "big.html"
    path.write_text(replay_page(game_replay(row, 1, tournament="Cup")), encoding="utf-8")
    for width in (400, 1280):
        _width(browser, width)
        for size in (45, 49):
            browser.get(path.as_uri() + f"?step={sizes[size]}")
            shown = browser.execute_script(ROWS_OF_CARDS)
            [big] = [hand for hand in shown["hands"] if hand["cards"] == size]
            assert big["rows"] >= 2 and big["narrowEnds"] == 0, f"{size} cards at {width} px: {big}"
            assert all(hand["outside"] == 0 for hand in shown["hands"]), f"{size} cards at {width} px: {shown}"
            assert shown["tableFirst"] if width == 400 else shown["beside"], f"at {width} px: {shown}"
    _width(browser, 1280)


FAULTS_IN_SIGHT = """
const box = document.querySelector('.scroll'), seen = box.getBoundingClientRect();
const faults = () => [...document.querySelectorAll('td.fault')].map(e => e.getBoundingClientRect().right);
const before = Math.max(...faults());
box.scrollLeft = box.scrollWidth;  // as far right as the box scrolls
return {width: document.documentElement.clientWidth, page: document.documentElement.scrollWidth, boxRight: seen.right,
        faultsRight: before, scrolledRight: Math.max(...faults()), overflow: getComputedStyle(box).overflowX};
"""


def test_the_games_list_page_uses_the_width_and_scrolls_inside_its_box_never_cutting_the_faults(browser, tmp_path):
    """The teacher's trial: the games list was held to 1,100 px, its faults column out of sight behind
    a scroll bar below the last game, at 1280 px and wider."""
    from arena.game import Rules, game_points
    from arena.play.records import Fault, FaultKind, GameRecord
    from arena.play.selfplay import play_random_game
    from arena.report.games_html import games_list_page
    from arena.results.store import ResultStore
    from arena.schedule.tables import round_robin
    from arena.tournament.config import config_from_dict
    from arena.tournament.results import GameQuery, TournamentResults

    names = ["alice_minimax_v3", "bob_greedy_final", "carol_montecarlo", "dave_random_2026"]  # a class's names
    faults = (Fault(0, FaultKind.TIMEOUT, "slow", 3), Fault(1, FaultKind.ILLEGAL, "x", 4), Fault(1, FaultKind.ILLEGAL, "x", 5),
              Fault(2, FaultKind.MALFORMED, "x", 6))
    store = ResultStore(tmp_path / "class.sqlite")
    for table in round_robin(names, 3, 1, seed=7):
        for spec in table.games:
            g = play_random_game(Rules(), spec.seed ^ spec.seating, spec.dealer)
            store.add_game(spec, GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, Rules()),
                                            faults if spec.seating % 2 == 0 else (), ((0.001,),) * 3, len(g.moves)), {})
    config = config_from_dict({"name": "Class", "bots": names, "deals": 1}, tmp_path / "class.toml")
    page = games_list_page(TournamentResults.on_store(store, config).games(GameQuery()), "Class: games",
                           lambda line: f"games/{line.number}.html", roster=names)
    store.close()
    path = tmp_path / "games.html"
    path.write_text(page, encoding="utf-8")
    for width in (400, 1280, 1920):
        _width(browser, width)
        browser.get(path.as_uri())
        shown = browser.execute_script(FAULTS_IN_SIGHT)
        assert shown["page"] <= shown["width"], f"the page scrolls sideways at {width} px"
        assert shown["scrolledRight"] <= shown["boxRight"] + 0.5, f"the faults are cut at {width} px: {shown}"
        if width >= 1280:  # room enough: the whole table in sight
            assert shown["faultsRight"] <= shown["boxRight"] + 0.5, f"the faults are out of sight at {width} px: {shown}"
        else:
            assert shown["overflow"] == "auto"
    _width(browser, 1280)


def test_hostile_names_faults_and_stderr_show_as_text_never_as_markup_or_script(browser, tmp_path):
    names = tuple(INJECT[:3])
    row = played_row({}, seed=5, names=names, policies=[faulty_at(3, lambda t: INJECT[3] + INJECT[1]),
                                                        random_policy(2), random_policy(3)])
    game = game_replay(row, 1, tournament=INJECT[4] + INJECT[0])
    [fault] = game["faults"]
    fault["stderr"] = "\n".join(INJECT)  # as a run with --log keeps it
    hello = f"bad hello: a name has 1 to 32 of A-Z a-z 0-9 _ . - (line: 'hello name={INJECT[0]} author={INJECT[1]}')"
    game["faults"].insert(0, {"seat": 2, "kind": "no_hello", "detail": hello, "move": 0, "stderr": INJECT[2]})
    path = tmp_path / "hostile.html"
    path.write_text(replay_page(game), encoding="utf-8")
    browser.get(path.as_uri() + "?step=0")  # a bot that could not start: at the deal
    at_start = browser.execute_script("return [window.__pwned === undefined, document.body.textContent, "
                                      "document.querySelectorAll('img, svg, [onerror], [onload]').length]")
    assert at_start[0] and hello in at_start[1] and INJECT[2] in at_start[1] and at_start[2] == 0
    browser.get(path.as_uri() + f"?step={fault['move'] + 1}")
    found = browser.execute_script("""
      return {pwned: window.__pwned === undefined ? null : window.__pwned, text: document.body.innerText,
              raw: document.body.textContent, scripts: document.scripts.length,
              made: document.querySelectorAll('img, svg, iframe, [onerror], [onload]').length,
              stderr: (document.querySelector('pre.stderr') || {}).textContent,
              title: document.querySelector('h1').textContent,
              fetched: performance.getEntriesByType('resource').map(r => r.name)};""")
    assert found["pwned"] is None and found["made"] == 0 and found["fetched"] == []
    assert found["scripts"] == 4  # the game's JSON, the page's data, and its two scripts: nothing added
    for name in names:
        assert name in found["raw"]  # the names, as written
    assert found["stderr"] == fault["stderr"] and INJECT[4] + INJECT[0] in found["title"]
    assert fault["detail"] in found["raw"]


def test_space_plays_and_pauses_at_the_speed_chosen(browser, games):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    path, _ = games["four"]
    browser.get(path.as_uri() + "?step=3")
    Select(browser.find_element("css selector", "select[aria-label=speed]")).select_by_value("8")
    body = browser.find_element("tag name", "body")
    body.send_keys(Keys.SPACE)
    step = lambda driver: int(driver.execute_script("return document.querySelector('main').dataset.step"))  # noqa: E731
    WebDriverWait(browser, 10).until(lambda driver: step(driver) >= 8)  # 8 steps a second at 8x
    body.send_keys(Keys.SPACE)
    assert browser.execute_script("return document.querySelector('main').dataset.playing") is None
    paused_at = step(browser)
    time.sleep(0.5)  # four steps' time at 8x: paused, it stays
    assert step(browser) == paused_at
