"""A league's tables for people (issue 43: "why this table"): `arena games --queue` and `--tables`
in the terminal, as JSON or CSV lines; the games list's word on why each table was chosen; the
league's part of the standings page and the live page (the queue of the next tables, the latest
ended); the live board's line on the next table. The tables and their sentences come from the
results object (arena/tournament/results.py), and the sentences are the matchmaking's
(arena/schedule/matchmaking.py): rendered here, never worded again.

A sentence names bots, whose names come from strangers' configs: escaped for HTML and for Rich's
markup, as every report escapes them."""

from __future__ import annotations

import textwrap
from html import escape
from typing import Iterable, Sequence

from rich.console import Console
from rich.text import Text

from arena.results.games_list import GameLine, csv_cells
from arena.results.league_queue import LeagueTable
from arena.results.league_view import ChosenTable, LeagueView, table_dict
from arena.wording import count, shell_command, when_text

LEAGUE_CSV_FIELDS = ("number", "bots", "reason", "why", "chosen_at", "status", "ended_at", "games_stored", "games")


def games_words(item: ChosenTable) -> str:
    """ "6 games" (a table played whole), "under way, 2 of 6 games stored" (a queued one with games
    stored: a worker plays it, or a run stopped in its middle), "0 of 6 games stored"."""
    if item.table.status == "played" and item.stored == item.games:
        return count(item.games, "game")
    under_way = "under way, " if item.table.status == "queued" and item.stored else ""
    return f"{under_way}{item.stored} of {count(item.games, 'game')} stored"


def tables_title(name: str, shown: int, queued_only: bool, filters: str) -> str:
    """What was listed: the queue (next first), or the tables chosen (the latest first)."""
    if queued_only:
        return f"{name}: {count(shown, 'table')} queued{filters}, next first"
    return f"{name}: {count(shown, 'table')} chosen{filters}, the latest first"


def render_league_tables(tables: Sequence[ChosenTable], console: Console, *, title: str, status: bool) -> None:
    """A table a paragraph: its number, bots, games and when it was chosen (and, with `status`, if it is
    queued, played or dropped) on a line, why it was chosen under it, indented. A paragraph rather
    than a column: the sentence is long, and a column of it left the bots one letter wide in 80."""
    console.print(Text(title, style="bold"))
    for item in tables:
        table = item.table
        head = Text(f"table {table.number}", style="bold")
        head.append(f"  {', '.join(table.bots)}  ")
        state = f"{table.status}, " if status else ""
        head.append(f"({state}{games_words(item)}; chosen {when_text(table.chosen_at)})", style="dim")
        console.print(head)
        console.print(Text(_indented(table.why, 4, console.width)))


def _indented(text: str, indent: int, width: int) -> str:
    """`text` wrapped to `width` under an indent: a sentence read under the line it explains."""
    return textwrap.fill(text, max(40, width), initial_indent=" " * indent, subsequent_indent=" " * indent,
                         break_on_hyphens=False)


def print_league_lines(tables: Iterable[ChosenTable], format: str, console: Console) -> None:
    """The tables as JSON lines (an object each, results/league_view.py's `table_dict`) or CSV."""
    import json

    if format == "csv":
        console.out(csv_cells(LEAGUE_CSV_FIELDS), end="", highlight=False)
    for item in tables:
        found = table_dict(item)
        if format == "json":
            console.out(json.dumps(found), highlight=False)
        else:
            found["bots"] = ";".join(found["bots"])
            console.out(csv_cells(tuple(found.get(field) for field in LEAGUE_CSV_FIELDS)), end="", highlight=False)


def print_league_tables(results, queued_only: bool, bots: tuple[str, ...], filters: str, format: str, limit: int,
                        console: Console) -> None:
    """`arena games --queue` (the queue, next first) or `--tables` (every table chosen, the latest
    first): a paragraph a table in the terminal, else JSON or CSV lines. `results`: the league's
    TournamentResults."""
    tables = results.league_tables(queued_only=queued_only, bots=bots, newest_first=not queued_only, limit=limit)
    if format != "table":
        return print_league_lines(tables, format, console)
    config = results.config
    if not tables:
        console.print(Text(tables_title(config.name, 0, queued_only, filters)))
        return console.print(Text(empty_queue_words(config.path) if queued_only and not bots else
                                  "None: a league run chooses them as it plays."))
    render_league_tables(tables, console, title=tables_title(config.name, len(tables), queued_only, filters),
                         status=not queued_only)
    if limit and len(tables) == limit:
        console.print(Text(f"(the first {limit}: --limit 0 shows them all)", style="dim"))


