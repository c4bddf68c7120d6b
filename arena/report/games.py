"""`arena games` as text: the stored games as a Rich table, or CSV or JSON lines, with the titles
that say what was listed (arena/results/games_list.py builds the lines)."""

from __future__ import annotations

import dataclasses
import json
from typing import Iterable, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.wording import count, shell_command, when_text
from arena.results.games_list import GameLine, csv_cells, csv_header, csv_row, json_line
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
    league = any(line.choice for line in lines)
    if league:  # a league's: its table; why it was chosen, under the list (print_why_tables)
        table.add_column("table", justify="right")
    for line in lines:
        result = " > ".join(line.order) + ("" if line.reason == "normal" else f" ({line.reason})")
        cells = [str(line.number), " ".join(line.bots), result, "/".join(map(str, line.points)), line.fault_text(),
                 "/".join(version[:7] or "-" for version in line.versions)]
        cells += [line.superseded] if superseded else []
        cells += [str(line.table) if line.choice else ""] if league else []
        table.add_row(*[escape(cell) for cell in cells])
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


def filters_text(bots: Sequence[str], faults: bool, skitgubbe: str | None) -> str:
    """What a list of games was filtered by, as the end of its title: " with a and b, lost by c"."""
    parts = []
    if bots:
        parts.append("with " + " and ".join(bots))
    if faults:
        parts.append("with a fault" + (" by " + " or ".join(bots) if bots else ""))
    if skitgubbe:
        parts.append(f"lost by {skitgubbe}")
    return (" " + ", ".join(parts)) if parts else ""


def games_title(name: str, shown: int, filters: str, superseded: str) -> str:
    """The title of a table of games: how many, of which kind, filtered by what."""
    kind = "superseded game" if superseded == "only" else "stored game"
    return f"{name}: {count(shown, kind)}{filters}" + (", superseded ones included" if superseded == "include" else "")


def print_game_lines(lines: Iterable[GameLine], format: str, console: Console) -> None:
    """The games as CSV or JSON lines, streamed: each printed as it is read."""
    if format == "csv":
        console.out(csv_header(), end="", highlight=False)
    for line in lines:
        console.out(csv_row(line) if format == "csv" else json_line(line), end="" if format == "csv" else "\n",
                    highlight=False)


VOID_FIELDS = ("number", "key", "bots", "bot", "why", "tried", "voided_at", "played_since", "machine", "on_request")


def print_void_lines(rows: Sequence[tuple[int, VoidRow]], format: str, console: Console) -> None:
    """Every void attempt (game number, VoidRow) as CSV or JSON lines."""
    if format == "csv":
        console.out(csv_cells(VOID_FIELDS), end="", highlight=False)
    for number, row in rows:
        if format == "json":
            console.out(json.dumps({"number": number, **dataclasses.asdict(row)}), highlight=False)
        else:
            console.out(csv_cells((number, row.key, ";".join(row.bots), row.bot, row.why, row.tried, row.voided_at,
                                   row.played_since, row.machine, row.on_request)), end="", highlight=False)


def void_title(name: str, found: Sequence[tuple[int, VoidRow]], filters: str) -> tuple[str, int]:
    """The title of the void games' table, and how many of them are still to be played."""
    from arena.results.voids import void_counts

    counts = void_counts(row for _, row in found)
    return (f"{name}: {count(counts.games, 'void game')} ({counts.tried} tried and failed, {counts.never_tried} never "
            f"tried; {count(counts.attempts, 'attempt')}){filters}, {counts.pending} to be played", counts.pending)


def print_games(shown: Sequence[GameLine], more: int, config, filters: str, superseded: str, console: Console) -> None:
    """`arena games` in the terminal: the games as a table (`more`: how many beyond the limit), a
    league's word on why each of their tables was chosen, and how to replay one."""
    from arena.report.league import print_why_tables

    title = games_title(config.name, len(shown) + more, filters, superseded)
    if not shown:
        return console.print(f"{title}: none", highlight=False, markup=False)
    render_game_table(shown, console, title=title)
    print_why_tables(shown, console)
    how = shell_command("arena", "replay", config.path, "GAME")
    if superseded != "exclude" and any(line.superseded for line in shown):
        how += f" (a superseded one: {shell_command('arena', 'replay', config.path, 'GAME', '--superseded')})"
    first = f"... and {more} more (--limit 0 shows them all); replay" if more else "replay"
    console.print(f"{first} one with: {how}", highlight=False, markup=False)


def print_void_games(found: Sequence[tuple[int, VoidRow]], config, filters: str, format: str, limit: int,
                     console: Console) -> None:
    """`arena games --void`: every void attempt (game number, VoidRow) of the games listed, as a
    table (and whether the next run plays them first), or as CSV or JSON lines."""
    shown = found[:limit] if limit else found
    if format != "table":
        return print_void_lines(shown, format, console)
    if not shown:
        return console.print(f"{config.name}: no void game", highlight=False, markup=False)
    title, pending = void_title(config.name, found, filters)
    render_void_table(shown, console, title=title)
    if len(found) > len(shown):
        console.print(f"... and {len(found) - len(shown)} more (--limit 0 shows them all)", highlight=False, markup=False)
    if pending:
        console.print(f"the next {shell_command('arena', 'tournament', 'run', config.path)} plays them first",
                      highlight=False, markup=False)
