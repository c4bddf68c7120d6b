"""The games list as an HTML page (`arena games --format html`, and the index of a report's game
pages): every game with its number linked to its replay page, who sat where (in the bots' report
colours), who finished where, the points and the faults; a league's games their table, linked to
why it was chosen (a list under the table, which wraps on a phone). Like the standings page it has
no script, loads nothing, and scrolls its wide table inside itself on a phone."""

from __future__ import annotations

from html import escape
from typing import Callable, Iterable, Sequence

from arena.report.colours import bot_colours
from arena.report.league import LEAGUE_CSS, chosen_tables_of
from arena.results.games_list import GameLine
from arena.wording import count

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1em 0; padding: 0 0.8em; color: #222;
       line-height: 1.4; }
h1 { font-size: 1.5em; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; white-space: nowrap; text-align: left; }
td.bots { white-space: normal; min-width: 12em; }  /* the seats and the finish wrap between names */
.bot, .item { white-space: nowrap; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num a { font-weight: 600; }
td.fault { color: #b00000; white-space: normal; min-width: 9em; }  /* wraps between faults */
.note { color: #555; font-size: 0.9em; }
.swatch { display: inline-block; width: 0.7em; height: 0.7em; margin-right: 0.25em; border-radius: 2px; }
h2 { font-size: 1.15em; }
""" + LEAGUE_CSS


def games_list_page(lines: Iterable[GameLine], title: str, href_of: Callable[[GameLine], str | None], *,
                    roster: Sequence[str] = (), note: str = "", back: tuple[str, str] | None = None) -> str:
    """The page; `href_of` gives a game's replay page (None: not linked), `back` (href, words) a link
    to the standings."""
    shown = list(lines)
    colours = bot_colours({name for line in shown for name in line.bots}, roster=roster)
    tables = chosen_tables_of(shown)

    def bot(name: str) -> str:
        return f'<span class="bot"><span class="swatch" style="background:{colours[name]}"></span>{escape(name)}</span>'

    rows = []
    for line in shown:
        href = href_of(line)
        number = f'<a href="{escape(href)}">{line.number}</a>' if href else str(line.number)
        result = "&nbsp;&gt; ".join(bot(name) for name in line.order) + ("" if line.reason == "normal" else
                                                                    f" ({escape(line.reason)})")
        # Each fault whole ("seat 1 timeout x2"), the cell wrapping between them.
        faults = ", ".join(f'<span class="item">{escape(item)}</span>' for item in line.fault_text().split(", ") if item)
        cells = [f'<td class="num">{number}</td>', '<td class="bots">' + " ".join(bot(name) for name in line.bots) + "</td>",
                 f'<td class="bots">{result}</td>', f'<td class="num">{escape("/".join(map(str, line.points)))}</td>',
                 f'<td class="num">{line.moves}</td>', f'<td class="fault">{faults}</td>' if faults else "<td></td>"]
        if any(other.superseded for other in shown):
            cells.append(f"<td>{escape(line.superseded)}</td>")
        if tables:  # a league's: its table, linked to why it was chosen (under the list)
            cells.append(f'<td><a href="#table-{line.table}">{line.table}</a> {escape(line.choice.reason)}</td>'
                         if line.choice else "<td></td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    head = ["game", "seats", "finished (first out first)", "points", "moves", "faults"]
    if any(line.superseded for line in shown):
        head.append("superseded")
    if tables:
        head.append("table")
    parts = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
             """<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">""",
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>", f"<h1>{escape(title)}</h1>"]
    if back is not None:
        parts.append(f'<p><a href="{escape(back[0])}">{escape(back[1])}</a></p>')
    parts.append(f'<p class="note">{escape(count(len(shown), "game"))}; a game\'s number opens it, to step through move '
                 f"by move.{(' ' + escape(note)) if note else ''}</p>")
    parts.append('<div class="scroll"><table><thead><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
                 + "\n".join(rows) + "</tbody></table></div>")
    if tables:
        parts += ["<h2>Why each table was chosen</h2>", '<ul class="league">', *(
            f'<li id="table-{t.number}"><strong>table {t.number}</strong>: {", ".join(bot(name) for name in t.bots)}'
            f'<span class="why">{escape(t.why)}</span></li>' for t in tables), "</ul>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
