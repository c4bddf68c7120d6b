"""CLI commands for tournaments: `tournament new` and `tournament run` (reports: arena/cli/reports.py,
`games`: arena/cli/games.py)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Optional

import typer
from rich.markup import escape

from arena.cli.common import (command, console, fail, ignore_interrupts, note, seconds_within,
                               stop_on_sigterm)
from arena.tournament.config_keys import KEYS, MAX_TOURNAMENT_GAMES, ConfigKey, Seconds, Whole, Words
from arena.wording import count, visible_lines

tournament_app = typer.Typer(help="Create and run tournaments: round robin, balanced or gauntlet.", no_args_is_help=True)

def register(app: typer.Typer) -> None:
    app.add_typer(tournament_app, name="tournament")


def _key_option(key: ConfigKey) -> inspect.Parameter:
    """The option of `tournament new` that writes `key`, from its entry of the keys' table: its
    flags, help and default there, its type and range from the key's own parser."""
    option, parse = key.option, key.parse
    assert option is not None
    kind: Any = Path if option.path else str
    extra: dict[str, Any] = {}
    if isinstance(parse, Whole):
        # No count of a tournament is above its games: a bigger one is refused before any check.
        kind, extra = int, {"min": parse.low, "max": MAX_TOURNAMENT_GAMES if parse.high is None else parse.high}
    elif isinstance(parse, Seconds):
        kind, extra = float, {"callback": seconds_within(parse.bounds_s)}
    elif isinstance(parse, Words):
        kind = Literal.__getitem__(parse.words)
    if option.repeated:
        kind = list[str]
    required = option.default is None and key.required
    annotation: Any = Annotated[kind if required or option.default is not None else Optional[kind],
                                typer.Option(*option.flags, help=option.help, **extra)]
    return inspect.Parameter(key.leaf, inspect.Parameter.KEYWORD_ONLY, annotation=annotation,
                             default=inspect.Parameter.empty if required else option.default)


def _options_from_keys(function: Callable[..., None]) -> Callable[..., None]:
    """`function(path, force, **given)` with an option for each key of the table that has one."""
    path, force = list(inspect.signature(function, eval_str=True).parameters.values())[:2]
    options = [_key_option(key) for key in KEYS if key.option]
    setattr(function, "__signature__", inspect.Signature([path, *options, force.replace(kind=inspect.Parameter.KEYWORD_ONLY)]))
    return function


@tournament_app.command("new")
@_options_from_keys
def new(
    path: Annotated[Path, typer.Argument(help="Where to write the config: a path (tournaments/mine.toml), or a bare name (mine) for the workspace's tournaments/mine.toml.")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,  # the last option
    **given: Any,
) -> None:
    """Write a tournament config from options."""
    from arena.tournament.config_write import config_path, write_config

    path = config_path(path)
    if path.exists() and not force:
        fail(f"{path} exists; use --force to overwrite it")
    manifests = write_config(path, {key.name: given[key.leaf] for key in KEYS if key.option})
    console.print(f"wrote {escape(str(path))}; run it with: {escape(command('arena', 'tournament', 'run', path))}", highlight=False)
    from arena.check.admission import unchecked_words

    for line in unchecked_words(manifests, path):  # the bots the run will refuse as they are now
        _say(line)


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

