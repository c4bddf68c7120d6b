"""CLI commands for tournaments: `tournament new` and `tournament run` (reports: arena/cli/reports.py,
`games`: arena/cli/games.py)."""

from __future__ import annotations

import secrets

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from arena.cli.common import (SEED_MAX, SEED_MIN, MoveTimeout, StartupTimeout, UsageError, command, console,
                               fail, ignore_interrupts, note, parse_rule_options, stop_on_sigterm)
from arena.tournament.config import MAX_TOURNAMENT_GAMES, MAX_WORKERS
from arena.wording import count, visible_lines

tournament_app = typer.Typer(help="Create and run tournaments: round robin, balanced or gauntlet.", no_args_is_help=True)

def register(app: typer.Typer) -> None:
    app.add_typer(tournament_app, name="tournament")


def _config_path(given: Path) -> Path:
    """A bare name (`mine`: no folder, no suffix) means the workspace's tournaments/mine.toml; a
    file name or path (`mine.toml`, `tournaments/mine.toml`) is written where it says."""
    from arena.submission.workspace import TOURNAMENTS, workspace_or_here

    if len(given.parts) != 1 or given.suffix or given.name in (".", ".."):
        return given
    return workspace_or_here() / TOURNAMENTS / (given.name + ".toml")


@tournament_app.command("new")
def new(
    path: Annotated[Path, typer.Argument(help="Where to write the config: a path (tournaments/mine.toml), or a bare name (mine) for the workspace's tournaments/mine.toml.")],
    bots: Annotated[list[str], typer.Option("--bot", "-b", help="A bot name or manifest path (repeat for each entry).")],
    name: Annotated[Optional[str], typer.Option(help="Tournament name (default: the file's name).")] = None,
    seed: Annotated[Optional[int], typer.Option(
        min=SEED_MIN, max=SEED_MAX,
        help="Tournament seed (default: a random one, written in the config). The deals follow from it and the "
        "bots' names: keep it from the bot authors until the tournament is over.")] = None,
    table_size: Annotated[int, typer.Option(min=2, max=5, help="Bots per table.")] = 3,
    deals: Annotated[int, typer.Option(min=1, max=MAX_TOURNAMENT_GAMES,
                                       help="Deals per table, each played in every seating.")] = 2,
    rule: Annotated[Optional[list[str]], typer.Option("--rule", "-r", help="Rule option OPTION=VALUE (repeatable).")] = None,
    workers: Annotated[Optional[int], typer.Option(min=1, max=MAX_WORKERS,
                                                   help="Worker processes (default: the number of cores).")] = None,
    schedule: Annotated[Optional[str], typer.Option(
        help="round_robin (every combination of bots), balanced (--tables N tables in which every pair "
             "meets equally often) or gauntlet (the first --challengers N bots each meet every combination "
             "of the others). Default: balanced if --tables is given, gauntlet if --challengers is, "
             "else round_robin.")] = None,
    tables: Annotated[Optional[int], typer.Option(min=1, max=MAX_TOURNAMENT_GAMES,
                                                  help="Tables of a balanced schedule.")] = None,
    challengers: Annotated[Optional[int], typer.Option(
        min=1, max=MAX_TOURNAMENT_GAMES,
        help="How many of the first --bot entries challenge the others (gauntlet; default 1).")] = None,
    database: Annotated[Optional[Path], typer.Option(
        help="The SQLite results file (default: beside the config, named after it).")] = None,
    move_timeout: MoveTimeout = 2.0,
    startup_timeout: StartupTimeout = 10.0,
    isolation: Annotated[str, typer.Option(
        help="required (the default: other people's bots each see only their own folder, and the run is refused "
             "without bubblewrap), auto (isolated where bubblewrap works, else not) or off. See arena docs sandbox.")]
        = "required",
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write a tournament config from options."""
    from arena.game import GameError, Rules
    from arena.schedule.kinds import kind_for_options
    from arena.tournament.config import ConfigError
    from arena.tournament.config_write import write_config

    path = _config_path(path)
    if path.exists() and not force:
        fail(f"{path} exists; use --force to overwrite it")
    try:
        options = parse_rule_options(rule)
        if options.get("num_players", str(table_size)) != str(table_size):
            raise UsageError(f"--rule num_players={options['num_players']} does not match --table-size {table_size}")
        options["num_players"] = str(table_size)
        rules = Rules.from_options(options).changed_options()  # validated, with native TOML types
        rules.pop("num_players", None)
        if schedule is None:
            if tables is not None and challengers is not None:
                raise UsageError("--tables makes a balanced schedule and --challengers a gauntlet: give one of them")
            schedule = kind_for_options(tables, challengers)
        if seed is None:  # a bot that knows the seed can deal every hand itself
            seed = secrets.randbelow(2**31)
        write_config(path, name=name or path.stem, bots=list(bots), seed=seed, table_size=table_size, deals=deals,
                     rules=rules, workers=workers, move_timeout_s=move_timeout, startup_timeout_s=startup_timeout,
                     schedule=schedule, tables=tables, challengers=challengers, database=database,
                     isolation=isolation)
    except ConfigError as exc:
        fail(_in_option_terms(str(exc), path))
    except (UsageError, GameError) as exc:
        fail(str(exc))
    console.print(f"wrote {escape(str(path))}; run it with: {escape(command('arena', 'tournament', 'run', path))}", highlight=False)


# `tournament new` checks what it would write as a config would be checked; its user gave
# options, not keys of a file that does not exist yet.
_OPTION_OF_KEY = {"bots": "--bot", "deals": "--deals", "table_size": "--table-size", "seed": "--seed",
                  "name": "--name", "workers": "--workers", "limits.move_timeout_s": "--move-timeout",
                  "limits.startup_timeout_s": "--startup-timeout", "rules": "--rule", "schedule": "--schedule",
                  "tables": "--tables", "challengers": "--challengers", "database": "--database",
                  "isolation": "--isolation"}


def _in_option_terms(message: str, path: Path) -> str:
    for key, option in _OPTION_OF_KEY.items():
        if f"key {key!r}" in message:
            message = message.replace(f"{path}: ", "", 1).replace(f"key {key!r}", option)
        message = message.replace(f"({key})", f"({option})")
    return message


@tournament_app.command("run")
def run(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    workers: Annotated[Optional[int], typer.Option(min=1, help="Worker processes (default: the config's, else the cores).")] = None,
    log: Annotated[Optional[Path], typer.Option(help="Directory for protocol lines and bot stderr, per table.")] = None,
    update: Annotated[bool, typer.Option(
        "--update", help="Take resubmitted bots (their files changed) and bots taken out of the config: their "
                         "stored games are kept out of the standings, and a changed bot's tables are played "
                         "again with the same cards.")] = False,
    cluster: Annotated[Optional[str], typer.Option(
        "--cluster", help="Play the tables on the Dask cluster whose scheduler is at this address "
                          "(tcp://SCHEDULER:8786; default: the config's `cluster`, else this machine's cores).")] = None,
    html_page: Annotated[Optional[Path], typer.Option(
        "--html", metavar="FILE", help="Keep a standings page at this HTML file up to date while the run goes on "
                                       "(it reloads itself in a browser; no server needed), the final report at the end.")] = None,
    replay_faults: Annotated[Optional[list[str]], typer.Option(
        "--replay-faults", metavar="KIND", help="Void the stored games with a fault of this kind (e.g. no_hello: a bot "
                                                "that could not start, stored by an arena that did not know void games) "
                                                "and play them again with the same cards; repeatable, or KIND,KIND.")] = None,
    unchecked: Annotated[bool, typer.Option(
        "--unchecked", help="Let every bot play this run even if its version has not passed `arena bot check` on "
                            "this machine (one bot, every run: [grant.NAME] unchecked = true in the config).")] = False,
) -> None:
    """Run (or resume) a tournament: plays only the games not yet stored."""
    from arena.report.live import LiveBoard
    from arena.report.live_page import LivePage
    from arena.tournament.session import RunOptions, TournamentSession, start_failure_words, void_words

    kinds = tuple(dict.fromkeys(kind.strip() for given in replay_faults or () for kind in given.split(",") if kind.strip()))
    if replay_faults is not None and not kinds:
        fail("--replay-faults needs a fault kind, e.g. --replay-faults no_hello")
    options = RunOptions(workers=workers, log_dir=log, update=update, cluster=cluster, html_page=html_page,
                         replay_faults=kinds, unchecked=unchecked)
    stop_on_sigterm()  # before the builds: a SIGTERM during one still ends it and what it started
    session = TournamentSession(config_path, options, say=_say, note=note)
    try:
        with session:
            results = session.results()
            page = LivePage(html_page, results, note) if html_page is not None else None
            try:
                with LiveBoard(results, console, on_refresh=page) as board:
                    outcome = session.play(board.update)
                    ignore_interrupts()  # every game is stored and every bot stopped: only the summary is left
            finally:
                console.print()  # past the live board's last line
            failed_starts = start_failure_words(session.start_failures(), session)
    except (KeyboardInterrupt, SystemExit) as exc:
        ignore_interrupts()  # a second Ctrl-C cut the message on how to resume
        console.print(f"[yellow]stopped[/yellow]: {session.kept_words()}; every bot was stopped.")
        console.print(f"resume with: {escape(session.resume_command())}", highlight=False)
        raise SystemExit(130 if isinstance(exc, KeyboardInterrupt) else exc.code) from None
    summary = outcome.summary
    if outcome.test is not None:
        _say(f"Early stopping (SPRT): {outcome.test.sentence()}")
    elif summary.played == 0 and not summary.void:
        _say(f"nothing to play: all {count(summary.total, 'game')} {'is' if summary.total == 1 else 'are'} "
             "already stored")
    # With --html the page was just written: a command that writes it again was one line too many.
    report = (f"the page {html_page} is the final report" if page is not None and not page.broken
              else f"Report: {command('arena', 'standings', config_path, '-o', 'standings.html')}")
    _say(f"done: {count(summary.already_done + summary.played, 'game')} stored ({summary.played} played now). {report}")
    problems = [words for words in (void_words(summary, session), failed_starts) if words]
    if problems:
        fail("\n".join(problems), code=1)


def _say(line: str) -> None:
    console.print(escape(visible_lines(line)), highlight=False)