def empty_queue_words(config_path: object) -> str:
    """Why a league may have no queue, and where its chosen tables are."""
    return ("No table is queued. A league run chooses its next tables from the ratings as it plays, one ready "
            "per worker, and keeps each here until its games are stored; a run stopped in the middle of a table "
            "leaves it queued, and the next run plays it first. The tables chosen so far, and why: "
            + shell_command("arena", "games", config_path, "--tables"))


def chosen_tables_of(lines: Iterable[GameLine]) -> list[LeagueTable]:
    """The league tables of these games, each once, in the order first met."""
    found: dict[int, LeagueTable] = {}
    for line in lines:
        if line.choice is not None:
            found.setdefault(line.choice.number, line.choice)
    return list(found.values())


def print_why_tables(lines: Sequence[GameLine], console: Console) -> None:
    """Under a league's games: why each of their tables was chosen, a line a table."""
    tables = chosen_tables_of(lines)
    if not tables:
        return
    console.print(Text("why each table was chosen:", style="bold"))
    for table in tables:
        console.print(Text(_indented(f"table {table.number}: {table.why}", 2, console.width)))


def next_table_line(view: LeagueView) -> Text | None:
    """The live board's line on the queue: each queued table (those under way among them: a table
    stays queued until its last game is stored), its bots and reason, cut to one line."""
    if not view.queued:
        return None
    tables = "; ".join(f"table {item.table.number} {', '.join(item.table.bots)} ({item.table.reason})"
                       for item in view.queued)
    return Text(f"queued: {tables}", no_wrap=True, overflow="ellipsis", style="dim")


# ---- HTML: the standings page's and the live page's league part -------------------------------

LEAGUE_CSS = """
ul.league { list-style: none; padding-left: 0; margin: 0.3em 0 1em; }
ul.league li { margin: 0.35em 0; overflow-wrap: anywhere; }
ul.league .why { display: block; margin-left: 1em; color: #444; font-size: 0.92em; }
ul.league .state { color: #555; font-size: 0.9em; }
ul.league .bot { white-space: nowrap; }
"""


def _bots_html(bots: Sequence[str], colours: dict[str, str]) -> str:
    return ", ".join(f'<span class="bot"><span class="swatch" style="background:{colours.get(name, "#888")}"></span>'
                     f'{escape(name)}</span>' for name in bots)


def _table_item(table: LeagueTable, state: str, colours: dict[str, str]) -> str:
    return (f'<li id="table-{table.number}"><strong>table {table.number}</strong>: {_bots_html(table.bots, colours)} '
            f'<span class="state">({escape(state)})</span><span class="why">{escape(table.why)}</span></li>')


def league_part(view: LeagueView | None, colours: dict[str, str]) -> list[str]:
    """The queue of the next tables, next first, and the latest tables ended, each with why it was
    chosen: lists, which wrap on a phone where a table's long sentences would not."""
    if view is None:
        return []
    out = ['<h2 id="league-queue">Next tables</h2>',
           f'<p class="note">A league: each table is chosen from the ratings of the games stored so far, for what '
           f'its result would teach them, with shares for the bots owed games and for exploration, and stays queued '
           f'until its last game is stored; {count(view.chosen, "table")} chosen so far.</p>']
    if view.queued:
        out.append('<ul class="league queue">' + "".join(
            _table_item(item.table, games_words(item), colours) for item in view.queued) + "</ul>")
    else:
        out.append('<p class="queue">No table queued: a league run chooses the next ones as it plays.</p>')
    if view.latest:
        out.append("<h3>Latest tables</h3>")
        out.append('<ul class="league latest">' + "".join(
            _table_item(table, f"{table.status} {when_text(table.ended_at)}", colours) for table in view.latest)
            + "</ul>")
    return out


__all__ = ["LEAGUE_CSV_FIELDS", "LEAGUE_CSS", "games_words", "tables_title", "render_league_tables",
           "print_league_lines", "print_league_tables", "empty_queue_words", "chosen_tables_of", "print_why_tables", "next_table_line",
           "league_part"]
