"""CLI commands for tournaments: `tournament new` and `tournament run` (reports: arena/cli/reports.py,
`games`: arena/cli/games.py)."""

from __future__ import annotations

import inspect
import time
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Optional

import typer
from rich.markup import escape

from arena.cli.common import (command, console, fail, ignore_interrupts, note, seconds_within,
                               stop_on_sigterm)
from arena.tournament.config_keys import KEYS, MAX_TOURNAMENT_GAMES, ConfigKey, Seconds, Whole, Words
from arena.wording import count, visible_lines

tournament_app = typer.Typer(help="Create and run tournaments: round robin, balanced, gauntlet or league.",
                             no_args_is_help=True)

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


@tournament_app.command("freeze")
def freeze(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The league's config (TOML).")],
    undo: Annotated[bool, typer.Option("--undo", help="Unfreeze: the league takes bots and versions again and "
                                                       "chooses its tables (the final round robin's games stay).")] = False,
) -> None:
    """A league's deadline: no bot enters and no new version is taken; the final round robin is played."""
    from arena.tournament.config_write import set_frozen
    from arena.tournament.league_final import freeze_words
    from arena.tournament.opening import config_file, load_tournament

    path = config_file(config_path)
    changed = set_frozen(path, not undo)
    _say(freeze_words(path, load_tournament(path)[0], changed, frozen=not undo))


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
    until: Annotated[Optional[str], typer.Option(
        "--until", metavar="DURATION", help="A league: stop choosing tables after this long (2h, 90m, 1h30m, 45s, "
                                            "3d); the tables under way are finished. Default: until Ctrl-C.")] = None,
    games: Annotated[Optional[int], typer.Option(
        "--games", min=1, max=MAX_TOURNAMENT_GAMES, help="A league: stop choosing tables once this many games were "
                                                         "handed out by this run (whole tables).")] = None,
) -> None:
    """Run (or resume) a tournament: plays only the games not yet stored. A league plays until stopped."""
    from arena.tournament.session import RunOptions

    kinds = tuple(dict.fromkeys(kind.strip() for given in replay_faults or () for kind in given.split(",") if kind.strip()))
    if replay_faults is not None and not kinds:
        fail("--replay-faults needs a fault kind, e.g. --replay-faults no_hello")
    options = RunOptions(workers=workers, log_dir=log, update=update, cluster=cluster, html_page=html_page,
                         replay_faults=kinds, unchecked=unchecked, until_s=_duration_s(until), games=games)
    stop_on_sigterm()  # before the builds: a SIGTERM during one still ends it and what it started
    started, played = time.monotonic(), 0
    outcome, session, page = _play(config_path, options)
    while outcome.reopen:  # a league took a change (a bot added, a version, the freeze): it goes on with it
        _say(f"{outcome.league}; the league goes on")
        played += outcome.summary.played
        # From the command's options each time: a part's own were already cut by the parts before it.
        outcome, session, page = _play(config_path, options.next_part(played, time.monotonic() - started))
    _summary(outcome, session, page, config_path, played)


def _play(config_path: Path, options: Any) -> tuple[Any, Any, Any]:
    """One session of the run, its live board (and page) drawn: the outcome, the session, the page."""
    from arena.report.live import LiveBoard
    from arena.report.live_page import LivePage
    from arena.tournament.run_words import start_failure_words
    from arena.tournament.session import TournamentSession

    session = TournamentSession(config_path, options, say=_say, note=note)
    try:
        with session:
            results = session.results()
            page = LivePage(options.html_page, results, note) if options.html_page is not None else None
            try:
                with LiveBoard(results, console, on_refresh=page) as board:
                    outcome = session.play(board.update)
                    if not outcome.reopen:  # a league going on with a change still stops on Ctrl-C
                        ignore_interrupts()  # every game is stored and every bot stopped: only the summary is left
            finally:
                console.print()  # past the live board's last line
            session.failed_starts = start_failure_words(session.start_failures(), session)
    except (KeyboardInterrupt, SystemExit) as exc:
        ignore_interrupts()  # a second Ctrl-C cut the message on how to resume
        console.print(f"[yellow]stopped[/yellow]: {session.kept_words()}; every bot was stopped.")
        console.print(f"resume with: {escape(session.resume_command())}", highlight=False)
        raise SystemExit(130 if isinstance(exc, KeyboardInterrupt) else exc.code) from None
    return outcome, session, page


def _summary(outcome: Any, session: Any, page: Any, config_path: Path, played_before: int) -> None:
    """The run's last lines, and its exit code when games are void or bots never started."""
    from arena.tournament.run_words import end_words

    # With --html the page was just written: a command that writes it again was one line too many.
    lines, problems = end_words(outcome, session, config_path, page.path if page is not None and not page.broken
                                else None, played_before)
    for line in lines:
        _say(line)
    if problems:
        fail("\n".join(problems), code=1)


def _duration_s(text: str | None) -> float | None:
    from arena.wording import duration_s

    try:
        return None if text is None else duration_s(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--until'") from None


def _say(line: str) -> None:
    console.print(escape(visible_lines(line)), highlight=False)

