"""`arena games` in the terminal: the stored games as a Rich table (arena/results/games_list.py builds the lines)."""

from __future__ import annotations

from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.wording import when_text
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
    """Void games (arena/results/voids.py), a line each, with their game numbers: what could not be
    played, how often it was tried, and why the last time (CSV and JSON list every attempt). A
    game tried again and again took a line, and its long reason, each time."""
    attempts: dict[str, list[tuple[int, VoidRow]]] = {}
    for number, row in rows:  # in game-number order, each game's attempts in time order
        attempts.setdefault(row.key, []).append((number, row))
    table = Table(title=escape(title), title_justify="left")
    table.add_column("game", justify="right", no_wrap=True)
    table.add_column("seats")
    table.add_column("could not start")
    table.add_column("tries", justify="right", no_wrap=True)
    table.add_column("last")
    table.add_column("now")
    table.add_column("why (the last time)", overflow="fold")
    for tried in attempts.values():
        number, last = tried[-1]
        now = "played since" if last.played_since else "to be played"
        cells = [str(number), " ".join(last.bots), last.bot, str(len(tried)), when_text(last.voided_at), now, last.why]
        table.add_row(*[escape(cell) for cell in cells])
    console.print(table)
