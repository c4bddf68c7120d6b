"""Shared pieces of the CLI: clean errors, option parsing, signal handling. Typer lives only in the CLI layer."""

from __future__ import annotations

import re

import functools
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, Callable, NoReturn, Optional

import typer
from rich.console import Console
from rich.markup import escape

from arena.errors import ArenaError
from arena.wording import shell_command, visible_lines
from arena.game.rules import GAMES_RANGE
from arena.play.records import MOVE_TIMEOUT_RANGE_S, STARTUP_TIMEOUT_RANGE_S, time_limit_problem
from arena.tournament.config import SEED_RANGE
from arena.tournament.option_pairs import OptionError, grants, rule_options

# soft_wrap: messages name commands and paths, which a line break inserted at 80 columns
# (the width Rich assumes when output is piped) would cut in two.
console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)


UsageError = OptionError  # bad input from the user: shown as one clear message
parse_rule_options, parse_grants = rule_options, grants  # `--rule OPTION=VALUE`, `--grant BOT.KEY=VALUE`


def fail(message: str, code: int = 2) -> NoReturn:
    """Print an error that names the problem, and exit non-zero (never a traceback)."""
    # A message quotes paths and bot output: "[/x]" in them is not Rich markup, and an escape
    # sequence in a file's name or a build's output must not reach the terminal.
    err_console.print(f"[bold red]error:[/bold red] {escape(visible_lines(message))}", highlight=False)
    raise SystemExit(code)


def note(line: str) -> None:
    """A note for the person at the terminal (on stderr, so that a report on stdout stays clean)."""
    err_console.print(escape(f"note: {visible_lines(line)}"), highlight=False)


def worded(function: Callable[..., Any]) -> Callable[..., Any]:
    """A command whose ArenaError (bad input, a stopped run: arena/errors.py) ends it in its
    sentence and its exit code: the one place where the layers' errors meet the terminal."""
    @functools.wraps(function)
    def run_worded(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except ArenaError as exc:
            if exc.exit_code == 130:  # stopped by a Ctrl-C: a second one must not cut its message
                ignore_interrupts()
            fail(str(exc), exc.exit_code)
    return run_worded


def word_every_command(app: typer.Typer) -> None:
    """Make every command of `app` and of its groups `worded`: called once, when all are registered."""
    for info in app.registered_commands:
        if info.callback is not None and not hasattr(info.callback, "__wrapped__"):
            info.callback = worded(info.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            word_every_command(group.typer_instance)


command = shell_command  # the CLI's name for it


def stop_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so that `finally` blocks run and every bot is closed."""
    own_pid = os.getpid()

    def handler(signum, frame):  # noqa: ARG001
        if os.getpid() != own_pid:  # a bot's child before its exec, running an at-fork hook: no traceback there
            os._exit(128 + signum)
        raise SystemExit(128 + signum)

    if sys.platform != "win32":
        signal.signal(signal.SIGTERM, handler)


def ignore_interrupts() -> None:
    """From here on a Ctrl-C or SIGTERM has nothing left to stop (the work is done, or stopped and
    being reported): ignored, so that the closing message comes out whole and the exit code says
    how the run ended. A Ctrl-C just after the last game once gave "done" and exit code 130."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform != "win32":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


GrantOption = Annotated[
    Optional[list[str]],
    typer.Option("--grant", help="Grant a bot more than the default ceilings, BOT.KEY=VALUE (repeatable): a limit "
                                 "(--grant java_bot.address_space_mb=16384) or a tcp endpoint (--grant b.zmq_tcp=true). "
                                 "See arena docs sandbox."),
]


def seconds_within(bounds_s: tuple[float, float]):
    def check(value: float) -> float:
        problem = time_limit_problem(value, bounds_s)  # also refuses nan and inf, which click lets through
        if problem:
            raise typer.BadParameter(problem)
        return value
    return check


_DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$")
MAX_DURATION_S = 366 * 86400  # a league of a year at most per run: beyond it a typo, not a plan


def duration_s(text: str | None, option: str = "--until") -> float | None:
    """`--until`'s value: 2h, 90m, 1h30m, 45s, 3d or plain seconds, as seconds (BadParameter: why not)."""
    if text is None:
        return None
    hint = f"'{option}'"  # read in the command's body: Click cannot name the option itself
    found = _DURATION.match(text.strip().lower())
    if not text.strip() or found is None or not any(found.groups()):
        raise typer.BadParameter(f"{text!r}: expected a duration such as 2h, 90m, 1h30m, 45s or 3d", param_hint=hint)
    days, hours, minutes, seconds = (int(part or 0) for part in found.groups())
    total = days * 86400 + hours * 3600 + minutes * 60 + seconds
    if not 1 <= total <= MAX_DURATION_S:
        raise typer.BadParameter(f"{text!r}: expected a duration from 1s to 366d", param_hint=hint)
    return float(total)


RuleOption = Annotated[
    Optional[list[str]],
    typer.Option("--rule", "-r", help="A rule option, OPTION=VALUE (repeatable), e.g. --rule ace_high=true."),
]
MoveTimeout = Annotated[float, typer.Option(callback=seconds_within(MOVE_TIMEOUT_RANGE_S),
                                            help="Seconds a bot has for each move.")]
StartupTimeout = Annotated[float, typer.Option(callback=seconds_within(STARTUP_TIMEOUT_RANGE_S),
                                               help="Seconds a bot has to answer hello.")]


def refuse_own_file(output: Path, config) -> None:
    """Fail if `output` (a report, a games page) is the tournament's own config or results file."""
    from arena.tournament.opening import own_file

    own = own_file(output, config)
    if own is not None:
        fail(f"-o {output} is this tournament's own {own}; write the report to another file")


# Every number a command takes has a range (a 23-digit --games once played until killed, and a
# 31-digit --limit ended in a traceback): the game's and the config's own where they have one.
SEED_MIN, SEED_MAX = SEED_RANGE
GAMES_MIN, GAMES_MAX = GAMES_RANGE
LIST_LIMIT_MAX = 1_000_000_000  # `arena games --limit`: more than any results file holds


def usable_log_dir(log: Path | None) -> Path | None:
    """The --log folder, made now (arena/play/protocol_log.py); None when none was given."""
    from arena.play.protocol_log import usable_log_folder

    return None if log is None else usable_log_folder(log)
