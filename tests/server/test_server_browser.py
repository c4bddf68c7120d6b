"""A class league from the browser (issue 44), in Debian's chromium driven by selenium against `arena
serve` on loopback: the organiser signs up and adds an author on the organiser's page; the author
signs up through the link, uploads a bot with the form, sees its check pass and its first games
appear on the live leaderboard without reloading, and opens a replay; a bad archive gets its
reason; another author cannot read the first one's logs. Screenshots of each page at 400 and
1280 px are kept under the test's tmp folder (and copied to $SERVER_SCREENS when set)."""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from tests.server.support import add_author, bot_folder, tar_gz, write_league
from tests.server.test_server_kill import free_port, start_server

CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None)
DRIVER = shutil.which("chromedriver")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (it is in the test extra)")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None, reason="no Chromium or chromedriver on this machine (Debian: apt-get install "
                                               "chromium chromium-driver; .ci/run installs them where it can)")]
PASSWORD = "correct horse battery"


@pytest.fixture()
def browser(tmp_path):
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-extensions", "--disable-sync", "--window-size=1280,900",
                 f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


def until(predicate, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.3)
    raise AssertionError(f"{what} did not happen in {timeout_s} s")


def shoot(driver, tmp_path: Path, name: str) -> None:
    for width in (400, 1280):
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})
        scroll = driver.execute_script("return document.documentElement.scrollWidth")
        assert scroll <= width + 1, f"{name} scrolls sideways at {width} px ({scroll})"
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": min(height, 2400), "deviceScaleFactor": 1, "mobile": width < 600})
        shot = tmp_path / f"server-{name}-{width}px.png"
        driver.save_screenshot(str(shot))
        if os.environ.get("SERVER_SCREENS"):
            Path(os.environ["SERVER_SCREENS"]).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(os.environ["SERVER_SCREENS"]) / shot.name)
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def page_text(driver, url: str) -> str:
    """The page's main text, loaded afresh ("" while the browser is between pages)."""
    from selenium.common.exceptions import WebDriverException

    try:
        driver.get(url)
        return driver.find_element("tag name", "main").text
    except WebDriverException:
        return ""


def sign_up(driver, link: str) -> None:
    driver.delete_all_cookies()
    driver.get(link)
    driver.find_element("name", "password").send_keys(PASSWORD)
    driver.find_element("css selector", "form.stack button").click()
    until(lambda: "/upload" in driver.current_url, 10, "signing up")


def test_a_class_league_from_the_browser(browser, tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "ARENA_ARGON2_FAST": "1"}
    os.environ["ARENA_ARGON2_FAST"] = "1"
    config = write_league(tmp_path)
    code, _ = add_author(config, "teacher", organiser=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(config, port, env)
    try:
        sign_up(browser, f"{base}/signup/{code}")
        browser.get(f"{base}/organiser")
        browser.find_element("name", "name").send_keys("alice")
        browser.find_element("css selector", "form.stack button").click()
        shown = until(lambda: re.search(r"(http://\S+/signup/\S+)", browser.find_element("tag name", "main").text),
                      10, "the new author's sign-up link")
        link = shown.group(1).replace("http://127.0.0.1:8000", base)
        shoot(browser, tmp_path, "organiser")

        sign_up(browser, link)
        archive = tmp_path / "alice_bot.tar.gz"
        archive.write_bytes(tar_gz(bot_folder(tmp_path, "alice_bot"), top="alice_bot"))
        browser.find_element("name", "archive").send_keys(str(archive))
        browser.find_element("css selector", "form.stack button").click()
        until(lambda: "alice_bot received" in browser.page_source, 20, "the upload's receipt")
        shoot(browser, tmp_path, "upload")

        until(lambda: "entered" in page_text(browser, f"{base}/bots/alice_bot"), 120, "alice_bot's check passing")
        assert "build log and check" in browser.page_source  # her own bot: its logs

        browser.get(f"{base}/")
        until(lambda: "alice_bot" in browser.find_element("id", "recent").text, 120,
              "alice_bot's first game on the live board, without a reload")
        shoot(browser, tmp_path, "leaderboard")
        # The live board replaces its list of games every second: a link found may be gone at its click.
        until(lambda: _clicked(browser, "#recent a"), 10, "a click on the latest game")
        until(lambda: browser.execute_script("const m = document.querySelector('main'); return m && m.dataset.steps"),
              10, "the replay page")
        shoot(browser, tmp_path, "replay")

        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as bad:
            bad.writestr("bot.toml", 'name = "alice_bot"\n')
            bad.writestr("../../escape.txt", "x")
        slip = tmp_path / "bad.zip"
        slip.write_bytes(buffer.getvalue())
        browser.get(f"{base}/upload")
        browser.find_element("name", "archive").send_keys(str(slip))
        browser.find_element("css selector", "form.stack button").click()
        until(lambda: "archive refused" in browser.page_source, 20, "the bad archive's reason")
        assert "'..'" in browser.find_element("id", "flash").text

        bob_code, _ = add_author(config, "bob")
        sign_up(browser, f"{base}/signup/{bob_code}")
        until(lambda: "alice_bot" in page_text(browser, f"{base}/bots/alice_bot"), 20, "alice_bot's page for bob")
        assert "build log and check" not in browser.page_source
        shoot(browser, tmp_path, "bot")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)


def _clicked(browser, selector: str) -> bool:
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        browser.find_element("css selector", selector).click()
        return True
    except StaleElementReferenceException:
        return False
