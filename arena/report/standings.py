"""Rich renderings of standings: the leaderboard, head-to-head, places by seat, faults by kind."""

from __future__ import annotations

import math
from typing import Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from arena.report.columns import COMPACT_COLUMNS, COMPACT_KEY, HISTORY_COLUMNS, STANDINGS_COLUMNS, per_game_text
from arena.report.columns import shown as shown_columns
from arena.report.export import (HISTORY_NOTE, not_complete_words, challengers, challengers_sentence, fault_matrix, place_name,
                                 rating_groups_sentence)
from arena.report.facts import fact_text, shown_facts
from arena.results.ratings import RATING_NOTE, format_rating
from arena.results.standings import BotStanding, Standings
from arena.wording import count


format_ci = per_game_text  # the name the reports' callers know




class _TableOrLines:
    """The leaderboard table where it fits; in a narrower terminal (80 columns), the compact table:
    short heads, a line a bot; narrower still, one line of text per bot, which wraps. A squeezed
    table cut its numbers short ("1.83…", a rank of width 0), and the lines at 80 columns split
    every bot over two ("skitgubbe 9 / times"), leaving a short terminal room for few of them."""

    def __init__(self, table: Table, compact: Table, compact_view: Group, lines: list[Text],
                 prefer_compact: bool = False) -> None:
        self.table, self.compact, self.compact_view, self.lines = table, compact, compact_view, lines
        self.prefer_compact = prefer_compact

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        unbounded = options.update_width(10_000)
        if not self.prefer_compact and Measurement.get(console, unbounded, self.table).maximum <= options.max_width:
            yield self.table
        elif Measurement.get(console, unbounded, self.compact).maximum <= options.max_width:
            yield self.compact_view
        else:
            # Wrapped even on a soft-wrapping console (ours): the live display crops long lines.
            wrapping = options.update(no_wrap=False, overflow="fold")
            for line in self.lines:
                yield from console.render(line, wrapping)


def _ranked_by_words(standings: Standings) -> str:
    """What the ranks go by, as the leaderboards say it: "total points" or "points per game"."""
    return "points per game" if standings.ranks_by_points_per_game else "total points"


def _compact_table(rows: Sequence[BotStanding], more: int, rated: bool) -> Table:
    """A line a bot under short heads, without borders: an 80-column terminal's table, the numbers
    right-aligned. Used only where it fits whole: a bot's name cut short may name another bot."""
    table = Table(box=None, pad_edge=False, padding=(0, 1))
    columns = shown_columns(COMPACT_COLUMNS, versions=False, ratings=rated)
    for column in columns:
        table.add_column(column.header, justify="right" if column.numeric else "left", no_wrap=True)
    for b in rows:
        table.add_row(*(column.cell(b) for column in columns), style="red" if b.faults else None)
    if more:
        table.add_row("", f"+{more} more")
    return table


def _compact_view(heading: str, table: Table, standings: Standings, rated: bool) -> Group:
    """The compact table between its heading, which says what the ranks go by (its caption would
    take a line more), and the key to its short heads."""
    rating_heads = {column.header for column in COMPACT_COLUMNS if column.kind == "rating"}
    key = "; ".join(f"{head}: {meaning}" for head, meaning in COMPACT_KEY.items() if rated or head not in rating_heads)
    # Wrapped, not cropped, on a soft-wrapping console (ours), as the live display's lines are.
    return Group(Text(f"{heading}, ranked by {_ranked_by_words(standings)}", style="italic", no_wrap=False, overflow="fold"),
                 table, Text(key, style="dim", no_wrap=False, overflow="fold"))


