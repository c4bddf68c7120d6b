"""Reports render: Rich leaderboard, Markdown, JSON, CSV and the self-contained HTML page."""

from __future__ import annotations

import csv
import io
import json
import math
from html.parser import HTMLParser

from rich.console import Console

from arena.report.export import to_csv, to_json, to_markdown
from arena.report.html import to_html
from arena.report.standings import (
    head_to_head_renderable, leaderboard_renderable, render_standings_details, render_standings_report,
    render_standings_table,
)
from arena.results.plackett_luce import fit, stage_counts
from arena.results.ratings import ratings_of, scaled, with_ratings
from arena.results.standings import standings_from_rows
from arena.results.rows import GameRow

NASTY = "<b>&co\""


def row(i, table, deal, bots, order, points, faults=()):
    return GameRow(id=i, key=f"g{i}", table=table, deal=deal, bots=tuple(bots), finishing_order=tuple(order),
                   points=tuple(points), faults=tuple(faults))


def standings():
    bots = ("alpha", "beta", NASTY)
    rows = [
        row(1, 0, 0, bots, (0, 1, 2), (2, 1, 0), [{"seat": 2, "kind": "timeout", "detail": "x", "move": 1}]),
        row(2, 0, 0, bots, (1, 0, 2), (1, 2, 0)),
        row(3, 0, 1, bots, (0, 2, 1), (2, 0, 1)),
        row(4, 0, 1, bots, (2, 1, 0), (0, 1, 2)),
    ]
    return with_ratings(standings_from_rows(rows, entries=["alpha", "beta", NASTY, "newbie"]), _ratings(rows))


