"""Shared pieces of the CLI: clean errors, option parsing, signal handling. Typer lives only in the CLI layer."""

from __future__ import annotations

import os
import shlex
import signal
import sys
from pathlib import Path
from typing import Annotated, NoReturn, Optional, Sequence

import typer
from rich.console import Console
from rich.markup import escape

from arena.play.records import MOVE_TIMEOUT_RANGE_S, STARTUP_TIMEOUT_RANGE_S, time_limit_problem

# soft_wrap: messages name commands and paths, which a line break inserted at 80 columns
# (the width Rich assumes when output is piped) would cut in two.
console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)


class UsageError(Exception):
    """Bad input from the user (an argument, a config, a manifest): shown as one clear message."""


def fail(message: str, code: int = 2) -> NoReturn:
    """Print an error that names the problem, and exit non-zero (never a traceback)."""
    # escape: a message quotes paths and bot output, and "[/x]" in them is not Rich markup
    err_console.print(f"[bold red]error:[/bold red] {escape(message)}", highlight=False)
    raise SystemExit(code)


def command(*words: object) -> str:
    """A command to suggest, quoted for a POSIX shell so it can be pasted as it is (a config path
    with a space in it broke the pasted resume command)."""
    return " ".join(shlex.quote(str(w)) for w in words)


def parse_rule_options(pairs: Sequence[str] | None) -> dict[str, str]:
    """`--rule OPTION=VALUE` pairs into a mapping; the rules value validates names and values."""
    options: dict[str, str] = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--rule takes OPTION=VALUE, got {pair!r}")
        if name.strip() in options:
            raise UsageError(f"--rule {name.strip()} is given twice ({options[name.strip()]} and {value.strip()})")
        options[name.strip()] = value.strip()
    return options


def stop_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so that `finally` blocks run and every bot is closed."""
    def handler(signum, frame):  # noqa: ARG001
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


def prepare_or_fail(manifest, settings, isolation=None, config_path=None):
    """The bot ready to run (arena/submission/prepared.py): what its manifest asks checked against
    what `settings` grant, then its files copied and built once per version, with a clean error for
    each way that fails; a Ctrl-C during a build says what it stopped (its processes are killed by
    then). It used to end the command with exit code 130 and no word."""
    from arena.play.startup import granted, refused_words
    from arena.sandbox.limits import LimitRefused
    from arena.submission.manifest import ManifestError
    from arena.submission.prepared import prepare_bot

    try:
        given = granted(manifest, settings)
    except LimitRefused as exc:
        fail(refused_words(manifest, exc, config_path))
    try:
        return prepare_bot(manifest, isolation=isolation, limits=given.limits)
    except ManifestError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        ignore_interrupts()  # a second Ctrl-C would cut the message
        fail(f"interrupted during the build of {manifest.name} ({' '.join(manifest.build)}): the build was "
             "stopped, and no game was played", code=130)


def parse_grants(pairs: Sequence[str] | None) -> dict[str, dict[str, object]]:
    """`--grant BOT.KEY=VALUE` pairs into grants by bot name (docs/sandbox.md): a limit's ceiling
    for that bot (a whole number), zmq_tcp or no_network (true or false)."""
    from arena.sandbox.limits import grant_problem

    grants: dict[str, dict[str, object]] = {}
    for pair in pairs or ():
        left, sep, text = pair.partition("=")
        name, dot, key = left.strip().rpartition(".")
        if not sep or not dot or not name or not key:
            raise UsageError(f"--grant takes BOT.KEY=VALUE, e.g. --grant java_bot.address_space_mb=16384; got {pair!r}")
        value: object = text.strip()
        if value in ("true", "false"):
            value = value == "true"
        elif str(value).isdigit():
            value = int(str(value))
        problem = grant_problem({key: value})
        if problem:
            raise UsageError(f"--grant {pair}: {problem[1]}")
        grants.setdefault(name, {})[key] = value
    return grants


GrantOption = Annotated[
    Optional[list[str]],
    typer.Option("--grant", help="Grant a bot more than the default ceilings, BOT.KEY=VALUE (repeatable): a limit "
                                 "(--grant java_bot.address_space_mb=16384) or a tcp endpoint (--grant b.zmq_tcp=true). "
                                 "See arena docs sandbox."),
]


def _seconds_within(bounds_s: tuple[float, float]):
    def check(value: float) -> float:
        problem = time_limit_problem(value, bounds_s)  # also refuses nan and inf, which click lets through
        if problem:
            raise typer.BadParameter(problem)
        return value
    return check


RuleOption = Annotated[
    Optional[list[str]],
    typer.Option("--rule", "-r", help="A rule option, OPTION=VALUE (repeatable), e.g. --rule ace_high=true."),
]
MoveTimeout = Annotated[float, typer.Option(callback=_seconds_within(MOVE_TIMEOUT_RANGE_S),
                                            help="Seconds a bot has for each move.")]
StartupTimeout = Annotated[float, typer.Option(callback=_seconds_within(STARTUP_TIMEOUT_RANGE_S),
                                               help="Seconds a bot has to answer hello.")]


def usable_log_dir(log: Path | None) -> Path | None:
    """Make the --log folder now, so that a bad one is a message before any bot starts, not a
    traceback in the middle of a match (or in a tournament worker)."""
    if log is None:
        return None
    if log.exists() and not log.is_dir():
        fail(f"--log {log}: not a folder (log files go into a folder, made if missing)")
    try:
        log.mkdir(parents=True, exist_ok=True)
        probe = log / f".arena-log-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        fail(f"--log {log}: cannot write log files there ({exc.strerror or exc})")
    return log
