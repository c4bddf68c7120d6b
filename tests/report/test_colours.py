"""Bots' colours (arena/report/colours.py): a palette whose colours stay clearly apart (red and
orange, and two blues 4 apart, went to bots side by side), and the same colour for a bot in every
report of a tournament (shell_bot was olive in one report and navy in another)."""

from __future__ import annotations

import dataclasses

import itertools
import math
import re
from pathlib import Path

import pytest

from arena.game import Rules, game_points
from arena.play.records import GameRecord
from arena.play.selfplay import play_random_game
from arena.report.colours import PALETTE, bot_colours, home_slot
from arena.report.html import to_html
from arena.results.store import ResultStore
from arena.schedule.tables import round_robin
from arena.tournament.config import config_from_dict
from arena.tournament.results import TournamentResults


def _lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB colour "#rrggbb"."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _ciede2000(lab1, lab2) -> float:
    """The CIEDE2000 colour difference (Sharma, Wu and Dalal, 2005): about 2 is just noticeable."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1 else 0.0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2 else 0.0
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    d_l, d_c, d_h = l2 - l1, c2 - c1, 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c, s_h = 1 + 0.045 * c_mean, 1 + 0.015 * c_mean * t
    r_t = (-2 * math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7))
           * math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2)))))
    return math.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h))


@pytest.mark.parametrize("lab1, lab2, expected", [  # from Sharma, Wu and Dalal's test data
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 3.1571, -77.2803), (50.0, 0.0, -82.7485), 2.8615),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
])
def test_the_colour_difference_is_ciede2000(lab1, lab2, expected):
    assert _ciede2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)


def _contrast_on_white(colour: str) -> float:
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


def test_the_palettes_colours_stay_clearly_apart():
    """Any two colours (a bot takes its name's slot or the next free one, so any two may be side by
    side) at least 25 apart in CIEDE2000; the old palette's closest two were 4.2 apart."""
    assert len(set(PALETTE)) == len(PALETTE) >= 10
    closest = min((_ciede2000(_lab(a), _lab(b)), a, b) for a, b in itertools.combinations(PALETTE, 2))
    assert closest[0] >= 25, f"{closest[1]} and {closest[2]} are only {closest[0]:.1f} apart"
    neighbours = [_ciede2000(_lab(a), _lab(b)) for a, b in zip(PALETTE, PALETTE[1:] + PALETTE[:1])]
    assert min(neighbours) >= 25
    for colour in PALETTE:  # a line of it shows on the white page
        assert _contrast_on_white(colour) >= 2.3, colour


def test_a_bot_keeps_its_colour_whatever_else_the_tournament_has():
    roster = ["heuristic_bot", "random_bot", "shell_bot"]
    colours = bot_colours(roster, roster=roster)
    assert len(set(colours.values())) == len(roster)
    # A bot added at the end of the config whose name hashes to shell_bot's slot and sorts
    # first: in alphabetical order it took shell_bot's colour, and shell_bot moved.
    newcomer = next(f"a{i}" for i in range(1000) if home_slot(f"a{i}") == home_slot("shell_bot"))
    grown = bot_colours(roster + [newcomer], roster=roster + [newcomer])
    assert {name: grown[name] for name in roster} == colours
    assert len(set(grown.values())) == len(roster) + 1
    assert bot_colours(reversed(roster), roster=roster) == colours  # not from the ranks
    many = [f"bot{i}" for i in range(40)]
    assert set(bot_colours(many, roster=many).values()) == set(PALETTE)  # past the palette: reused


def _page(folder: Path, bots: list[str], games: int | None = None, refresh_s: int | None = None,
          withdrawn: tuple[str, ...] = ()) -> str:
    """The HTML report (or, with `refresh_s`, the live page) of a round robin of `bots` with its
    first `games` games played, the `withdrawn` bots' games then superseded."""
    folder.mkdir()
    rules = Rules()
    config = config_from_dict({"name": "cup", "bots": bots, "deals": 2, "seed": 7}, folder / "cup.toml")
    store = ResultStore(folder / "cup.sqlite")
    try:
        specs = [spec for table in round_robin(bots, 3, 2, seed=7) for spec in table.games]
        for spec in specs[:games]:
            g = play_random_game(rules, spec.seed ^ spec.seating, spec.dealer)
            store.add_game(spec, GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, rules), (),
                                            ((0.001,),) * 3, len(g.moves)), {})
        if withdrawn:  # as a run with --update leaves them: out of the standings, in the entries
            store.supersede({name: f"{name}: withdrawn" for name in withdrawn}, {"bots": bots})
            config = dataclasses.replace(config, withdrawn=withdrawn)
        return to_html(TournamentResults.on_store(store, config).standings(), config.name, refresh_s=refresh_s)
    finally:
        store.close()


def _page_colours(page: str) -> dict[str, set[str]]:
    """Each bot's colours on a page: its swatch in the standings and the legend, its chart marks."""
    found: dict[str, set[str]] = {}
    swatch = r'<span class="swatch" style="background:(#[0-9a-f]{6})"></span>'
    cells = [(re.search(swatch, cell).group(1), re.sub(r'<span class="tag">.*?</span>', "", cell))
             for cell in re.findall(r'<td class="bot">(.*?)</td>', page)]
    for colour, name in cells + re.findall(f"<span>{swatch}(.*?)</span>", page):  # the table's, the legend's
        found.setdefault(re.sub(r"<[^>]*>", "", name), set()).add(colour)
    for colour, name in re.findall(r'<polyline fill="none" stroke="(#[0-9a-f]{6})"[^>]*><title>([^<]*)</title>', page):
        found.setdefault(name, set()).add(colour)
    return found


def test_a_bot_has_the_same_colour_in_every_report_of_a_tournament(tmp_path):
    bots = ["heuristic_bot", "random_bot", "c_bot", "js_bot", "shell_bot"]
    live = _page_colours(_page(tmp_path / "live", bots, games=12, refresh_s=5))  # mid-run, another ranking
    final = _page_colours(_page(tmp_path / "final", bots))
    assert set(final) == set(bots) and all(len(colours) == 1 for colours in final.values())
    assert live == final
    assert len({next(iter(c)) for c in final.values()}) == len(bots)  # no two alike
    # With a bot added at the end of the config (its name sorts first and hashes to shell_bot's slot).
    newcomer = next(f"a{i}" for i in range(1000) if home_slot(f"a{i}") == home_slot("shell_bot"))
    grown = _page_colours(_page(tmp_path / "grown", bots + [newcomer]))
    assert {name: grown[name] for name in bots} == final


def test_a_bot_keeps_its_colour_when_another_is_withdrawn(tmp_path):
    """An organiser's trial: withdrawing random_bot moved the colour of a bot later in the config
    whose name hashes to random_bot's colour (the colours were chosen among the bots still playing)."""
    bots = ["heuristic_bot", "random_bot", "c_bot", "shell_bot"]
    later = next(f"z{i}" for i in range(1000) if home_slot(f"z{i}") == home_slot("random_bot"))
    before = _page_colours(_page(tmp_path / "before", bots + [later]))
    after = _page_colours(_page(tmp_path / "after", bots + [later], withdrawn=("random_bot",)))
    assert "random_bot" not in after
    assert after == {name: colours for name, colours in before.items() if name != "random_bot"}