def _ratings(rows):
    """The ratings of `rows` as a store reads them (results/ratings_read.py), with a two-point history."""
    names = tuple(sorted({name for r in rows for name in r.bots}))
    index = {name: i for i, name in enumerate(names)}
    orders = [(tuple(index[r.bots[seat]] for seat in r.finishing_order), 1) for r in rows]
    history = []
    for upto in (len(rows) // 2, len(rows)):
        counts = stage_counts(orders[:upto], len(names))
        history.append((upto, scaled(names, fit(counts.incidence(), counts.set_games, counts.wins))))
    counts = stage_counts(orders, len(names))
    return ratings_of(names, fit(counts.incidence(), counts.set_games, counts.wins), tuple(history))


def console():
    return Console(file=io.StringIO(), width=120, color_system=None)


def test_rich_tables():
    s = standings()
    c = console()
    render_standings_table(s, c)
    render_standings_details(s, c)
    c.print(leaderboard_renderable(s, "Live"))
    out = c.file.getvalue()
    alpha = s.bot("alpha")
    assert f"{alpha.points_per_game:.2f} ± {alpha.ci95_half_width:.2f}" in out
    assert "alpha" in out and "newbie" in out and NASTY in out
    assert "± n/a" in out  # newbie: no deal sets
    assert "Head to head" in out and "Finishing places by seat" in out and "Faults by kind" in out
    assert "timeout" in out


def test_a_narrow_terminal_gets_a_line_per_bot_with_every_number_whole():
    """At 40 columns the table cut its numbers short ('1.83…', a rank column of width 0)."""
    s = standings()
    narrow = Console(file=io.StringIO(), width=40, color_system=None, soft_wrap=True)  # as the CLI's
    narrow.print(leaderboard_renderable(s, "Live"))
    out = " ".join(narrow.file.getvalue().split())
    alpha = s.bot("alpha")
    assert "…" not in out and "┃" not in out
    assert max(len(line) for line in narrow.file.getvalue().splitlines()) <= 40  # wrapped, not cut or overlong
    assert (f"{alpha.rank}. alpha: {alpha.points} points in {alpha.games} games, "
            f"{alpha.points_per_game:.2f} ± {alpha.ci95_half_width:.2f} per game") in out
    assert "newbie: 0 points in 0 games, 0.00 ± n/a per game, 0 wins, skitgubbe 0 times, 0 faults" in out
    wide = console()
    wide.print(leaderboard_renderable(s, "Live"))
    assert "┃" in wide.file.getvalue()  # where it fits, the table


def test_the_head_to_head_is_a_grid_that_keeps_whole_names_in_80_columns():
    """Six bots with a name over every column needed about 100 columns, and a narrow terminal cut
    the names short ('heur…'): the columns go by number, the names stay in the rows."""
    s = standings()
    narrow = Console(file=io.StringIO(), width=80, color_system=None)
    narrow.print(head_to_head_renderable(s))
    out = narrow.file.getvalue()
    assert "…" not in out and "┃" in out  # a grid, not prose
    assert max(len(line) for line in out.splitlines()) <= 80
    together, ahead = s.head_to_head[("alpha", "beta")]
    row = next(line for line in out.splitlines() if "alpha" in line and "│" in line)
    assert f"{100 * ahead / together:.0f}%" in row
    for number, b in enumerate(s.bots, start=1):
        assert f"{number} {b.bot}" in out


def test_markdown():
    md = to_markdown(standings(), title="<script>alert(1)</script> | cup")
    assert "| 1 | alpha |" in md and "## Head to head" in md and "newbie" in md
    # Who faulted how, as in the terminal report (it used to give only tournament-wide counts).
    assert "| bot | timeout | total |" in md and "| all | 1 | 1 |" in md
    # HTML in a name is shown, not run: Markdown passes HTML through to the page. Only < and &
    # open a tag or an entity: a > stays as it is (issue: "LLR 25.15 &gt;= 2.94").
    assert "<b>" not in md and "<script>" not in md and "| &lt;b>&amp;co\" | 1 | 1 |" in md
    assert md.startswith("# &lt;script>alert(1)&lt;/script> \\| cup\n")


def test_json_round_trip():
    s = standings()
    data = json.loads(to_json(s))
    assert data["games"] == 4
    assert [b["bot"] for b in data["bots"]] == [b.bot for b in s.bots]
    alpha = next(b for b in data["bots"] if b["bot"] == "alpha")
    assert alpha["points"] == s.bot("alpha").points and alpha["places"] == list(s.bot("alpha").places)
    assert alpha["ci95_low"] == s.bot("alpha").ci95_low
    newbie = next(b for b in data["bots"] if b["bot"] == "newbie")
    assert newbie["ci95_low"] is None and newbie["games"] == 0
    assert {"bot": "alpha", "opponent": "beta", "games": 4, "ahead": 2} in data["head_to_head"]
    assert data["faults_by_kind"] == {"timeout": 1}
    assert data["rating_history"][-1]["games"] == 4 and data["places_by_seat"] == [list(r) for r in s.places_by_seat]
    assert data["rating_history"][-1]["ratings"]["alpha"] == alpha["rating"] and alpha["rating_group"] >= 1


def test_csv_round_trip():
    s = standings()
    rows = list(csv.DictReader(io.StringIO(to_csv(s))))
    assert [r["bot"] for r in rows] == [b.bot for b in s.bots]
    alpha = next(r for r in rows if r["bot"] == "alpha")
    assert int(alpha["points"]) == s.bot("alpha").points
    assert math.isclose(float(alpha["ci95_high"]), s.bot("alpha").ci95_high, rel_tol=1e-5)
    # One value per cell: a column per place and per fault kind.
    assert [int(alpha[f"place_{p}"]) for p in range(1, len(s.bot("alpha").places) + 1)] == list(s.bot("alpha").places)
    nasty = next(r for r in rows if r["bot"] == NASTY)
    assert nasty["fault_timeout"] == "1" and alpha["fault_timeout"] == "0"
    assert next(r for r in rows if r["bot"] == "newbie")["ci95_low"] == ""


def test_every_report_says_when_ranks_follow_points_per_game():
    # A gauntlet's challengers play more games, so it ranks by points per game; a reader of any
    # written report must be able to tell, since the ranks would otherwise read as by points.
    # a: 3 points in 2 games, c: 2 in 1, b: 1 in 2, d: 0 in 1
    rows = [row(1, 0, 0, ("a", "b", "c"), (2, 0, 1), (1, 0, 2)), row(2, 0, 1, ("a", "b", "d"), (0, 1, 2), (2, 1, 0))]
    for by_rate, ranked_by, note, ranks in ((False, "points", "", "acbd"),
                                            (True, "points_per_game", "; ranked by points per game", "cabd")):
        s = standings_from_rows(rows, by_points_per_game=by_rate)
        assert "".join(b.bot for b in s.bots) == ranks
        assert f"\n2 games{note}.\n" in to_markdown(s, "cup")
        assert f"<p>2 games{note}.</p>" in to_html(s, "cup")
        assert json.loads(to_json(s))["ranked_by"] == ranked_by
        assert {r["ranked_by"] for r in csv.DictReader(io.StringIO(to_csv(s)))} == {ranked_by}


class Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_html_is_self_contained_with_tables_and_chart():
    s = standings()
    page = to_html(s, "Cup <2025>")
    parser = Collector()
    parser.feed(page)
    assert parser.tags.count("table") >= 2
    assert "svg" in parser.tags
    played = [b for b in s.bots if b.games]
    assert parser.tags.count("polyline") == 2 * len(played)  # the chart drawn for wide screens and for phones
    for tag, attrs in parser.attrs:  # nothing loaded from elsewhere
        assert tag not in ("script", "link", "img", "iframe")
        assert "src" not in attrs and "href" not in attrs
    text = "".join(parser.text)
    assert NASTY in text and "Cup <2025>" in text  # names come back intact after unescaping...
    assert NASTY not in page and "<b>" not in page  # ...because they were escaped in the source
    assert "@import" not in page and "url(" not in page


def test_html_faults_are_counted_per_bot_and_kind():
    page = to_html(standings())
    section = page[page.index("Faults by kind"):]
    assert "<th>bot</th><th>timeout</th><th>total</th>" in section
    assert '<tr><td>&lt;b&gt;&amp;co&quot;</td><td class="num fault">1</td><td class="num fault">1</td></tr>' in section
    assert '<tr><td>alpha</td><td class="num">0</td><td class="num">0</td></tr>' in section


def test_markdown_shows_a_name_literally_rather_than_as_a_link_or_emphasis():
    """Rendered, a tournament name shaped like a link stayed a live link in the report."""
    from markdown_it import MarkdownIt  # Rich's own Markdown parser (CommonMark)

    title = "[click me](http://example.com) *big* _cup_ `x` ~~old~~ back\\slash"
    md = to_markdown(standings(), title=title)
    html = MarkdownIt("commonmark").enable("table").render(md)
    assert "<a " not in html and "<em>" not in html and "<strong>" not in html and "<code>" not in html
    heading = html.split("</h1>")[0].removeprefix("<h1>")
    assert heading == title  # shown as typed
    assert "| random_bot |" in to_markdown(standings_with_bot("random_bot"))  # plain names stay plain


def standings_with_bot(name: str):
    import dataclasses

    s = standings()
    return dataclasses.replace(s, bots=[dataclasses.replace(s.bots[0], bot=name)])


def test_the_standings_columns_have_the_same_names_in_every_text_format():
    import dataclasses
    import re

    s = standings()
    s = dataclasses.replace(s, bots=tuple(dataclasses.replace(b, version="1a2b3c4d5e6f") for b in s.bots))
    wide = Console(file=io.StringIO(), width=200, color_system=None)
    wide.print(leaderboard_renderable(s, "cup", show_versions=True))
    header = next(line for line in wide.file.getvalue().splitlines() if "┃" in line and "bot" in line)
    terminal = [cell.strip() for cell in header.strip("┃ ").split("┃")]
    markdown = next(line for line in to_markdown(s).splitlines() if line.startswith("| # |"))
    markdown_names = [cell.strip() for cell in markdown.strip("| ").split("|")]
    page = to_html(s)
    table = page[page.index('<table class="standings">'):page.index("</thead>", page.index('<table class="standings">'))]
    html_names = re.findall(r"<th[^>]*>([^<]*)</th>", table)
    assert terminal == markdown_names == html_names
    assert {"per game", "rating", "group", "version"} <= set(terminal)
    # JSON and CSV name the same figures as fields, one value each.
    fields = set(csv.DictReader(io.StringIO(to_csv(s))).fieldnames)
    assert {"rank", "bot", "version", "games", "points", "points_per_game", "ci95_low", "ci95_high", "wins",
            "skitgubbe", "faults", "rating", "rating_low", "rating_high", "rating_group"} <= fields


def test_bot_colours_come_from_names_and_never_repeat_in_a_report():
    from arena.report.html import PALETTE, bot_colours

    names = ["heuristic_bot", "random_bot", "shell_bot", "c_bot", "js_bot", "zmq_bot", "my_bot", "my_bot_v2"]
    colours = bot_colours(names)
    assert len(set(colours.values())) == len(names)  # told apart
    assert bot_colours(reversed(names)) == colours  # from the names, not their order or rank
    assert set(bot_colours(f"bot{i}" for i in range(40)).values()) == set(PALETTE)  # past the palette: reused


def _with_facts(s, **facts):
    import dataclasses

    base = {"tournament": "cup", "seed": 7, "schedule": "round_robin", "challengers": "", "stop": "none",
            "sprt_delta0": "", "sprt_delta1": "", "sprt_alpha": "", "sprt_beta": "", "rules": {},
            "bots": {"alpha": "v1", "beta": "v2", NASTY: "v3", "newbie": ""}}
    return dataclasses.replace(s, facts={**base, **facts})


def _terminal(s) -> str:
    c = console()
    render_standings_report(s, c, facts=True)
    return c.file.getvalue()


def test_empty_facts_are_not_shown():
    """A round robin's `challengers` and a run's `sprt_*` without early stopping are empty: the
    reports for people leave them out (the HTML page listed them as empty rows); the CSV keeps
    its columns."""
    s = _with_facts(standings())
    page, md, terminal = to_html(s, "cup"), to_markdown(s, "cup"), _terminal(s)
    for empty in ("challengers", "sprt_delta0", "sprt_delta1", "sprt_alpha", "sprt_beta", "rules"):
        assert f"<dt>{empty}</dt>" not in page.replace("<wbr>", "") and f"- {empty}:" not in md
        assert not any(line.split()[:1] == [empty] for line in terminal.splitlines())
    assert "<dt>seed</dt><dd>7</dd>" in page and "- seed: 7" in md and "seed" in terminal
    assert "<dd></dd>" not in page
    assert {"challengers", "sprt_alpha"} <= set(csv.DictReader(io.StringIO(to_csv(s))).fieldnames or [])


def test_the_facts_follow_the_standings_on_the_page_folded():
    page = to_html(_with_facts(standings()), "cup")
    assert page.index('<table class="standings">') < page.index('<details class="facts">') < page.index("<dt>seed</dt>")


def _gauntlet(test=None):
    import dataclasses

    s = _with_facts(standings(), schedule="gauntlet", challengers=1)
    return dataclasses.replace(s, test=test)


def test_a_gauntlets_challengers_are_marked_in_every_standings_report():
    s = _gauntlet()
    page, md, terminal = to_html(s, "cup"), to_markdown(s, "cup"), _terminal(s)
    assert page.count('<span class="tag">challenger</span>') == 1
    row = next(r for r in page.split("<tr>") if ">alpha" in r)
    assert '<span class="tag">challenger</span>' in row
    assert "| alpha (challenger) |" in md and "| beta |" in md
    assert "Challenger: alpha (the gauntlet's first bot)" in md and "Challenger: alpha" in page
    assert "Challenger: alpha (the gauntlet's first bot)" in " ".join(terminal.split())
    plain = _with_facts(standings())  # a round robin: no challengers
    assert "challenger" not in to_markdown(plain).lower()
    assert 'class="tag"' not in to_html(plain) and "Challenger" not in _terminal(plain)


def test_an_sprt_runs_challengers_are_marked_from_its_test():
    """Two challengers: the tested one and its baseline, the config's first two bots."""
    import dataclasses

    from arena.results.sprt import H1, SprtSettings, SprtState

    test = SprtState(SprtSettings(delta1=0.1), "beta", "alpha", llr=25.15, deal_sets=40, games=1440,
                     mean_difference=0.3, decision=H1)
    s = _gauntlet(test)
    md, page, terminal = to_markdown(s), to_html(s), " ".join(_terminal(s).split())
    assert "| alpha (challenger) |" in md and "| beta (challenger) |" in md and f"| {_md_name(NASTY)} |" in md
    assert page.count('<span class="tag">challenger</span>') == 2
    assert "Challengers: beta, alpha (the gauntlet's first 2 bots)" in terminal
    field = _gauntlet(dataclasses.replace(test, baseline="the field"))  # one challenger: the field is its baseline
    assert to_html(field).count('<span class="tag">challenger</span>') == 1


def _md_name(name: str) -> str:
    return name.replace("&", "&amp;").replace("<", "&lt;")


def test_markdown_writes_greater_or_equal_as_it_is():
    """The SPRT line read `LLR 25.15 &gt;= 2.94`: HTML escaping leaked into the Markdown."""
    from markdown_it import MarkdownIt

    from arena.results.sprt import H1, SprtSettings, SprtState

    test = SprtState(SprtSettings(delta1=0.1), "alpha", "beta", llr=25.15, deal_sets=40, games=1440,
                     mean_difference=0.3, decision=H1)
    md = to_markdown(_gauntlet(test), title="a > b")
    assert "(LLR 25.15 >= 2.94)" in md and "&gt;" not in md
    assert md.startswith("# a > b\n")
    rendered = MarkdownIt("commonmark").enable("table").render(md)
    assert "(LLR 25.15 &gt;= 2.94)" in rendered  # a reader sees >=, in the rendered page too
    assert "&lt;b&gt;&amp;co" in rendered and "<b>" not in rendered  # HTML in a name still shown, not run


def test_head_to_head_cells_are_never_cut_in_80_columns():
    """An organiser's trial: with twelve bots the head-to-head's cells read "6…" at 80 columns; the
    columns now go on in a second table instead."""
    import itertools

    names = [f"a_long_bot_name_{i:02d}" for i in range(12)]
    rows = [row(i, i, 0, bots, (i % 3, (i + 1) % 3, (i + 2) % 3), (2, 1, 0))
            for i, bots in enumerate(itertools.combinations(names, 3))]
    s = standings_from_rows(rows)
    narrow = Console(file=io.StringIO(), width=80, color_system=None)
    narrow.print(head_to_head_renderable(s))
    text = narrow.file.getvalue()
    assert "…" not in text and all(len(line) <= 80 for line in text.splitlines())
    shares = [cell for line in text.splitlines() for cell in line.split("│")[2:] if cell.strip() not in ("", "-")]
    assert len(shares) == 12 * 11 and all(cell.strip().endswith("%") for cell in shares)
    assert "columns: the bots by their numbers" in text
