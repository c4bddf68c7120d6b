"""CLI commands that read a tournament's results: `standings` and `replay`."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from arena.cli.common import command, console, fail, note
from arena.tournament.opening import open_to_read, own_file
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
) -> None:
    """Print or write the standings report from the results database (also while a run is going on)."""
    from arena.report import export, html
    from arena.report.standings import render_standings_details, render_standings_table
    from arena.results.rows import StoreError

    format = _format_of(output) if format is None else format.lower()  # JSON or json
    if format not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {format!r}")
    if output is not None:
        refuse_unwritable(output, "-o")  # before the report is worked out
    store, config, _ = open_to_read(config_path, note)
    try:
        result = report_standings(store, config, with_history=history or format == "json")
    except StoreError as exc:  # a file found damaged as it is read
        fail(str(exc), code=1)
    finally:
        store.close()
    if format == "table":
        if output is None:
            render_standings_table(result, console, title=config.name)
            render_standings_details(result, console)
            return
        import io

        from rich.console import Console

        buffer = io.StringIO()
        file_console = Console(file=buffer, width=120, color_system=None)
        render_standings_table(result, file_console, title=config.name)
        render_standings_details(result, file_console)
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


def report_standings(store, config, with_history: bool = False, by_points_per_game: bool | None = None, live=None):
    """The standings every report shows: rated, with the tournament's facts, an SPRT run's test,
    and (`with_history`) the figures of the versions out of the standings; ranked as the config
    says, or by points per game if `by_points_per_game` (the live page, as the live board);
    `live`: a run's provisional ratings for its live page (results/live_ratings.py)."""
    from arena.report.facts import tournament_facts
    from arena.results.history import version_history
    from arena.results.queries import games_summary
    from arena.results.ratings import rated_standings
    from arena.results.standings import Completeness
    from arena.results.voids import pending_void_keys
    from arena.tournament.resubmission import stored_versions

    games = games_summary(store)
    void = len(pending_void_keys(store))
    # A tournament with every game stored has none still to come: its ratings' checkpoint may
    # settle at its highest number (arena/results/rating_checkpoint.py).
    settled = config.game_numbers().highest if games.games >= config.games_scheduled() and not void else None
    result = rated_standings(store, config, by_points_per_game=by_points_per_game, settled_upto=settled, live=live)
    versions = {b.bot: b.version for b in result.bots}
    result = dataclasses.replace(result, facts=tournament_facts(config, games.first_finished_at, games.last_finished_at,
                                                                versions, games.capped_games, games.games, void))
    decided = False
    if config.sprt:
        from arena.tournament.early_stop import sprt_state, sprt_tables

        result = dataclasses.replace(result, test=sprt_state(store, config, sprt_tables(config)))
        decided = result.test is not None and result.test.decided
    result = dataclasses.replace(result, completeness=Completeness(games.games, config.games_scheduled(), void, decided))
    if with_history:
        # What the standings count: each bot at the version its stored games were played at.
        counted = stored_versions(store.fingerprint() or {})
        result = dataclasses.replace(result, history=version_history(store.superseded(), counted, config.withdrawn))
    return result


def write_live_page(path: Path, store, config, refresh_s: int | None, progress: str | None = None, live=None) -> None:
    """The HTML report at `path`, replaced whole (a reader never sees half a page); `refresh_s`:
    the live page, reloading itself, while the run goes on, with the run's `progress` line. Raises
    OSError, or ArenaError for a name that is not a regular file (arena/tournament/output_files.py).

    The live page ranks as the terminal's live board does: by points per game while the run goes
    on (on totals, the bots whose tables came first would lead), as the config says once it ended.
    It ranked by total points beside a board ranked by points per game."""
    from arena.report import html

    refreshing = refresh_s is not None
    standings = report_standings(store, config, by_points_per_game=True if refreshing else None, live=live)
    if refreshing and not config.ranks_by_points_per_game:  # the page's own words say "ranked by points per game"
        progress = "; ".join(filter(None, (progress, "ranked by points per game until the run ends, then by total points")))
    page = html.to_html(standings, config.name, refresh_s=refresh_s, progress=progress)
    write_output(path, page, "--html")


