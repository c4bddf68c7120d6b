"""The HTML standings report: one self-contained page (inline CSS and SVG, no script, nothing
fetched from elsewhere), readable on a phone: tables scroll inside themselves, never the page.

On a phone the standings come first, with every bot's points on the first screen (the version
column, which the facts also give, is left out there, and long bot names wrap at their
underscores); the tournament's facts follow, folded, without the empty ones. Text wraps at
spaces, underscores and "=", never inside a word ("void_retur n").

Charts: each bot's points per game with its 95% interval, a row per bot (strength at a glance),
and each bot's rating as the games came in (the fit after each block of stored games). A bot's colour comes from its name and the
tournament's list of bots (arena/report/colours.py), so it is the same in every report of the
tournament whatever its rank. The live page (`arena tournament run --html FILE`) is the same page
with a refresh every few seconds."""

from __future__ import annotations

import math
import re
from html import escape
from typing import Sequence

from arena.report.colours import PALETTE, bot_colours
from arena.report.columns import BOT, FAULTS, HISTORY_COLUMNS, STANDINGS_COLUMNS
from arena.report.export import (CHALLENGER_MARK, HISTORY_NOTE, not_complete_words, PER_GAME_NOTE, _ci_text, _ranking_note,
                                 challengers, challengers_sentence, fault_matrix, place_name, rating_groups_sentence)
