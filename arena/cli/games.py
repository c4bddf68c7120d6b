"""`arena games`: list a tournament's stored games, to find the ones to replay."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.cli.common import LIST_LIMIT_MAX, command, console, fail, note, refuse_own_file
from arena.tournament.output_files import refuse_unwritable
from arena.wording import count

GAME_FORMATS = ("table", "csv", "json", "html")
TABLE_LIMIT = 100  # games a terminal table shows unless --limit says otherwise


def games(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    bot: Annotated[Optional[list[str]], typer.Option(
        "--bot", "-b", help="Only games this bot played (repeat: games they all played together).")] = None,
    faults: Annotated[bool, typer.Option(
        "--faults", help="Only games with a fault (by one of the --bot bots, when given).")] = False,
    skitgubbe: Annotated[Optional[str], typer.Option(help="Only games this bot finished last.")] = None,
    format: Annotated[Optional[str], typer.Option(
        "--format", "-f", help="table, csv, json (one JSON object per line) or html (a page, with -o, linking each "
                               "game to its page to step through; default: html for -o FILE.html, else table).")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "--output", "-o", help="With html: write the page here, and each listed game's page in the folder FILE-games "
                               "beside it.")] = None,
    limit: Annotated[Optional[int], typer.Option(
        min=0, max=LIST_LIMIT_MAX, help=f"At most this many games, 0 for all (default: all; {TABLE_LIMIT} in a table).")] = None,
    superseded: Annotated[str, typer.Option(
        help="Games out of the standings (of a bot's earlier version, or of a bot withdrawn): exclude, "
             "include (after the others) or only.")] = "exclude",
    sort: Annotated[str, typer.Option(
        help="number: by game number (the tournament's order, the same in every run); stored: in the order "
             "the games were stored (it depends on the workers).")] = "number",
    void: Annotated[bool, typer.Option(
        "--void", help="Instead: the void games, which the arena could not play (a bot that could not be started "
                       "or reached for a reason outside its code): when, why, and whether played since.")] = False,
) -> None:
    """List the stored games, by game number, with the numbers `arena replay` takes.

    For each game: who sat where, who finished first, the points, the faults and the bots' versions."""
    from arena.report.games import render_game_table
    from arena.results.games_list import csv_header, csv_row, json_line
    from arena.tournament.results import SUPERSEDED_CHOICES, GameQuery, TournamentResults

    format = ("html" if output is not None and output.suffix.lower() in (".html", ".htm") else "table") \
        if format is None else format.lower()
    if format not in GAME_FORMATS:
        fail(f"--format must be one of {', '.join(GAME_FORMATS)}, not {format!r}")
    if (format == "html") != (output is not None):
        fail("--format html writes a page and the game pages beside it: give -o FILE.html" if format == "html" else
             f"-o writes the html page; the {format} list goes to the terminal (redirect it to a file)")
    if void and format == "html":
        fail("--void lists games that were never played: they have no pages; give --format table, csv or json")
    if sort not in ("number", "stored"):
        fail(f"--sort must be number or stored, not {sort!r}")
    if superseded not in SUPERSEDED_CHOICES:
        fail(f"--superseded must be one of {', '.join(SUPERSEDED_CHOICES)}, not {superseded!r}")
    if void and (faults or skitgubbe is not None or superseded != "exclude"):
        given = "--faults" if faults else "--skitgubbe" if skitgubbe is not None else "--superseded"
        fail(f"--void lists the games that could not be played, which have no faults or finish: drop {given}")
    wanted = tuple(dict.fromkeys(bot or ()))
    if limit is None:
        limit = TABLE_LIMIT if format == "table" else 0
    query = GameQuery(wanted, faults, skitgubbe, superseded, sort == "number", limit)
    named = wanted + ((skitgubbe,) if skitgubbe is not None else ())
    with TournamentResults.open(config_path, note, bots=named) as results:
        config = results.config
        if void:
            _void_games(results.void_games(wanted), config, wanted, format, limit)
            return
        if output is not None:  # html, checked above
            _games_page(output, results, query, _described(list(wanted), faults, skitgubbe))
            return
        if format != "table":
            if format == "csv":
                console.out(csv_header(), end="", highlight=False)
            for line in results.games(query):  # streamed: read as printed
                console.out(csv_row(line) if format == "csv" else json_line(line), end="" if format == "csv" else "\n",
                            highlight=False)
            return
        shown = list(results.games(query))  # kept to print as one table; beyond the limit only counted
        more = max(0, results.count_games(query) - limit) if limit and len(shown) == limit else 0
    filters = _described(list(wanted), faults, skitgubbe)
    kind = {"exclude": "stored game", "include": "stored game", "only": "superseded game"}[superseded]
    title = f"{config.name}: {count(len(shown) + more, kind)}{filters}"
    if superseded == "include":
        title += ", superseded ones included"
    if not shown:
        console.print(f"{title}: none", highlight=False, markup=False)
        return
    render_game_table(shown, console, title=title)
    how = command('arena', 'replay', config_path, 'GAME')
    if superseded != "exclude" and any(line.superseded for line in shown):
        how += f" (a superseded one: {command('arena', 'replay', config_path, 'GAME', '--superseded')})"
    if more:
        console.print(f"... and {more} more (--limit 0 shows them all); replay one with: {how}", highlight=False, markup=False)
    else:
        console.print(f"replay one with: {how}", highlight=False, markup=False)