def leaderboard_renderable(standings: Standings, title: str = "Standings", show_versions: bool = False,
                           limit: int | None = None, game_count: bool = True, compact: bool = False) -> _TableOrLines:
    """The leaderboard (also used by the live display during a run): a table, or where the
    terminal is too narrow for it, a compact table, or a line per bot. `limit`: only the first bots,
    and a line "+N more" (the live board, in a terminal too short for all); `game_count`: the games
    in the title; `compact`: the compact table even where the table fits (the live board, in a
    terminal too short for the table's every bot). Each form says what the ranks go by.

    Bot versions (content hashes) make the table too wide for an 80-column terminal, so they
    are shown only on request; the JSON, CSV, Markdown and HTML reports always carry them."""
    rows = standings.bots if limit is None else standings.bots[:max(0, limit)]
    more = len(standings.bots) - len(rows)
    heading = f"{title} ({standings.games_words()})" if game_count else title
    # Ratings where they were computed (a tournament's standings; not a match's, `arena play`).
    rated = standings.ratings is not None
    lines = [Text(heading, style="italic")]
    for b in rows:
        lines.append(Text(f"{b.rank}. {b.bot}: {count(b.points, 'point')} in {count(b.games, 'game')}, "
                          f"{format_ci(b)} per game, {count(b.wins, 'win')}, skitgubbe {count(b.skitgubbe, 'time')}, "
                          f"{count(b.faults, 'fault')}"
                          + (f", rating {format_rating(b.rating, b.rating_margin)} (group {b.rating_group or '-'})"
                             if rated else ""),
                          style="red" if b.faults else ""))
    interval = "the 95% confidence interval over deal sets"
    if standings.ranks_by_points_per_game:  # every tournament's; short enough for 80 columns
        caption = note = f"ranked by points per game (± {interval})"
    else:
        caption = note = f"ranked by total points; per game: ± {interval}"
    if more:
        lines.append(Text(f"+{more} more"))
    lines.append(Text(note, style="dim"))
    if rated:
        caption += f"\n{RATING_NOTE}"
    # The caption wraps at words, never cropped: the rating note was cut on a narrow live board.
    table = Table(title=escape(heading), caption=Text(caption, style="table.caption", no_wrap=False, overflow="fold"))
    show_versions = show_versions and any(b.version for b in standings.bots)
    columns = shown_columns(STANDINGS_COLUMNS, versions=show_versions, ratings=rated)
    for column in columns:
        table.add_column(column.header, justify="right" if column.numeric else "left", no_wrap=True,
                         min_width=1 if column is columns[0] else None, style="dim" if column.kind == "version" else None)
    for b in rows:
        table.add_row(*(column.cell(b) for column in columns), style="red" if b.faults else None)
    if more:
        table.add_row("", f"+{more} more")
    compact_table = _compact_table(rows, more, rated)
    return _TableOrLines(table, compact_table, _compact_view(heading, compact_table, standings, rated), lines, compact)


