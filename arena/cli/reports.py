"""CLI commands that read a tournament's results: `standings` and `replay`, each a call into the
results object (arena/tournament/results.py) and the report layer's renderings (the standings
page's game pages: arena/report/game_pages.py; one game's page: arena/report/replay_page.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from arena.cli.common import command, console, fail, note, refuse_own_file
from arena.tournament.output_files import refuse_unwritable, write_output
from arena.wording import count

FORMATS = ("table", "markdown", "html", "json", "csv")


def _format_of(output: Path | None) -> str:
    """`-o standings.html` alone means HTML: a text table in a .html file helps nobody."""
    spelled = output.suffix if output is not None else ""
    suffix = spelled.lower()
    by_suffix = {".html": "html", ".htm": "html", ".md": "markdown", ".json": "json", ".csv": "csv",
                 "": "table", ".txt": "table", ".text": "table"}
    if suffix not in by_suffix:
        # `-o standings.pdf` would get a text table under a name that promises something else.
        fail(f"-o {output}: no report format is written as '{spelled}'; give --format "
             f"({', '.join(FORMATS)}) or a file ending in .html, .md, .json, .csv or .txt")
    return by_suffix[suffix]


def standings(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    format: Annotated[Optional[str], typer.Option(
        "--format", "-f", help="table, markdown, html, json or csv (default: from the -o file's suffix, else table).")] = None,
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
    from arena.report import export, html
    from arena.report.standings import render_standings_report
    from arena.tournament.results import TournamentResults

    format = _format_of(output) if format is None else format.lower()  # JSON or json
    if format not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {format!r}")
    if output is not None:
        refuse_unwritable(output, "-o")  # before the report is worked out
    games_href = None
    with TournamentResults.open(config_path, note) as results:
        config = results.config
        if output is not None:
            refuse_own_file(output, config)
        result = results.standings(with_history=history or format == "json")
        if format == "html" and output is not None and game_pages:
            games_href = _write_game_pages(output, results)
    if format == "table":
        if output is None:
            render_standings_report(result, console, title=config.name, facts=facts)
            if not facts:
                console.print(f"the tournament's facts: {escape(command('arena', 'standings', config_path, '--facts'))}",
                              style="dim", highlight=False)
            return
        import io

        from rich.console import Console

        buffer = io.StringIO()
        render_standings_report(result, Console(file=buffer, width=120, color_system=None), title=config.name,
                                facts=True)
        _write_report(output, buffer.getvalue(), config)
    else:
        text = {"json": export.to_json, "csv": export.to_csv}.get(format)
        content = text(result) if text else export.to_markdown(result, config.name) if format == "markdown" else \
            html.to_html(result, config.name, games_href=games_href)
        if output is None:
            # One line end after the content: a CSV's own last one doubled made an empty row.
            console.out(content, highlight=False, end="" if content.endswith("\n") else "\n")
            return
        _write_report(output, content, config)
    console.print(f"wrote {escape(str(output))}", highlight=False)


def _write_game_pages(output: Path, results) -> str:
    """The report's game pages in the folder beside `output`; the report's link to their list."""
    from urllib.parse import quote

    from arena.report.game_pages import INDEX, pages_folder, write_report_pages

    folder = pages_folder(output)
    try:
        written = write_report_pages(folder, results, back=("../" + quote(output.name), "the standings"))
    except OSError as exc:
        fail(f"cannot write the game pages to {folder}: {exc.strerror or exc}")
    console.print(f"wrote {escape(count(written, 'game page'))} in {escape(str(folder))}", highlight=False)
    return f"{quote(folder.name)}/{INDEX}"


def _write_report(output: Path, content: str, config) -> None:
    """Write a report file, but never over the tournament's own config or results, nor into
    anything but a regular file or a new one (a device, a FIFO, a link: refused, exit code 2)."""
    refuse_own_file(output, config)
    try:
        write_output(output, content, "-o")
    except OSError as exc:
        fail(f"cannot write the report to -o {output}: {exc.strerror or exc}")


REPLAY_FORMATS = ("text", "html", "json")


def replay(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    game: Annotated[str, typer.Argument(help="The game: its tournament game number (the one bots are sent) or its key (e.g. t0001-d0000-s02).")],
    seat: Annotated[Optional[int], typer.Option(min=0, max=4, help="Show the game as this seat saw it (text; the page "
                                                                    "takes ?seat=N).")] = None,
    superseded: Annotated[bool, typer.Option(
        "--superseded", help="The game as an earlier version of a resubmitted (or a withdrawn) bot played it: "
                             "the last of its superseded plays (`arena games --superseded only` lists them).")] = False,
    format: Annotated[Optional[str], typer.Option(
        "--format", "-f", help="text, html (a page to step through in a browser, self-contained) or json (the "
                               "game's data); default: from the -o file's suffix, else text.")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file instead of the terminal.")] = None,
) -> None:
    """Show a stored game move by move, or write it as a page to step through in a browser (-o game.html).

    The page (html) is one file that needs nothing else: open it in a browser, step with the keys
    or the scrubber, and add ?seat=N to its address for one seat's view. json writes the game's
    data alone: the deal, every move with its think time and legal moves, the faults."""
    from arena.tournament.results import TournamentResults

    format = _replay_format(output) if format is None else format.lower()
    if format not in REPLAY_FORMATS:
        fail(f"--format must be one of {', '.join(REPLAY_FORMATS)}, not {format!r}")
    if seat is not None and format != "text":
        fail(f"--seat is for the text replay; the {format} page shows every seat's view (open it with ?seat={seat})"
             if format == "html" else "--seat is for the text replay; the JSON holds the whole game")
    with TournamentResults.open(config_path, note) as results:
        config = results.config
        if output is not None:
            refuse_own_file(output, config)
        shown = results.replay(game, superseded=superseded)
    if shown.superseded:
        more = f"; {count(shown.earlier_plays, 'earlier superseded play')} of it" if shown.earlier_plays else ""
        console.print(escape(f"superseded ({shown.superseded}){more}"), highlight=False)
    if seat is not None and seat >= len(shown.row.bots):
        fail(f"--seat must be below {len(shown.row.bots)} for this game")
    if format != "text":
        _write_game(output, format, shown, config)
        return
    lines = shown.lines(seat)
    if output is not None:
        _write_report(output, "\n".join(lines) + "\n", config)
        console.print(f"wrote {escape(str(output))}", highlight=False)
        return
    for line in lines:
        console.print(escape(line), highlight=False)  # lines quote bot output


def _replay_format(output: Path | None) -> str:
    """`-o game.html` alone means the page, `-o game.json` the JSON."""
    spelled = output.suffix if output is not None else ""
    by_suffix = {".html": "html", ".htm": "html", ".json": "json", "": "text", ".txt": "text", ".text": "text"}
    if spelled.lower() not in by_suffix:
        fail(f"-o {output}: no replay format is written as '{spelled}'; give --format ({', '.join(REPLAY_FORMATS)}) "
             "or a file ending in .html, .json or .txt")
    return by_suffix[spelled.lower()]


def _write_game(output: Path | None, format: str, shown, config) -> None:
    """The game as its self-contained page (arena/report/replay_page.py) or its JSON."""
    import json

    from arena.report.replay_page import replay_page

    data = shown.data(config.name)
    content = replay_page(data, roster=config.playing) if format == "html" else json.dumps(data, indent=1) + "\n"
    if output is None:
        console.out(content, highlight=False, end="")
        return
    _write_report(output, content, config)
    console.print(f"wrote {escape(str(output))}" + (": open it in a browser to step through the game" if format == "html"
                                                   else ""), highlight=False)


def register_standings(app: typer.Typer) -> None:
    app.command("standings")(standings)


def register_replay(app: typer.Typer) -> None:
    app.command("replay")(replay)