def _games_page(output: Path, results, query, filters: str) -> None:
    """`arena games --format html -o FILE`: the list at FILE, each listed game's page beside it."""
    from arena.report.game_pages import pages_folder, write_games_page

    config = results.config
    refuse_own_file(output, config)
    refuse_unwritable(output, "-o")
    folder = pages_folder(output)
    try:
        written = write_games_page(output, results, results.games(query), f"{config.name}: games{filters}")
    except OSError as exc:
        fail(f"cannot write the games page to -o {output}: {exc.strerror or exc}")
    console.print(f"wrote {output} and {count(written, 'game page')} in {folder}", highlight=False, markup=False)


def _void_games(found, config, wanted: tuple[str, ...], format: str, limit: int) -> None:
    """`arena games --void`: every void attempt (game number, VoidRow) of the games that seat every --bot."""
    import dataclasses
    import json

    from arena.report.games import render_void_table
    from arena.results.games_list import csv_cells

    shown = found[:limit] if limit else found
    if format == "json":
        for number, row in shown:
            console.out(json.dumps({"number": number, **dataclasses.asdict(row)}), highlight=False)
        return
    if format == "csv":
        fields = ("number", "key", "bots", "bot", "why", "tried", "voided_at", "played_since", "machine", "on_request")
        console.out(csv_cells(fields), end="", highlight=False)
        for number, row in shown:
            console.out(csv_cells((number, row.key, ";".join(row.bots), row.bot, row.why, row.tried, row.voided_at,
                                   row.played_since, row.machine, row.on_request)), end="", highlight=False)
        return
    from arena.results.voids import void_counts

    counts = void_counts(row for _, row in found)
    pending = counts.pending
    title = (f"{config.name}: {count(counts.games, 'void game')} ({counts.tried} tried and failed, "
             f"{counts.never_tried} never tried; {count(counts.attempts, 'attempt')})"
             f"{_described(list(wanted), False, None)}, {pending} to be played")
    if not shown:
        console.print(f"{config.name}: no void game", highlight=False, markup=False)
        return
    render_void_table(shown, console, title=title)
    if len(found) > len(shown):
        console.print(f"... and {len(found) - len(shown)} more (--limit 0 shows them all)", highlight=False, markup=False)
    if pending:
        console.print(f"the next {command('arena', 'tournament', 'run', config.path)} plays them first", highlight=False,
                      markup=False)


def _described(bots: list[str], faults: bool, skitgubbe: str | None) -> str:
    parts = []
    if bots:
        parts.append("with " + " and ".join(bots))
    if faults:
        parts.append("with a fault" + (" by " + " or ".join(bots) if bots else ""))
    if skitgubbe:
        parts.append(f"lost by {skitgubbe}")
    return (" " + ", ".join(parts)) if parts else ""


def register(app: typer.Typer) -> None:
    app.command("games")(games)