def facts_renderable(standings: Standings) -> Table:
    """The tournament's facts (arena/report/facts.py), a name and a value a line."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(overflow="fold")
    for key, value in shown_facts(standings.facts).items():  # not the empty ones
        grid.add_row(key, escape(fact_text(value)))
    return grid


def render_standings_report(standings: Standings, console: Console, title: str = "Standings", facts: bool = False) -> None:
    """`arena standings` in a terminal: the table first, its notes, the details, and (`facts`) the
    tournament's facts last: before the table, they filled the organiser's first screen."""
    render_standings_table(standings, console, title)
    render_standings_details(standings, console)
    if facts and standings.facts:
        console.print(Text("About this tournament", style="bold"))
        console.print(facts_renderable(standings))


def render_standings_table(standings: Standings, console: Console, title: str = "Standings") -> None:
    """The leaderboard and the notes under it (a match's standings too: `arena play --duplicate`)."""
    console.print(leaderboard_renderable(standings, title, show_versions=console.width >= 125))
    marked = challengers(standings)  # a gauntlet's, which the Markdown and HTML tables mark too
    if marked:
        console.print(escape(challengers_sentence(marked) + "."), highlight=False)
    if standings.completeness is not None and not standings.completeness.complete:
        console.print(f"[yellow]{escape(not_complete_words(standings.completeness))}[/yellow]: "
                      f"{escape(standings.games_words())}.", highlight=False)
    if standings.test is not None:
        console.print(escape(f"Early stopping (SPRT): {standings.test.sentence()}"), highlight=False)
    groups = rating_groups_sentence(standings)
    if groups:
        console.print(escape(groups), highlight=False)


class _HeadToHead:
    """The head-to-head grid, its columns split over as many tables as the width needs: a cell is
    never cut ("6…" stood for 63% at 80 columns with twelve bots). Each table repeats the bots'
    column, whose long names wrap."""

    def __init__(self, names: list[str], cells: list[list[str]], note: str) -> None:
        self.names, self.cells, self.note = names, cells, note

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        labels = [f"{i} {name}" for i, name in enumerate(self.names, start=1)]
        cell_width = max([len(cell) for row in self.cells for cell in row] + [len(str(len(self.names)))])
        label_width = min(max((len(label) for label in labels), default=3), 24)
        per_table = max(1, (options.max_width - label_width - 4) // (cell_width + 3))
        columns = list(range(len(self.names)))
        chunks = [columns[first:first + per_table] for first in range(0, len(columns), per_table)] or [[]]
        for index, chunk in enumerate(chunks):
            last = index == len(chunks) - 1
            table = Table(title="Head to head: how often the row bot finished ahead of the column bot" if index == 0
                          else None)
            table.add_column("bot", max_width=label_width, overflow="fold")
            for column in chunk:
                table.add_column(str(column + 1), justify="right", no_wrap=True, min_width=cell_width)
            for label, row in zip(labels, self.cells):
                table.add_row(escape(label), *(row[column] for column in chunk))
            yield table
            if last:  # under the last table, as wide as the terminal
                yield Text(f"columns: the bots by their numbers; {self.note}", style="table.caption", no_wrap=False,
                           overflow="fold")


def head_to_head_renderable(standings: Standings) -> _HeadToHead:
    """A grid: the row bot finished ahead of the column bot in this share of their games together.
    Columns go by the bots' numbers (their ranks), so that the grid keeps to an 80-column terminal
    with six bots and long names, which it could not with a name over every column; more bots than
    fit go on in a second table."""
    names = [b.bot for b in standings.bots]
    together_counts = {standings.head_to_head[(a, b)][0] for a in names for b in names
                       if a != b and standings.head_to_head.get((a, b), (0, 0))[0]}
    uniform = len(together_counts) == 1
    note = (f"bots that met played {count(next(iter(together_counts)), 'game')} together" if uniform
            else "after the /: the games they played together")
    rows = []
    for a in names:
        cells = []
        for b in names:
            together, ahead = standings.head_to_head.get((a, b), (0, 0))
            if a == b or not together:
                cells.append("-")
            else:
                share = f"{100 * ahead / together:.0f}%"
                cells.append(share if uniform else f"{share}/{together}")
        rows.append(cells)
    return _HeadToHead(names, rows, note)


def places_table(places_by_seat: Sequence[Sequence[int]]) -> Table:
    """Counts of each finishing place per seat ([seat][place - 1]); selfplay uses it too."""
    n = max((len(row) for row in places_by_seat), default=0)
    table = Table(title="Finishing places by seat")
    table.add_column("seat", justify="right")
    for place in range(1, n + 1):
        table.add_column(place_name(place, n), justify="right")
    for seat, counts in enumerate(places_by_seat):
        table.add_row(str(seat), *(str(c) for c in counts))
    return table


def places_by_seat_renderable(standings: Standings) -> Table:
    return places_table(standings.places_by_seat)


def faults_renderable(standings: Standings) -> Table:
    kinds, rows = fault_matrix(standings)
    table = Table(title="Faults by kind")
    table.add_column("bot")
    for kind in kinds:
        table.add_column(kind, justify="right")
    table.add_column("total", justify="right")
    for row in rows:
        table.add_row(*map(str, row))
    return table


def history_renderable(standings: Standings) -> Table:
    """The versions out of the standings (`--history`): earlier versions of resubmitted bots, and
    withdrawn bots, over their superseded games."""
    table = Table(title="Out of the standings: earlier versions and withdrawn bots", title_justify="left",
                  caption=HISTORY_NOTE, caption_justify="left")
    for column in HISTORY_COLUMNS:
        table.add_column(column.header, justify="right" if column.numeric else "left")
    for f in standings.history:
        table.add_row(*(escape(column.cell(f)) if column.header == "bot" else column.cell(f) for column in HISTORY_COLUMNS))
    return table


def details_renderable(standings: Standings) -> Group:
    parts: list[RenderableType] = [head_to_head_renderable(standings), places_by_seat_renderable(standings)]
    if standings.faults_by_kind:
        parts.append(faults_renderable(standings))
    if standings.history:
        parts.append(history_renderable(standings))
    return Group(*parts)


def render_standings_details(standings: Standings, console: Console) -> None:
    """Head-to-head, places by seat, (when any) faults by kind and (when asked) the history."""
    console.print(details_renderable(standings))
