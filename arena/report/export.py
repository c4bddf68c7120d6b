"""Standings exports: Markdown, JSON, CSV and one self-contained HTML page (inline CSS and SVG, no scripts)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from html import escape

from arena.results.ratings import RATING_NOTE, format_ordinal, format_rating
from arena.results.standings import BotStanding, Standings
from arena.wording import count

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


def _num(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


def _ci_text(b: BotStanding) -> str:
    if math.isnan(b.ci95_low):
        return f"{b.points_per_game:.2f} ± n/a"
    return f"{b.points_per_game:.2f} ± {b.ci95_half_width:.2f}"


# What Markdown would act on in a name: a link or image ([...]), emphasis (*, and _ that is not
# between letters or digits: random_bot stays as it is), code (`), strikethrough (~), and the
# backslash that escapes all of them.
_MD_ACTIVE = re.compile(r"[\\`*\[\]~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def _md_cell(text: object) -> str:
    """Text as Markdown shows it literally: HTML in a tournament or bot name (which Markdown
    passes through) as entities, what Markdown would act on backslash-escaped, and a | that
    would end a table cell escaped."""
    safe = escape(str(text), quote=False).replace("\n", " ")
    return _MD_ACTIVE.sub(lambda m: "\\" + m.group(0), safe).replace("|", "\\|")


def to_markdown(standings: Standings, title: str = "Standings") -> str:
    lines = [f"# {_md_cell(title)}", "", f"{count(standings.games, 'game')}{_ranking_note(standings)}.", "",
             "| # | bot | games | points | pts/game ± 95% CI | wins | skitgubbe | faults | rating | ordinal |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for b in standings.bots:
        lines.append(f"| {b.rank} | {_md_cell(b.bot)} | {b.games} | {b.points} | {_ci_text(b)} | {b.wins} | {b.skitgubbe} "
                     f"| {b.faults} | {format_rating(b.mu, b.sigma)} | {format_ordinal(b.ordinal)} |")
    lines += ["", RATING_NOTE + "."]
    if standings.test is not None:
        lines += ["", f"**Early stopping (SPRT):** {_md_cell(standings.test.sentence())}."]
    names = [b.bot for b in standings.bots]
    if standings.head_to_head:
        lines += ["", "## Head to head", "", "Row bot finished ahead of column bot in this many of their games together.", "",
                  "| bot | " + " | ".join(_md_cell(n) for n in names) + " |", "|---|" + "---:|" * len(names)]
        for a in names:
            cells = []
            for c in names:
                together, ahead = standings.head_to_head.get((a, c), (0, 0))
                cells.append("-" if a == c or not together else f"{ahead}/{together}")
            lines.append(f"| {_md_cell(a)} | " + " | ".join(cells) + " |")
    if standings.places_by_seat:
        n = len(standings.places_by_seat[0])
        lines += ["", "## Finishing places by seat", "", "| seat | " + " | ".join(f"place {p}" for p in range(1, n + 1)) + " |",
                  "|---:|" + "---:|" * n]
        for seat, counts in enumerate(standings.places_by_seat):
            lines.append(f"| {seat} | " + " | ".join(str(c) for c in counts) + " |")
    if standings.faults_by_kind:
        kinds, rows = fault_matrix(standings)
        lines += ["", "## Faults by kind", "", "| bot | " + " | ".join(kinds) + " | total |", "|---|" + "---:|" * (len(kinds) + 1)]
        lines += ["| " + " | ".join(_md_cell(str(cell)) for cell in r) + " |" for r in rows]
    if standings.history:
        lines += ["", "## Out of the standings", "", HISTORY_NOTE, "",
                  "| bot | version | why | games | points | pts/game ± 95% CI | wins | skitgubbe | faults |",
                  "|---|---|---|---:|---:|---:|---:|---:|---:|"]
        lines += [f"| {_md_cell(f.bot)} | {f.version} | {f.why} | {f.games} | {f.points} | {_ci_text(f)} | {f.wins} | "
                  f"{f.skitgubbe} | {f.faults} |" for f in standings.history]
    return "\n".join(lines) + "\n"


HISTORY_NOTE = ("Earlier versions of resubmitted bots, and withdrawn bots, over their superseded games: kept, "
                "and not counted in the standings above.")


def _ranking_note(standings: Standings) -> str:
    return "; ranked by points per game" if standings.ranks_by_points_per_game else ""


def to_dict(standings: Standings) -> dict:
    return {
        "games": standings.games,
        "ranked_by": standings.ranked_by,
        "bots": [
            {
                "rank": b.rank, "bot": b.bot, "version": b.version, "games": b.games, "points": b.points,
                "points_per_game": b.points_per_game, "ci95_low": _num(b.ci95_low), "ci95_high": _num(b.ci95_high),
                "deal_sets": b.deal_sets, "wins": b.wins, "skitgubbe": b.skitgubbe, "faults": b.faults,
                "faults_by_kind": b.faults_by_kind, "places": list(b.places),
                "mu": _num(b.mu), "sigma": _num(b.sigma), "ordinal": _num(b.ordinal),
            }
            for b in standings.bots
        ],
        "head_to_head": [
            {"bot": a, "opponent": c, "games": together, "ahead": ahead}
            for (a, c), (together, ahead) in standings.head_to_head.items()
        ],
        "places_by_seat": [list(row) for row in standings.places_by_seat],
        "faults_by_kind": standings.faults_by_kind,
        "timeline": [{"games": index, "points": points} for index, points in standings.timeline],
        "history": [f.as_dict() for f in standings.history],
        "sprt": standings.test.as_dict() if standings.test is not None else None,
    }


def to_json(standings: Standings) -> str:
    return json.dumps(to_dict(standings), indent=2, allow_nan=False)


CSV_FIELDS = ("rank", "bot", "version", "games", "points", "points_per_game", "ci95_low", "ci95_high", "deal_sets",
              "wins", "skitgubbe", "faults", "places", "faults_by_kind", "ranked_by", "mu", "sigma", "ordinal")


def _csv_float(x: float) -> str:
    return "" if math.isnan(x) else f"{x:.6f}"


def _test_cells(test, bot: str) -> list[str]:
    if bot != test.challenger:
        return ["", ""]
    return [test.decision or "undecided", f"{test.llr:.6f}"]


def to_csv(standings: Standings) -> str:
    """One row per bot; `places` as "a;b;c" (counts of places 1..n), `faults_by_kind` as "kind=count;...".

    `ranked_by` (the same in every row) says what `rank` follows, as the other reports say in
    words: a CSV has no place for a note, and a gauntlet's ranks follow points per game.
    It is the last column so that readers by position keep working."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    # With the history asked for, a last column says which rows are out of the standings and why.
    history = bool(standings.history)
    test = standings.test  # an SPRT run: its decision and LLR in the challenger's row
    writer.writerow(CSV_FIELDS + (("sprt_decision", "sprt_llr") if test else ()) + (("superseded",) if history else ()))
    for b in standings.bots:
        writer.writerow([
            b.rank, b.bot, b.version, b.games, b.points, f"{b.points_per_game:.6f}",
            "" if math.isnan(b.ci95_low) else f"{b.ci95_low:.6f}", "" if math.isnan(b.ci95_high) else f"{b.ci95_high:.6f}",
            b.deal_sets, b.wins, b.skitgubbe, b.faults, ";".join(map(str, b.places)),
            ";".join(f"{k}={v}" for k, v in b.faults_by_kind.items()), standings.ranked_by,
            *(_csv_float(x) for x in (b.mu, b.sigma, b.ordinal)),
        ] + (_test_cells(test, b.bot) if test else []) + ([""] if history else []))
    for f in standings.history:
        writer.writerow(["", f.bot, f.version, f.games, f.points, f"{f.points_per_game:.6f}",
                         "" if math.isnan(f.ci95_low) else f"{f.ci95_low:.6f}",
                         "" if math.isnan(f.ci95_high) else f"{f.ci95_high:.6f}",
                         f.deal_sets, f.wins, f.skitgubbe, f.faults, "", "", standings.ranked_by, "", "", "",
                         *(["", ""] if test else []), f.why])
    return out.getvalue()


