"""CLI commands that read a tournament's results: `standings` and `replay`, each a call into the
results object (arena/tournament/results.py) and the report layer's renderings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from arena.cli.common import command, console, fail, note
from arena.tournament.opening import own_file
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
) -> None:
    """Print or write the standings report from the results database (also while a run is going on)."""
    from arena.report import export, html
    from arena.report.standings import render_standings_report
    from arena.tournament.results import TournamentResults

    format = _format_of(output) if format is None else format.lower()  # JSON or json
    if format not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {format!r}")
    with TournamentResults.open(config_path, note) as results:
        config = results.config
        if output is not None:
            refuse_own_file(output, config)
        result = results.standings(with_history=history or format == "json")
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
        titled = export.to_markdown if format == "markdown" else html.to_html
        content = text(result) if text else titled(result, config.name)
        if output is None:
            # One line end after the content: a CSV's own last one doubled made an empty row.
            console.out(content, highlight=False, end="" if content.endswith("\n") else "\n")
            return
        _write_report(output, content, config)
    console.print(f"wrote {escape(str(output))}", highlight=False)


def refuse_own_file(output: Path, config) -> None:
    """Fail if `output` is the tournament's own config or results file."""
    own = own_file(output, config)
    if own is not None:
        fail(f"-o {output} is this tournament's own {own}; write the report to another file")


def _write_report(output: Path, content: str, config) -> None:
    """Write a report file, but never over the tournament's own config or results."""
    refuse_own_file(output, config)
    try:
        output.write_text(content, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write the report to -o {output}: {exc.strerror or exc}")


def replay(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    game: Annotated[str, typer.Argument(help="The game: its tournament game number (the one bots are sent) or its key (e.g. t0001-d0000-s02).")],
    seat: Annotated[Optional[int], typer.Option(min=0, max=4, help="Show the game as this seat saw it.")] = None,
    superseded: Annotated[bool, typer.Option(
        "--superseded", help="The game as an earlier version of a resubmitted (or a withdrawn) bot played it: "
                             "the last of its superseded plays (`arena games --superseded only` lists them).")] = False,
) -> None:
    """Show a stored game move by move, as the referee saw it or as one seat saw it."""
    from arena.tournament.results import TournamentResults

    with TournamentResults.open(config_path, note) as results:
        shown = results.replay(game, superseded=superseded)
    if shown.superseded:
        more = f"; {count(shown.earlier_plays, 'earlier superseded play')} of it" if shown.earlier_plays else ""
        console.print(escape(f"superseded ({shown.superseded}){more}"), highlight=False)
    if seat is not None and seat >= len(shown.row.bots):
        fail(f"--seat must be below {len(shown.row.bots)} for this game")
    for line in shown.lines(seat):
        console.print(escape(line), highlight=False)  # lines quote bot output


def register_standings(app: typer.Typer) -> None:
    app.command("standings")(standings)


def register_replay(app: typer.Typer) -> None:
    app.command("replay")(replay)
