"""The HTML report and the live page in a real browser (headless Chromium), at 1280 and 400 px
wide: nothing cut off, the page never scrolls sideways (wide tables and charts scroll inside
themselves), the charts are there and labelled, and nothing is fetched from anywhere.

The page is shown in an iframe of the width under test (srcdoc: Chromium's headless window is
at least 500 px wide, an iframe can be as narrow as a phone), and a script of this test, in the
outer page only, measures it; the report itself has no script."""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.cli.reports import report_standings
from arena.game import Rules, game_points
from arena.play.records import Fault, FaultKind, GameRecord
from arena.play.selfplay import play_random_game
from arena.report.html import to_html
from arena.results.store import ResultStore
from arena.schedule.tables import round_robin
from arena.tournament.config import config_from_dict

CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (Debian: apt-get install chromium; "
                                                         ".ci/run installs it where it can)")

NAMES = ["heuristic_bot_with_a_rather_long_name_v2", "random_bot", '<b>&co"', "d"]

MEASURE = """
const frame = document.getElementById('page');
frame.addEventListener('load', () => {
  const d = frame.contentDocument, w = frame.contentWindow, width = d.documentElement.clientWidth;
  const inScroll = (e) => e.closest('.scroll') !== null && !e.classList.contains('scroll');
  const cut = [];
  for (const e of d.body.querySelectorAll('*')) {
    if (inScroll(e) || ['TITLE', 'STYLE', 'META'].includes(e.tagName)) continue;
    const r = e.getBoundingClientRect();
    if (r.width > 0 && (r.right > width + 0.5 || r.left < -0.5)) cut.push(e.tagName + ':' + e.textContent.slice(0, 30));
  }
  const scrollers = [...d.querySelectorAll('.scroll')].map(s => ({
    wider: s.scrollWidth > s.clientWidth, overflow: w.getComputedStyle(s).overflowX}));
  const svgs = [...d.querySelectorAll('svg')].filter(s => s.getBoundingClientRect().width > 0).map(s => ({
    label: s.getAttribute('aria-label') || '', width: s.getBoundingClientRect().width,
    textPx: 13 * s.getBoundingClientRect().width / s.viewBox.baseVal.width,
    texts: [...s.querySelectorAll('text')].map(t => t.textContent), grid: s.querySelectorAll('.grid').length}));
  const legend = [...d.querySelectorAll('.legend > span')].map(e => e.textContent);
  document.body.setAttribute('data-result', JSON.stringify({
    width, pageWidth: d.documentElement.scrollWidth, cut, scrollers, svgs, legend,
    fetched: w.performance.getEntriesByType('resource').map(r => r.name),
    refresh: !!d.querySelector('meta[http-equiv=refresh]'),
    headers: [...d.querySelectorAll('table.standings th')].map(th => th.textContent)}));
});
"""


def _report(tmp_path: Path, refresh_s: int | None) -> str:
    rules = Rules()
    config = config_from_dict({"name": "Club cup <2026>", "bots": NAMES, "deals": 3}, tmp_path / "cup.toml")
    store = ResultStore(tmp_path / "cup.sqlite")
    try:
        for table in round_robin(NAMES, 3, 3, seed=7):
            for spec in table.games:
                g = play_random_game(rules, spec.seed ^ spec.seating, spec.dealer)
                faults = (Fault(0, FaultKind.TIMEOUT, "slow", 3),) if spec.seating == 2 else ()
                store.add_game(spec, GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, rules),
                                                faults, ((0.001,),) * 3, len(g.moves)), {})
        return to_html(report_standings(store, config), config.name, refresh_s=refresh_s)
    finally:
        store.close()


def _measure(tmp_path: Path, page: str, width: int) -> dict:
    wrapper = tmp_path / f"wrapper-{width}.html"
    wrapper.write_text(f'<!DOCTYPE html><html><body style="margin:0"><iframe id="page" style="width:{width}px;'
                       f'height:1000px;border:0" srcdoc="{html.escape(page, quote=True)}"></iframe>'
                       f"<script>{MEASURE}</script></body></html>", encoding="utf-8")
    argv = [CHROMIUM, "--headless=new", "--disable-gpu", "--window-size=1400,1100", "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", wrapper.as_uri()]
    if os.geteuid() == 0:
        argv.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its own sandbox
    dom = subprocess.run(argv, capture_output=True, text=True, timeout=120).stdout
    marker = 'data-result="'
    assert marker in dom, f"the browser gave no measurement: {dom[:300]}"
    return json.loads(html.unescape(dom.split(marker, 1)[1].split('"', 1)[0]))


@pytest.mark.parametrize("width", [1280, 400])
@pytest.mark.parametrize("live", [False, True], ids=["report", "live page"])
def test_the_page_reads_well_in_a_browser(tmp_path, width, live):
    result = _measure(tmp_path, _report(tmp_path, 5 if live else None), width)
    assert result["width"] <= width
    assert result["pageWidth"] <= result["width"], "the page itself scrolls sideways"
    assert result["cut"] == [], f"cut off at {width} px: {result['cut']}"
    for scroller in result["scrollers"]:
        if scroller["wider"]:
            assert scroller["overflow"] in ("auto", "scroll")  # scrolls inside itself
    if width == 400:
        assert any(s["wider"] for s in result["scrollers"])  # the standings table is wider than a phone
    labels = [svg["label"] for svg in result["svgs"]]  # the charts drawn for this width, the others hidden
    assert len(labels) == 2 and "points per game" in labels[0] and "cumulative" in labels[1]
    for svg in result["svgs"]:
        assert svg["width"] > 200 and svg["grid"] > 0
        assert svg["textPx"] >= 10, f"chart text of {svg['textPx']:.1f} px at {width} px"  # readable, not shrunk
    texts = " ".join(text for svg in result["svgs"] for text in svg["texts"])
    assert "games, in game-number order" in texts and "cumulative points" in texts and "random_bot" in texts
    assert sorted(result["legend"]) == sorted(NAMES)  # the cumulative chart's key, on the page
    assert result["fetched"] == []  # nothing requested from anywhere
    assert result["refresh"] is live
    assert {"rating", "ordinal", "faults", "version"} <= set(result["headers"])