_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.7em; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
svg text { font-size: 12px; font-family: inherit; }
"""


def _svg_chart(standings: Standings, width: int = 820, height: int = 380) -> str:
    left, right, top, bottom = 60, 170, 20, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    timeline = [(0, {})] + list(standings.timeline)
    names = [b.bot for b in standings.bots if b.games]
    max_x = max(index for index, _ in timeline) or 1
    values = [points.get(n, 0) for _, points in timeline for n in names] or [0]
    lo, hi = min(0, min(values)), max(0, max(values))
    if hi == lo:
        hi = lo + 1

    def x(i: float) -> float:
        return left + plot_w * i / max_x

    def y(v: float) -> float:
        return top + plot_h * (hi - v) / (hi - lo)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="cumulative points over the tournament">',
             f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>',
             f'<line x1="{left}" y1="{y(0):.1f}" x2="{left + plot_w}" y2="{y(0):.1f}" stroke="#ccc"/>',
             f'<text x="{left - 5}" y="{y(hi) + 4:.1f}" text-anchor="end">{hi}</text>',
             f'<text x="{left - 5}" y="{y(lo) + 4:.1f}" text-anchor="end">{lo}</text>',
             f'<text x="{left}" y="{height - 15}">0</text>',
             f'<text x="{left + plot_w}" y="{height - 15}" text-anchor="end">{max_x} games</text>']
    for i, name in enumerate(names):
        color = PALETTE[i % len(PALETTE)]
        pts = " ".join(f"{x(index):.1f},{y(points.get(name, 0)):.1f}" for index, points in timeline)
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{pts}"><title>{escape(name)}</title></polyline>')
        ly = top + 10 + 18 * i
        parts.append(f'<rect x="{left + plot_w + 15}" y="{ly - 9}" width="12" height="12" fill="{color}"/>'
                     f'<text x="{left + plot_w + 32}" y="{ly + 1}">{escape(name)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def to_html(standings: Standings, title: str = "Standings") -> str:
    """One self-contained HTML page: standings, head to head, places by seat, faults, and an SVG chart."""
    t = escape(title)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', f"<title>{t}</title>",
           f"<style>{_CSS}</style></head><body>", f"<h1>{t}</h1>", f"<p>{count(standings.games, 'game')}{_ranking_note(standings)}.</p>",
           '<table class="standings"><thead><tr><th>#</th><th>bot</th><th>version</th><th>games</th><th>points</th>'
           "<th>pts/game ± 95% CI</th><th>wins</th><th>skitgubbe</th><th>faults</th><th>rating</th><th>ordinal</th>"
           "</tr></thead><tbody>"]
    for b in standings.bots:
        out.append(f'<tr><td class="num">{b.rank}</td><td>{escape(b.bot)}</td><td>{escape(b.version)}</td>'
                   f'<td class="num">{b.games}</td><td class="num">{b.points}</td><td class="num">{escape(_ci_text(b))}</td>'
                   f'<td class="num">{b.wins}</td><td class="num">{b.skitgubbe}</td><td class="num">{b.faults}</td>'
                   f'<td class="num">{format_rating(b.mu, b.sigma)}</td><td class="num">{format_ordinal(b.ordinal)}</td></tr>')
    out.append(f"</tbody></table><p>{escape(RATING_NOTE)}.</p>")
    if standings.test is not None:
        out.append(f'<p class="sprt"><strong>Early stopping (SPRT):</strong> {escape(standings.test.sentence())}.</p>')
    out.append("<h2>Cumulative points</h2>")
    out.append(_svg_chart(standings))
    names = [b.bot for b in standings.bots]
    out.append("<h2>Head to head</h2><p>Row bot finished ahead of column bot in this many of their games together.</p>")
    out.append('<table class="head-to-head"><thead><tr><th>bot</th>' + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr></thead><tbody>")
    for a in names:
        cells = []
        for c in names:
            together, ahead = standings.head_to_head.get((a, c), (0, 0))
            cells.append('<td class="num">' + ("-" if a == c or not together else f"{ahead}/{together}") + "</td>")
        out.append(f"<tr><th>{escape(a)}</th>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    if standings.places_by_seat:
        n = len(standings.places_by_seat[0])
        out.append("<h2>Finishing places by seat</h2><table><thead><tr><th>seat</th>"
                   + "".join(f"<th>place {p}</th>" for p in range(1, n + 1)) + "</tr></thead><tbody>")
        for seat, counts in enumerate(standings.places_by_seat):
            out.append(f'<tr><td class="num">{seat}</td>' + "".join(f'<td class="num">{c}</td>' for c in counts) + "</tr>")
        out.append("</tbody></table>")
    if standings.faults_by_kind:
        kinds, rows = fault_matrix(standings)
        out.append("<h2>Faults by kind</h2><table><thead><tr><th>bot</th>"
                   + "".join(f"<th>{escape(k)}</th>" for k in kinds) + "<th>total</th></tr></thead><tbody>")
        for bot, *counts in rows:
            out.append(f"<tr><td>{escape(bot)}</td>" + "".join(f'<td class="num">{c}</td>' for c in counts) + "</tr>")
        out.append("</tbody></table>")
    if standings.history:
        out.append(f"<h2>Out of the standings</h2><p>{escape(HISTORY_NOTE)}</p><table><thead><tr><th>bot</th>"
                   "<th>version</th><th>why</th><th>games</th><th>points</th><th>pts/game ± 95% CI</th><th>wins</th>"
                   "<th>skitgubbe</th><th>faults</th></tr></thead><tbody>")
        for f in standings.history:
            out.append(f"<tr><td>{escape(f.bot)}</td><td>{escape(f.version)}</td><td>{f.why}</td>"
                       f'<td class="num">{f.games}</td><td class="num">{f.points}</td><td class="num">{escape(_ci_text(f))}</td>'
                       f'<td class="num">{f.wins}</td><td class="num">{f.skitgubbe}</td><td class="num">{f.faults}</td></tr>')
        out.append("</tbody></table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def fault_matrix(standings: Standings) -> tuple[list[str], list[list]]:
    """Faults per bot and kind, with totals: who faulted how, as in the terminal report."""
    kinds = sorted(standings.faults_by_kind)
    rows = [[b.bot, *(b.faults_by_kind.get(k, 0) for k in kinds), b.faults] for b in standings.bots]
    rows.append(["all", *(standings.faults_by_kind[k] for k in kinds), sum(standings.faults_by_kind.values())])
    return kinds, rows
