"""`arena games`: list a tournament's stored games, to find the ones to replay."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.cli.common import LIST_LIMIT_MAX, command, console, fail, note
from arena.tournament.opening import bot_versions, load_tournament, open_results
from arena.wording import count

GAME_FORMATS = ("table", "csv", "json")
SUPERSEDED_CHOICES = ("exclude", "include", "only")
TABLE_LIMIT = 100  # games a terminal table shows unless --limit says otherwise


def games(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    bot: Annotated[Optional[list[str]], typer.Option(
        "--bot", "-b", help="Only games this bot played (repeat: games they all played together).")] = None,
    faults: Annotated[bool, typer.Option(
        "--faults", help="Only games with a fault (by one of the --bot bots, when given).")] = False,
    skitgubbe: Annotated[Optional[str], typer.Option(help="Only games this bot finished last.")] = None,
    format: Annotated[str, typer.Option("--format", "-f", help="table, csv or json (one JSON object per line).")] = "table",
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
    from arena.results.games_list import GameLine, csv_header, csv_row, game_lines, json_line
    from arena.results.games_page import GameFilter, count_current, current_lines
    from arena.report.games import render_game_table
    from arena.results.rows import StoreError

    format = format.lower()
    if format not in GAME_FORMATS:
        fail(f"--format must be one of {', '.join(GAME_FORMATS)}, not {format!r}")
    if sort not in ("number", "stored"):
        fail(f"--sort must be number or stored, not {sort!r}")
    if superseded not in SUPERSEDED_CHOICES:
        fail(f"--superseded must be one of {', '.join(SUPERSEDED_CHOICES)}, not {superseded!r}")
    if void and (faults or skitgubbe is not None or superseded != "exclude"):
        given = "--faults" if faults else "--skitgubbe" if skitgubbe is not None else "--superseded"
        fail(f"--void lists the games that could not be played, which have no faults or finish: drop {given}")
    config, manifests = load_tournament(config_path)
    wanted = list(dict.fromkeys(bot or ()))
    for name in wanted + ([skitgubbe] if skitgubbe is not None else []):
        if name not in config.bots:
            fail(f"no bot {name!r} in {config.path}; its bots are {', '.join(config.bots)}")
    if limit is None:
        limit = TABLE_LIMIT if format == "table" else 0
    store, config = open_results(config, manifests, bot_versions(manifests), create=False, note=note)
    numbers = config.game_numbers()
    if void:
        try:
            _void_games(store, config, numbers, wanted, format, limit)
        finally:
            store.close()
        return
    shown: list[GameLine] = []
    more = 0
    try:
        # The current games come from SQL, filtered and in order, read as they are taken (a page reads
        # a page); the superseded ones, few, are read whole and come after them.
        wanted_games = GameFilter(tuple(wanted), faults, skitgubbe)
        current = iter(()) if superseded == "only" else current_lines(
            store, numbers, wanted_games, by_number=sort == "number", page=limit or TABLE_LIMIT)
        gone = [(game.row, game.why) for game in store.superseded()] if superseded != "exclude" else []
        if sort == "number":
            gone.sort(key=lambda pair: numbers.of(pair[0]))
        gone_lines = list(game_lines(gone, numbers.of, bots=wanted, faults_only=faults, skitgubbe=skitgubbe))
        found = itertools.chain(current, gone_lines)
        if format == "table":  # kept to print as one table; beyond the limit only counted
            shown = list(itertools.islice(found, limit or None))
            if limit and len(shown) == limit:
                counted = 0 if superseded == "only" else count_current(store, wanted_games)
                more = max(0, counted + len(gone_lines) - limit)
        else:
            if format == "csv":
                console.out(csv_header(), end="", highlight=False)
            for line in itertools.islice(found, limit or None):
                console.out(csv_row(line) if format == "csv" else json_line(line), end="" if format == "csv" else "\n",
                            highlight=False)
    except StoreError as exc:  # a file found damaged as it is read
        fail(str(exc), code=1)
    finally:
        store.close()
    if format != "table":
        return
    filters = _described(wanted, faults, skitgubbe)
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


def _void_games(store, config, numbers, wanted: list[str], format: str, limit: int) -> None:
    """`arena games --void`: every void attempt of the games that seat every --bot, by game number."""
    import dataclasses
    import json

    from arena.report.games import render_void_table
    from arena.results.games_list import csv_cells
    from arena.results.voids import void_rows

    found = [(numbers.number(row.table, row.deal, row.seating), row) for row in void_rows(store)
             if all(name in row.bots for name in wanted)]
    found.sort(key=lambda pair: (pair[0], pair[1].voided_at))
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
    pending = len({row.key for _, row in found if not row.played_since})
    games = len({row.key for _, row in found})
    title = (f"{config.name}: {count(games, 'void game')} ({count(len(found), 'attempt')})"
             f"{_described(wanted, False, None)}, {pending} to be played")
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
