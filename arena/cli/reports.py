"""CLI commands that read a tournament's results: `standings` and `replay`, each a call into the
results object (arena/tournament/results.py) and the report layer's renderings (the standings
page's game pages: arena/report/game_pages.py; one game's page: arena/report/replay_page.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from arena.cli.common import command, console, fail, note, refuse_own_file
from arena.report.formats import REPLAY_BY_SUFFIX, STANDINGS_BY_SUFFIX, ReplayFormat, StandingsFormat, format_for
from arena.tournament.output_files import refuse_unwritable, write_output
from arena.wording import count

def standings(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    format: Annotated[Optional[StandingsFormat], typer.Option(
        "--format", "-f", case_sensitive=False,
        help="table, markdown, html, json or csv (default: from the -o file's suffix, else table).")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of the terminal.")] = None,
    history: Annotated[bool, typer.Option(
        "--history", help="Also the figures of what is out of the standings: the earlier versions of resubmitted "
                          "bots, and withdrawn bots (JSON always has them, as `history`).")] = False,
    facts: Annotated[bool, typer.Option(
        "--facts", help="Also the tournament's facts in the terminal, after the tables: when it ran, its setup, "
                        "the bots' versions (every file format has them).")] = False,
    game_pages: Annotated[bool, typer.Option(
        "--game-pages/--no-game-pages", help="With -o FILE.html: also a page per game to step through, in the "
                                             "folder FILE-games beside it, linked from the report.")] = True,
) -> None:
    """Print or write the standings report from the results database (also while a run is going on)."""
    from arena.report.documents import standings_document
    from arena.report.game_pages import pages_folder, report_pages_beside
    from arena.report.standings import render_standings_report
    from arena.tournament.results import TournamentResults

    form: str = format or format_for(output, STANDINGS_BY_SUFFIX, "report")
    if output is not None:
        refuse_unwritable(output, "-o")  # before the report is worked out
    games_href = None
    with TournamentResults.open(config_path, note) as results:
        config = results.config
        if output is not None:
            refuse_own_file(output, config)
        result = results.standings(with_history=history or form == "json")
        if form == "html" and output is not None and game_pages:
            games_href, written = report_pages_beside(output, results)
            console.print(f"wrote {escape(count(written, 'game page'))} in {escape(str(pages_folder(output)))}",
                          highlight=False)
    if form == "table" and output is None:
        render_standings_report(result, console, title=config.name, facts=facts)
        if not facts:
            console.print(f"the tournament's facts: {escape(command('arena', 'standings', config_path, '--facts'))}",
                          style="dim", highlight=False)
        return
    _write_report(output, standings_document(result, form, config.name, games_href), config)


def _write_report(output: Path | None, content: str, config, done: str = "") -> None:
    """A report to the terminal, or to its file: never over the tournament's own config or results,
    nor into anything but a regular file or a new one (a device, a FIFO, a link: refused, exit code 2)."""
    if output is None:
        # One line end after the content: a CSV's own last one doubled made an empty row.
        return console.out(content, highlight=False, end="" if content.endswith("\n") else "\n")
    refuse_own_file(output, config)
    try:
        write_output(output, content, "-o")
    except OSError as exc:
        fail(f"cannot write the report to -o {output}: {exc.strerror or exc}")
    console.print(f"wrote {escape(str(output))}{done}", highlight=False)


def _seat_number(seat: int | None) -> int | None:
    """Only a number no table could have is refused here: the game's own table says the rest
    ("game 1 has 3 seats: give --seat 0 to 2"), which a range of every table size could not."""
    if seat is not None and not -1000 < seat < 1000:
        raise typer.BadParameter(f"no table has a seat {seat}")
    return seat


def replay(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    game: Annotated[str, typer.Argument(help="The game: its tournament game number (the one bots are sent) or its key (e.g. t0001-d0000-s02).")],
    seat: Annotated[Optional[int], typer.Option(callback=_seat_number, help=(
        "Show the game as this seat saw it, 0 to the table's size less one (text; the page takes ?seat=N)."))] = None,
    superseded: Annotated[bool, typer.Option(
        "--superseded", help="The game as an earlier version of a resubmitted (or a withdrawn) bot played it: "
                             "the last of its superseded plays (`arena games --superseded only` lists them).")] = False,
    format: Annotated[Optional[ReplayFormat], typer.Option(
        "--format", "-f", case_sensitive=False,
        help="text, html (a page to step through in a browser, self-contained) or json (the game's data); default: "
             "from the -o file's suffix, else text.")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of the terminal.")] = None,
) -> None:
    """Show a stored game move by move, or write it as a page to step through in a browser (-o game.html).

    The page (html) is one file that needs nothing else: open it in a browser, step with the keys
    or the scrubber, and add ?seat=N to its address for one seat's view. json writes the game's
    data alone: the deal, every move with its think time and legal moves, the faults."""
    from arena.report.documents import replay_document
    from arena.tournament.results import TournamentResults

    form: str = format or format_for(output, REPLAY_BY_SUFFIX, "replay")
    if seat is not None and form != "text":
        fail(f"--seat is for the text replay; the {form} page shows every seat's view (open it with ?seat={seat})"
             if form == "html" else "--seat is for the text replay; the JSON holds the whole game")
    with TournamentResults.open(config_path, note) as results:
        config = results.config
        if output is not None:
            refuse_own_file(output, config)
        shown = results.replay(game, superseded=superseded)
    seats = len(shown.row.bots)  # the table's, which the option's own range could not know
    if seat is not None and not 0 <= seat < seats:
        fail(f"game {shown.number} has {seats} seats: give --seat 0 to {seats - 1}")
    if shown.superseded:
        more = f"; {count(shown.earlier_plays, 'earlier superseded play')} of it" if shown.earlier_plays else ""
        console.print(escape(f"superseded ({shown.superseded}){more}"), highlight=False)
    if form != "text":
        done = ": open it in a browser to step through the game" if form == "html" else ""
        return _write_report(output, replay_document(shown.data(config.name), form, config.playing), config, done)
    if output is not None:
        return _write_report(output, "\n".join(shown.lines(seat)) + "\n", config)
    for line in shown.lines(seat):
        console.print(escape(line), highlight=False)  # lines quote bot output


def register_standings(app: typer.Typer) -> None:
    app.command("standings")(standings)


def register_replay(app: typer.Typer) -> None:
    app.command("replay")(replay)
