"""The HTML standings report: one self-contained page (inline CSS and SVG, no script, nothing
fetched from elsewhere), readable on a phone: tables scroll inside themselves, never the page.

Charts: each bot's points per game with its 95% interval, a row per bot (strength at a glance),
and the cumulative points in game-number order. A bot's colour comes from its name, so it is the
same in every report whatever its rank. The live page (`arena tournament run --html FILE`) is the
same page with a refresh every few seconds."""

from __future__ import annotations

import math
import zlib
from html import escape

from arena.report.export import HISTORY_NOTE, PER_GAME_NOTE, _ci_text, _ranking_note, fault_matrix
from arena.report.facts import fact_text
from arena.results.ratings import RATING_NOTE, format_ordinal, format_rating
from arena.results.standings import Standings
from arena.wording import count

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1em auto; max-width: 1100px;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; white-space: nowrap; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.fault { color: #b00000; font-weight: bold; }
.note { color: #555; font-size: 0.9em; }
.warn { color: #b00000; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.15em 1em; font-size: 0.9em; }
dl.facts dt { color: #555; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.chart svg { display: block; width: 100%; min-width: 520px; max-width: 860px; height: auto; }
svg text { font-size: 13px; font-family: inherit; fill: #222; }
svg .grid { stroke: #e3e3e3; }
svg .axis { stroke: #888; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.35em; border-radius: 2px; }
"""


def bot_colour(name: str) -> str:
    """A bot's colour, from its name alone: the same in every report, whatever the bot's rank."""
    hue = zlib.crc32(name.encode()) % 360
    return f"hsl({hue}, 65%, 38%)"


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


def interval_chart(standings: Standings) -> str:
    """Points per game with the 95% interval, a row per bot, in rank order."""
    bots = [b for b in standings.bots if b.games]
    if not bots:
        return "<p>No game yet.</p>"
    lows = [b.points_per_game if math.isnan(b.ci95_low) else b.ci95_low for b in bots]
    highs = [b.points_per_game if math.isnan(b.ci95_high) else b.ci95_high for b in bots]
    ticks = nice_ticks(min(0.0, min(lows)), max(highs))
    left, right, top, row_h, bottom = 150, 20, 12, 26, 48
    width = 820
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
    parts.append(f'<line class="axis" x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}"/>'
                 f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">'
                 "points per game (dot) and its 95% interval (bar)</text>")
    for i, (b, low, high) in enumerate(zip(bots, lows, highs)):
        y = top + row_h * i + row_h / 2
        colour = bot_colour(b.bot)
        name = escape(b.bot)
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{name}</text>'
                     f'<line x1="{x(low):.1f}" y1="{y:.1f}" x2="{x(high):.1f}" y2="{y:.1f}" stroke="{colour}" '
                     f'stroke-width="3"/><circle cx="{x(b.points_per_game):.1f}" cy="{y:.1f}" r="5" fill="{colour}">'
                     f"<title>{name}: {escape(_ci_text(b))} points per game</title></circle>")
    parts.append("</svg>")
    return "\n".join(parts)


def cumulative_chart(standings: Standings) -> str:
    """Cumulative points of each bot after each game, in game-number order."""
    timeline = [(0, {})] + list(standings.timeline)
    names = [b.bot for b in standings.bots if b.games]
    if not names:
        return "<p>No game yet.</p>"
    last = max(index for index, _ in timeline) or 1
    values = [points.get(n, 0) for _, points in timeline for n in names] or [0]
    y_ticks = nice_ticks(min(0, min(values)), max(1, max(values)))
    x_ticks = [t for t in nice_ticks(0, last) if t <= last] or [0]
    left, right, top, bottom = 60, 160, 14, 48
    width, height = 820, 380
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(i: float) -> float:
        return left + plot_w * i / last

    def y(v: float) -> float:
        return top + plot_h * (y_ticks[-1] - v) / (y_ticks[-1] - y_ticks[0])

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="cumulative points of each bot in game-number order">']
    for tick in y_ticks:
        parts.append(f'<line class="grid" x1="{left}" y1="{y(tick):.1f}" x2="{left + plot_w}" y2="{y(tick):.1f}"/>'
                     f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{_label(tick)}</text>')
    for tick in x_ticks:
        parts.append(f'<line class="grid" x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{top + plot_h}"/>'
                     f'<text x="{x(tick):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{_label(tick)}</text>')
    parts.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" class="axis" stroke="#888"/>'
                 f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">games, in game-number order</text>'
                 f'<text transform="translate(14 {top + plot_h / 2:.1f}) rotate(-90)" text-anchor="middle">cumulative points</text>')
    for i, name in enumerate(names):
        colour = bot_colour(name)
        points = " ".join(f"{x(index):.1f},{y(cum.get(name, 0)):.1f}" for index, cum in timeline)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}">'
                     f"<title>{escape(name)}</title></polyline>")
        legend_y = top + 10 + 18 * i
        parts.append(f'<rect x="{left + plot_w + 12}" y="{legend_y - 9}" width="12" height="12" fill="{colour}"/>'
                     f'<text x="{left + plot_w + 30}" y="{legend_y + 1}">{escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _table(head: list[str], rows: list[str], css_class: str = "") -> str:
    cls = f' class="{css_class}"' if css_class else ""
    return (f'<div class="scroll"><table{cls}><thead><tr>' + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")


def _num(value: object, fault: bool = False) -> str:
    return f'<td class="num{" fault" if fault else ""}">{value}</td>'


def to_html(standings: Standings, title: str = "Standings", refresh_s: int | None = None) -> str:
    """The page. `refresh_s`: the live page, which the browser reloads this often."""
    t = escape(title)
    head = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">']
    if refresh_s:
        head.append(f'<meta http-equiv="refresh" content="{int(refresh_s)}">')
    out = head + [f"<title>{t}</title>", f"<style>{_CSS}</style></head><body>", f"<h1>{t}</h1>"]
    if refresh_s:
        out.append(f'<p class="note">Live: the tournament is running; this page reloads every {int(refresh_s)} s.</p>')
    out.append(f"<p>{count(standings.games, 'game')}{_ranking_note(standings)}.</p>")
    capped = standings.facts.get("capped_games", 0)
    if capped:
        out.append(f'<p class="warn">{count(capped, "game")} ended at the action cap (R51), without a real finish.</p>')
    if standings.test is not None:
        out.append(f'<p class="sprt"><strong>Early stopping (SPRT):</strong> {escape(standings.test.sentence())}.</p>')
    rows = []
    for b in standings.bots:
        swatch = f'<span class="swatch" style="background:{bot_colour(b.bot)}"></span>'
        rows.append(f"<tr>{_num(b.rank)}<td>{swatch}{escape(b.bot)}</td><td>{escape(b.version)}</td>{_num(b.games)}"
                    f"{_num(b.points)}{_num(escape(_ci_text(b)))}{_num(b.wins)}{_num(b.skitgubbe)}"
                    f"{_num(b.faults, fault=b.faults > 0)}{_num(format_rating(b.mu, b.sigma))}"
                    f"{_num(format_ordinal(b.ordinal))}</tr>")
    out.append(_table(["#", "bot", "version", "games", "points", "per game", "wins", "skitgubbe", "faults",
                       "rating", "ordinal"], rows, "standings"))
    out.append(f'<p class="note">{escape(PER_GAME_NOTE)}. {escape(RATING_NOTE)}.</p>')
    out.append("<h2>Points per game</h2>")
    out.append(f'<div class="scroll chart">{interval_chart(standings)}</div>')
    out.append("<h2>Cumulative points</h2>")
    out.append(f'<div class="scroll chart">{cumulative_chart(standings)}</div>')
    names = [b.bot for b in standings.bots]
    out.append("<h2>Head to head</h2><p>Row bot finished ahead of column bot in this many of their games together.</p>")
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
        out.append(_table(["seat"] + [f"place {p}" for p in range(1, n + 1)],
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
        out.append(_table(["bot", "version", "why", "games", "points", "per game", "wins", "skitgubbe", "faults"],
                          [f"<tr><td>{escape(f.bot)}</td><td>{escape(f.version)}</td><td>{escape(f.why)}</td>"
                           f"{_num(f.games)}{_num(f.points)}{_num(escape(_ci_text(f)))}{_num(f.wins)}"
                           f"{_num(f.skitgubbe)}{_num(f.faults, fault=f.faults > 0)}</tr>" for f in standings.history]))
    if standings.facts:
        out.append('<h2>Tournament</h2><dl class="facts">')
        out += [f"<dt>{escape(key)}</dt><dd>{escape(fact_text(value))}</dd>" for key, value in standings.facts.items()]
        out.append("</dl>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


__all__ = ["to_html", "bot_colour", "nice_ticks", "interval_chart", "cumulative_chart"]
