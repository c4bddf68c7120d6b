"""`arena games` in the terminal: the stored games as a Rich table (arena/results/games_list.py builds the lines)."""

from __future__ import annotations

from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.report.facts import when_text
from arena.results.games_list import GameLine
from arena.results.voids import VoidRow


def render_game_table(lines: Sequence[GameLine], console: Console, *, title: str) -> None:
    table = Table(title=escape(title), title_justify="left")  # a tournament name is free text, not markup
    table.add_column("game", justify="right")
    # No key column: the number is what `arena replay` takes, and narrow terminals need the room.
    table.add_column("seats")
    table.add_column("finished")
    table.add_column("points", justify="right")
    table.add_column("faults")
    table.add_column("versions")  # by seat, the first 7 digits of each bot's content hash
    superseded = any(line.superseded for line in lines)
    if superseded:
        table.add_column("superseded")
    for line in lines:
        result = " > ".join(line.order) + ("" if line.reason == "normal" else f" ({line.reason})")
        cells = [str(line.number), " ".join(line.bots), result, "/".join(map(str, line.points)), line.fault_text(),
                 "/".join(version[:7] or "-" for version in line.versions)]
        table.add_row(*[escape(cell) for cell in cells], *([escape(line.superseded)] if superseded else []))
    console.print(table)


def render_void_table(rows: Sequence[tuple[int, VoidRow]], console: Console, *, title: str) -> None:
    """Void attempts (arena/results/voids.py), each with its game number: what could not be played, and why."""
    table = Table(title=escape(title), title_justify="left")
    table.add_column("game", justify="right")
    table.add_column("seats")
    table.add_column("could not start")
    table.add_column("when")
    table.add_column("now")
    table.add_column("why", overflow="fold")
    for number, row in rows:
        now = "played since" if row.played_since else "to be played"
        cells = [str(number), " ".join(row.bots), row.bot, when_text(row.voided_at), now, row.why]
        table.add_row(*[escape(cell) for cell in cells])
    console.print(table)