def refuse_own_file(output: Path, config, option: str = "-o") -> None:
    """Fail if `output` is the tournament's own config or results file."""
    own = own_file(output, config)
    if own is not None:
        fail(f"{option} {output} is this tournament's own {own}; write the report to another file")


def _game_key(game: str, config) -> str:
    """A tournament game number (as bots and logs see it, stable across resumed runs) to its key."""
    if game.isascii() and game.isdigit() and len(game) < 19:
        numbers = config.game_numbers()
        key = numbers.key_of(int(game))
        if key is None:
            gaps = " (with gaps: the numbers stay when deals or bots are added)" if numbers.highest > numbers.total else ""
            fail(f"no game {game}: the games of {config.path} have numbers from 1 to {numbers.highest}{gaps}")
        return key
    return game


def _write_report(output: Path, content: str, config) -> None:
    """Write a report file, but never over the tournament's own config or results, nor into
    anything but a regular file or a new one (a device, a FIFO, a link: refused, exit code 2)."""
    refuse_own_file(output, config)
    try:
        write_output(output, content, "-o")
    except OSError as exc:
        fail(f"cannot write the report to -o {output}: {exc.strerror or exc}")


def _not_stored_words(store, config, config_path: Path, game: str, key: str, exc: Exception) -> str:
    """Why a game is not there to show: superseded (its bot withdrawn, or resubmitted and the game
    not played again yet), with how to see it, else not stored yet. A withdrawn bot's game was said
    to be "not stored yet", which it never would be."""
    from arena.results.rows import StoreError

    named = f"game {game} ({key})" if key != game else f"game {key}"
    try:
        earlier = store.superseded(key=key)
    except StoreError:  # the file found damaged: the first error says it
        earlier = []
    if earlier:
        why = earlier[-1].why  # "a: withdrawn" or "a: version 1a2b3c4d5e6f, now 6f5e4d3c2b1a" (results/archive.py)
        bot, _, change = why.partition(": ")
        because = f"{bot} was withdrawn" if change == "withdrawn" else f"its bot was resubmitted ({why})"
        return (f"{named} is superseded: {because}; the game is kept, out of the standings. See it with: "
                f"{command('arena', 'replay', config_path, game, '--superseded')}")
    return f"{named} is not stored yet in {config.database}" if key != game else str(exc)


def replay(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    game: Annotated[str, typer.Argument(help="The game: its tournament game number (the one bots are sent) or its key (e.g. t0001-d0000-s02).")],
    seat: Annotated[Optional[int], typer.Option(min=0, max=4, help="Show the game as this seat saw it.")] = None,
    superseded: Annotated[bool, typer.Option(
        "--superseded", help="The game as an earlier version of a resubmitted (or a withdrawn) bot played it: "
                             "the last of its superseded plays (`arena games --superseded only` lists them).")] = False,
) -> None:
    """Show a stored game move by move, as the referee saw it or as one seat saw it."""
    from arena.results.replay import replay_lines
    from arena.results.rows import StoreError

    store, config, _ = open_to_read(config_path, note)
    earlier = []
    try:
        key = _game_key(game.strip(), config)
        if superseded:
            earlier = store.superseded(with_transcripts=True, key=key)
            if not earlier:
                fail(f"game {game} ({key}) has no superseded play in {config.database}")
            row = earlier[-1].row
        else:
            row = store.get_game(key)
    except StoreError as exc:
        fail(_not_stored_words(store, config, config_path, game.strip(), key, exc))
    finally:
        store.close()
    if earlier:
        more = f"; {count(len(earlier) - 1, 'earlier superseded play')} of it" if len(earlier) > 1 else ""
        console.print(escape(f"superseded ({earlier[-1].why}){more}"), highlight=False)
    if seat is not None and seat >= len(row.bots):
        fail(f"--seat must be below {len(row.bots)} for this game")
    number = config.game_numbers().of(row)
    for line in replay_lines(row, seat, number):
        console.print(escape(line), highlight=False)  # lines quote bot output


def register_standings(app: typer.Typer) -> None:
    app.command("standings")(standings)


def register_replay(app: typer.Typer) -> None:
    app.command("replay")(replay)
