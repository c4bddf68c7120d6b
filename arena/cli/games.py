"""`arena games`: list a tournament's stored games, to find the ones to replay."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.cli.common import LIST_LIMIT_MAX, console, note, refuse_own_file
from arena.report.formats import GamesFormat, GamesSort, games_format, refuse_games_options
from arena.results.choices import Superseded
from arena.tournament.output_files import refuse_unwritable
from arena.wording import count

TABLE_LIMIT = 100  # games a terminal table shows unless --limit says otherwise


def games(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    bot: Annotated[Optional[list[str]], typer.Option(
        "--bot", "-b", help="Only games this bot played (repeat: games they all played together).")] = None,
    faults: Annotated[bool, typer.Option(
        "--faults", help="Only games with a fault (by one of the --bot bots, when given).")] = False,
    skitgubbe: Annotated[Optional[str], typer.Option(help="Only games this bot finished last.")] = None,
    format: Annotated[Optional[GamesFormat], typer.Option(
        "--format", "-f", case_sensitive=False,
        help="table, csv, json (one JSON object per line) or html (a page, with -o, linking each game to its page to "
             "step through; default: html for -o FILE.html, else table).")] = None,
    output: Annotated[Optional[Path], typer.Option(
        "--output", "-o", help="With html: write the page here, and each listed game's page in the folder FILE-games "
                               "beside it.")] = None,
    limit: Annotated[Optional[int], typer.Option(
        min=0, max=LIST_LIMIT_MAX, help=f"At most this many games, 0 for all (default: all; {TABLE_LIMIT} in a table).")] = None,
    superseded: Annotated[Superseded, typer.Option(
        help="Games out of the standings (of a bot's earlier version, or of a bot withdrawn): exclude, "
             "include (after the others) or only.")] = "exclude",
    sort: Annotated[GamesSort, typer.Option(
        help="number: by game number (the tournament's order, the same in every run); stored: in the order "
             "the games were stored (it depends on the workers).")] = "number",
    void: Annotated[bool, typer.Option(
        "--void", help="Instead: the void games, which the arena could not play (a bot that could not be started "
                       "or reached for a reason outside its code): when, why, and whether played since.")] = False,
    queue: Annotated[bool, typer.Option(
        "--queue", help="Instead: a league's queue of next tables, next first: their bots, games stored, when and "
                        "why each was chosen.")] = False,
    tables: Annotated[bool, typer.Option(
        "--tables", help="Instead: every table a league chose, the latest first: queued, played or dropped, and "
                         "why.")] = False,
) -> None:
    """List the stored games, by game number, with the numbers `arena replay` takes.

    For each game: who sat where, who finished first, the points, the faults and the bots' versions;
    in a league, its table and why that table was chosen."""
    from arena.report.games import filters_text, print_game_lines, print_games, print_void_games
    from arena.report.league import print_league_tables
    from arena.tournament.results import GameQuery, TournamentResults

    format = format or games_format(output)
    refuse_games_options(format, output, {"--void": void, "--queue": queue, "--tables": tables}, faults, skitgubbe,
                         superseded)
    wanted = tuple(dict.fromkeys(bot or ()))
    limit = (TABLE_LIMIT if format == "table" else 0) if limit is None else limit
    query = GameQuery(wanted, faults, skitgubbe, superseded, sort == "number", limit)
    filters = filters_text(wanted, faults, skitgubbe)
    with TournamentResults.open(config_path, note, bots=wanted + ((skitgubbe,) if skitgubbe else ()),
                                league=queue or tables) as results:
        if void:
            return print_void_games(results.void_games(wanted), results.config, filters, format, limit, console)
        if queue or tables:
            return print_league_tables(results, queue, wanted, filters, format, limit, console)
        if output is not None:  # html, checked above
            return _games_page(output, results, query, filters)
        if format != "table":
            return print_game_lines(results.games(query), format, console)  # streamed: read as printed
        shown = list(results.games(query))  # kept to print as one table; beyond the limit only counted
        more = max(0, results.count_games(query) - limit) if limit and len(shown) == limit else 0
    print_games(shown, more, results.config, filters, superseded, console)


def _games_page(output: Path, results, query, filters: str) -> None:
    """`arena games --format html -o FILE`: the list at FILE, each listed game's page beside it."""
    from arena.report.game_pages import pages_folder, write_games_page

    config = results.config
    refuse_own_file(output, config)
    refuse_unwritable(output, "-o")
    written = write_games_page(output, results, results.games(query), f"{config.name}: games{filters}")
    console.print(f"wrote {output} and {count(written, 'game page')} in {pages_folder(output)}", highlight=False,
                  markup=False)


def register(app: typer.Typer) -> None:
    app.command("games")(games)