from arena.report.facts import fact_text, shown_facts
from arena.report.league import LEAGUE_CSS, league_part
from arena.results.ratings import RATING_NOTE
from arena.results.standings import Standings
from arena.wording import count

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1em auto; max-width: 1100px;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; overflow-wrap: break-word; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; white-space: nowrap; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.fault { color: #b00000; font-weight: bold; }
.note { color: #555; font-size: 0.9em; }
.warn { color: #b00000; }
details.facts { margin: 0 0 1.5em; }
details.facts summary { cursor: pointer; color: #444; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.15em 1em; font-size: 0.9em; }
dl.facts dt { color: #555; }
dl.facts dd { margin: 0; overflow-wrap: break-word; }
dl.facts .pair { display: inline-block; max-width: 100%; }
td.bot { white-space: normal; }
td.bot .lead { white-space: nowrap; }
.tag { display: block; width: fit-content; margin: 0.15em 0 0 1.55em; padding: 0 0.45em; border: 1px solid #999;
       border-radius: 0.7em; font-size: 0.75em; color: #444; white-space: nowrap; }
@media (max-width: 600px) {
  body { padding: 0 0.6em; }
  table.standings .version { display: none; }
  table.standings td.bot { min-width: 7.5em; }
  table.standings th, table.standings td { padding: 0.3em 0.4em; }
}
.chart svg { display: block; width: 100%; max-width: 860px; height: auto; }
.chart.narrow { display: none; }
@media (max-width: 600px) { .chart.wide { display: none; } .chart.narrow { display: block; } }
.legend > span { display: inline-block; max-width: 100%; overflow-wrap: break-word; margin-right: 1em; }
svg text { font-size: 13px; font-family: inherit; fill: #222; }
svg .grid { stroke: #e3e3e3; }
svg .axis { stroke: #888; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.35em; border-radius: 2px; }
"""


_BREAK_AFTER = re.compile(r"([_=/])(?=[^_=/\s])")


def _breakable(text: str) -> str:
    """`text` escaped, with a line-break opportunity after each _, = and / inside it: a long bot
    name or rule list wraps there on a phone ("bounce_exhausted=" / "void_return"), and no word
    is cut elsewhere."""
    return _BREAK_AFTER.sub(r"\1<wbr>", escape(text))


def _fact_html(value: object) -> str:
    """A fact's value; a dict's (rules, bots) "key=value" pairs each kept on one line where it fits."""
    if not isinstance(value, dict):
        return _breakable(fact_text(value))
    pairs = [_breakable(fact_text({key: item})) for key, item in value.items()]
    return " ".join(f'<span class="pair">{pair}{"," if i < len(pairs) - 1 else ""}</span>' for i, pair in enumerate(pairs))


def nice_ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round tick values covering [low, high]: steps of 1, 2 or 5 times a power of ten."""
    if high <= low:
        high = low + 1
    raw = (high - low) / most
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= step * factor:
            step *= factor
            break
    first = math.floor(low / step) * step
    ticks, value = [], first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _label(value: float) -> str:
    return f"{value:g}"


# Each chart is drawn twice, for a wide screen and for a phone, and CSS shows the one that fits:
# one drawing scaled down to a phone had 8 px text, scaled up to a desktop 20 px.
WIDE_PX, NARROW_PX = 820, 360


def _short(name: str, width: int) -> str:
    """A name cut to fit a narrow chart's label column (the whole name is in the tooltip and the tables)."""
    room = 14 if width <= NARROW_PX else 21  # 24 ran past the wide chart's left edge
    return name if len(name) <= room else name[:room - 1] + "…"


def interval_chart(standings: Standings, colours: dict[str, str], width: int = WIDE_PX) -> str:
    """Points per game with the 95% interval, a row per bot, in rank order."""
    bots = [b for b in standings.bots if b.games]
    if not bots:
        return "<p>No game yet.</p>"
    lows = [b.points_per_game if math.isnan(b.ci95_low) else b.ci95_low for b in bots]
    highs = [b.points_per_game if math.isnan(b.ci95_high) else b.ci95_high for b in bots]
    ticks = nice_ticks(min(0.0, min(lows)), max(highs), most=6 if width > NARROW_PX else 4)
    left = 170 if width > NARROW_PX else 105
    right, top, row_h, bottom = 16, 12, 26, 48
    height = top + row_h * len(bots) + bottom
    plot_w = width - left - right

    def x(v: float) -> float:
        return left + plot_w * (v - ticks[0]) / (ticks[-1] - ticks[0])

    axis_y = top + row_h * len(bots)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="points per game of each bot with its 95% interval">']
    for tick in ticks:
        parts.append(f'<line class="grid" x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{axis_y}"/>'
                     f'<text x="{x(tick):.1f}" y="{axis_y + 16}" text-anchor="middle">{_label(tick)}</text>')
    caption = "points per game (dot), 95% interval (bar)" if width <= NARROW_PX else \
        "points per game (dot) and its 95% interval (bar)"
    parts.append(f'<line class="axis" x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}"/>'
                 f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">{caption}</text>')
    for i, (b, low, high) in enumerate(zip(bots, lows, highs)):
        y = top + row_h * i + row_h / 2
        colour = colours[b.bot]
        name = escape(b.bot)
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{escape(_short(b.bot, width))}'
                     f'<title>{name}</title></text>'
                     f'<line x1="{x(low):.1f}" y1="{y:.1f}" x2="{x(high):.1f}" y2="{y:.1f}" stroke="{colour}" '
                     f'stroke-width="3"/><circle cx="{x(b.points_per_game):.1f}" cy="{y:.1f}" r="5" fill="{colour}">'
                     f"<title>{name}: {escape(_ci_text(b))} points per game</title></circle>")
    parts.append("</svg>")
    return "\n".join(parts)


def rating_chart(standings: Standings, colours: dict[str, str], width: int = WIDE_PX) -> str:
    """Each bot's rating after each block of games, in the order the games were stored (the legend
    is the page's, under the chart, where a phone can read it)."""
    history = standings.ratings.history if standings.ratings is not None else ()
    names = [b.bot for b in standings.bots if b.games]
    if not history or not names:
        return "<p>No game yet.</p>"
    last = max(games for games, _ in history) or 1
    narrow = width <= NARROW_PX
    values = [rating for _, ratings in history for name, rating in ratings.items() if name in names] or [1500.0]
    y_ticks = nice_ticks(min(values), max(values), most=5 if narrow else 6)
    x_ticks = [t for t in nice_ticks(0, last, most=3 if narrow else 6) if t <= last] or [0]
    left, right, top, bottom = (58 if narrow else 66), 14, 14, 48
    height = 260 if narrow else 380
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(i: float) -> float:
        return left + plot_w * i / last

    def y(v: float) -> float:
        return top + plot_h * (y_ticks[-1] - v) / ((y_ticks[-1] - y_ticks[0]) or 1)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="the rating of each bot as the games were stored">']
    for tick in y_ticks:
        parts.append(f'<line class="grid" x1="{left}" y1="{y(tick):.1f}" x2="{left + plot_w}" y2="{y(tick):.1f}"/>'
                     f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{_label(tick)}</text>')
    for tick in x_ticks:
        parts.append(f'<line class="grid" x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{top + plot_h}"/>'
                     f'<text x="{x(tick):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{_label(tick)}</text>')
    parts.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" class="axis" stroke="#888"/>'
                 f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">games, in the order they were '
                 f'stored</text><text transform="translate(14 {top + plot_h / 2:.1f}) rotate(-90)" '
                 f'text-anchor="middle">rating</text>')
    for name in names:
        points = " ".join(f"{x(games):.1f},{y(ratings[name]):.1f}" for games, ratings in history if name in ratings)
        if points:
            parts.append(f'<polyline fill="none" stroke="{colours[name]}" stroke-width="2" points="{points}">'
                         f"<title>{escape(name)}</title></polyline>")
    parts.append("</svg>")
    return "\n".join(parts)


def _legend(names: list[str], colours: dict[str, str]) -> str:
    return ('<p class="legend">' + " ".join(f'<span><span class="swatch" style="background:{colours[n]}"></span>'
                                            f"{_breakable(n)}</span>" for n in names) + "</p>")


def _both(chart, standings: Standings, colours: dict[str, str]) -> str:
    return (f'<div class="chart wide">{chart(standings, colours, WIDE_PX)}</div>'
            f'<div class="chart narrow">{chart(standings, colours, NARROW_PX)}</div>')


def _table(head: list[str], rows: list[str], css_class: str = "", head_classes: list[str] | None = None) -> str:
    cls = f' class="{css_class}"' if css_class else ""
    classes = head_classes or [""] * len(head)
    return (f'<div class="scroll"><table{cls}><thead><tr>'
            + "".join(f'<th class="{c}">{h}</th>' if c else f"<th>{h}</th>" for h, c in zip(head, classes))
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")


def _column_class(column) -> str:
    """The class of a standings column's cells that the page's CSS needs: the bot's (it wraps on a
    phone) and the version's (left out on a phone)."""
    return "bot" if column is BOT else "version" if column.kind == "version" else ""


def _num(value: object, fault: bool = False) -> str:
    return f'<td class="num{" fault" if fault else ""}">{value}</td>'


def _row(columns, row, swatch: str = "", mark: str = "") -> str:
    """A table row of a bot (or a version out of the standings) in `columns`: text escaped, numbers
    right-aligned, a bot's faults marked, its colour's swatch before its name and its `mark`
    (a challenger's) after it."""
    cells = []
    for column in columns:
        text = escape(column.cell(row))
        if column is FAULTS:
            cells.append(_num(text, fault=row.faults > 0))
        elif column.numeric:
            cells.append(_num(text))
        elif column is BOT:
            first, wbr, rest = _breakable(column.cell(row)).partition("<wbr>")
            if wbr:  # a name that may wrap: the swatch kept on the line of its first part
                first = f'<span class="lead">{swatch}{first}</span>'
            else:
                first = swatch + first
            tag = f'<span class="tag">{escape(mark)}</span>' if mark else ""
            cells.append(f'<td class="bot">{first}{wbr}{rest}{tag}</td>')
        else:
            cls = _column_class(column)
            cells.append(f'<td class="{cls}">{text}</td>' if cls else f"<td>{text}</td>")
    return "<tr>" + "".join(cells) + "</tr>"


def _games_links(href: str, latest: Sequence[tuple[int, str, str]]) -> str:
    """The way to the game pages (arena/report/game_pages.py): the list of all games, and the
    numbers of the latest, each linked to its page."""
    out = [f'<p class="games">Every game can be stepped through in the browser, move by move: '
           f'<a href="{escape(href)}">the list of games</a>.</p>']
    if latest:
        out.append("<p>Latest: " + ", ".join(f'<a href="{escape(link)}">game {number}</a> ({escape(words)})'
                                             for number, link, words in latest) + ".</p>")
    return "".join(out)


def to_html(standings: Standings, title: str = "Standings", refresh_s: int | None = None,
            progress: str | None = None, games_href: str | None = None,
            latest: Sequence[tuple[int, str, str]] = ()) -> str:
    """The page. `refresh_s`: the live page, which the browser reloads this often; `progress`:
    the run's progress line, for it; `games_href`: the list of the game pages, and `latest`
    (number, link, words) the games to name beside it."""
    head = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">']
    if refresh_s:
        head.append(f'<meta http-equiv="refresh" content="{int(refresh_s)}">')
    css = _CSS + (LEAGUE_CSS if standings.league is not None else "")
    out = head + [f"<title>{escape(title)}</title>", f"<style>{css}</style></head><body>",
                  f"<h1>{_breakable(title)}</h1>"]
    if refresh_s:
        import datetime as dt

        updated = dt.datetime.now(dt.timezone.utc).strftime("%H:%M:%S UTC")
        doing = f"{escape(progress)}; " if progress else ""
        out.append(f'<p class="note">Live: the tournament is running: {doing}updated {updated}; this page reloads '
                   f"every {int(refresh_s)} s.</p>")
    # The standings first, and then the facts, folded: first, the facts filled a phone's first
    # screen and more, and the standings began 1,200 px down.
    # The tournament's entries in config order, withdrawn ones in place (a withdrawal moves no colour),
    # so that colours are the same in each report of it.
    colours = _colours(standings)
    out += _standings_part(standings, colours)
    if games_href is not None:
        out.append(_games_links(games_href, latest))
    out += league_part(standings.league, colours)  # a league's queue of next tables, and why each was chosen
    out += _facts_part(standings.facts)
    out += ["<h2>Points per game</h2>", _both(interval_chart, standings, colours),
            "<h2>Ratings as the games came in</h2>", _both(rating_chart, standings, colours),
            _legend([b.bot for b in standings.bots if b.games], colours)]
    out += _tables_part(standings)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _standings_part(standings: Standings, colours: dict[str, str]) -> list[str]:
    """How far the tournament is, its warnings, the standings table and the notes under it."""
    out = [f"<p>{escape(standings.games_words())}{_ranking_note(standings)}.</p>"]
    if standings.completeness is not None and not standings.completeness.complete:
        out.append(f'<p class="warn">{escape(not_complete_words(standings.completeness))}.</p>')
    capped = standings.facts.get("capped_games", 0)
    if capped:
        out.append(f'<p class="warn">{count(capped, "game")} ended at the action cap (R51), without a real finish.</p>')
    if standings.test is not None:
        out.append(f'<p class="sprt"><strong>Early stopping (SPRT):</strong> {escape(standings.test.sentence())}.</p>')
    marked = challengers(standings)
    rows = [_row(STANDINGS_COLUMNS, b, f'<span class="swatch" style="background:{colours[b.bot]}"></span>',
                 CHALLENGER_MARK if b.bot in marked else "") for b in standings.bots]
    out.append(_table([c.header for c in STANDINGS_COLUMNS], rows, "standings",
                      [_column_class(c) for c in STANDINGS_COLUMNS]))
    if marked:
        out.append(f'<p class="challengers">{escape(challengers_sentence(marked))}.</p>')
    out.append(f'<p class="note">{escape(PER_GAME_NOTE)}. {escape(RATING_NOTE)}.</p>')
    groups = rating_groups_sentence(standings)
    if groups:
        out.append(f'<p class="groups">{escape(groups)}</p>')
    return out


def _facts_part(all_facts: dict) -> list[str]:
    """The tournament's facts, folded; an empty fact ("sprt_alpha" of a run without the test) is left out."""
    facts = shown_facts(all_facts)
    if not facts:
        return []
    return ['<details class="facts"><summary>About this tournament: when it ran, how it was set up, '
            'what played</summary><dl class="facts">',
            *(f"<dt>{_breakable(key)}</dt><dd>{_fact_html(value)}</dd>" for key, value in facts.items()),
            "</dl></details>"]


def _tables_part(standings: Standings) -> list[str]:
    """Head to head, finishing places by seat, faults by kind, and what is out of the standings."""
    names = [b.bot for b in standings.bots]
    out = ["<h2>Head to head</h2><p>Row bot finished ahead of column bot in this many of their games together.</p>"]
    h2h_rows = []
    for a in names:
        cells = []
        for c in names:
            together, ahead = standings.head_to_head.get((a, c), (0, 0))
            cells.append(_num("-" if a == c or not together else f"{ahead}/{together}"))
        h2h_rows.append(f"<tr><th>{escape(a)}</th>" + "".join(cells) + "</tr>")
    out.append(_table(["bot"] + [escape(n) for n in names], h2h_rows, "head-to-head"))
    if standings.places_by_seat:
        n = len(standings.places_by_seat[0])
        out.append("<h2>Finishing places by seat</h2>")
        out.append(_table(["seat"] + [place_name(p, n) for p in range(1, n + 1)],
                          [f"<tr>{_num(seat)}" + "".join(_num(c) for c in counts) + "</tr>"
                           for seat, counts in enumerate(standings.places_by_seat)]))
    if standings.faults_by_kind:
        kinds, fault_rows = fault_matrix(standings)
        out.append("<h2>Faults by kind</h2>")
        out.append(_table(["bot"] + [escape(k) for k in kinds] + ["total"],
                          [f"<tr><td>{escape(bot)}</td>" + "".join(_num(c, fault=bool(c)) for c in counts) + "</tr>"
                           for bot, *counts in fault_rows]))
    if standings.history:
        out.append(f"<h2>Out of the standings</h2><p>{escape(HISTORY_NOTE)}</p>")
        out.append(_table([c.header for c in HISTORY_COLUMNS], [_row(HISTORY_COLUMNS, f) for f in standings.history]))
    return out


__all__ = ["to_html", "bot_colours", "PALETTE", "nice_ticks", "interval_chart", "rating_chart"]


STYLE = _CSS  # the reports' style, which the league server's pages share (arena/server/)


def standings_part(standings: Standings) -> str:
    """The standings part of the page (how far, the table, its notes) without the page around it:
    what the league server's leaderboard shows and sends to its live readers with every game."""
    return "\n".join(_standings_part(standings, _colours(standings)))


def ratings_part(standings: Standings) -> str:
    """The ratings chart that follows it on the leaderboard, apart: it is most of the bytes and the
    work, and changes slowly (the server draws it now and then)."""
    colours = _colours(standings)
    return "\n".join(["<h2>Ratings as the games came in</h2>", _both(rating_chart, standings, colours),
                      _legend([b.bot for b in standings.bots if b.games], colours)])


def _colours(standings: Standings) -> dict[str, str]:
    return bot_colours((b.bot for b in standings.bots), roster=standings.roster or standings.facts.get("bots", ()))
