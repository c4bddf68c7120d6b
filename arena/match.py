"""A table's bots: start or connect them, shake hands, play a match, and always tear them down.

`open_table` is a context manager: whatever happens inside (a bot fault, Ctrl-C, an
exception in the arena), every bot it started is told to quit and then closed, which
kills its whole process tree.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from arena import __version__, protocol
from arena.game import Event, Game, Rules
from arena.game.scoring import MatchScore, first_dealer
from arena.game.seeds import derive_seed
from arena.submission.manifest import BotManifest
from arena.wording import quoted
from arena.referee import QUOTED_CHARS, FaultKind, GameRecord, Seat, TimeLimits, close_transport, play_game, send_lines
from arena.transport.base import BotTimeout, Transport, TransportError
from arena.transport.pipe import PipeTransport
from arena.transport.bot_process import open_log_for_append
from arena.wording import count

# Bots get this long to exit after `quit` before the transport's terminate/kill sequence.
QUIT_GRACE_S = 0.5
# A bot lost in a game is started afresh before the next one; after this many failed starts in a
# row (the table's first start included) it stays out for the rest of the table: each failed
# start can cost the whole start-up limit.
MAX_FAILED_RESTARTS = 3


@dataclass(frozen=True, slots=True)
class BotSettings:
    """How the arena starts and watches bots."""

    limits: TimeLimits = TimeLimits()
    log_dir: Path | None = None  # protocol lines and bot stderr go here when set
    preexec: Callable[[], None] | None = None  # sandbox limits applied in the child (issue: sandbox)
    cpu: int | None = None  # pin the referee and its bots to one core (cheaper wake-ups)
    # Resource limits (arena/sandbox.py, docs/sandbox.md). `limits` above is the time limits, so the
    # sandbox gets its own fields: on by default; the organiser's overrides win over a manifest's [limits].
    sandbox: bool = True
    sandbox_limits: Mapping[str, Any] | None = None


# What the protocol log keeps of the bot's own lines. The arena's lines are bounded by the games,
# the bot's are not: a bot flooding duplicate answers once wrote 157 MB in one game. A normal bot
# sends well under 1 MB per table.
LOG_FROM_BOT_CAP_BYTES = 10_000_000
_LOG_BUDGET_LEFT: dict[str, int] = {}  # protocol log path -> bytes of the bot's lines it may still take


class LoggedTransport:
    """Wraps a transport and writes every line with a direction marker (`>` to bot, `<` from bot)."""

    def __init__(self, inner: Transport, path: Path, from_bot_cap_bytes: int = LOG_FROM_BOT_CAP_BYTES) -> None:
        self.inner = inner
        self._log = open_log_for_append(path, "a", encoding="utf-8", buffering=1)
        self._from_bot_cap = from_bot_cap_bytes
        # The budget is per log file, kept across restarts of the bot in this process: a bot that
        # floods and crashes would otherwise get a fresh 10 MB with every restart.
        self._path = str(path)
        _LOG_BUDGET_LEFT.setdefault(self._path, from_bot_cap_bytes)

    def send(self, line: str) -> None:
        self._log.write(f"> {line}\n")
        self.inner.send(line)

    def send_many(self, lines: list[str]) -> None:
        self._log.write("".join(f"> {line}\n" for line in lines))
        send_lines(self.inner, lines)

    def receive(self, timeout_s: float) -> str:
        try:
            line = self.inner.receive(timeout_s)
        except TransportError as exc:
            self._log.write(f"! {type(exc).__name__}: {exc}\n")
            raise
        left = _LOG_BUDGET_LEFT[self._path]
        if left > 0:
            left = _LOG_BUDGET_LEFT[self._path] = left - len(line) - 1
            self._log.write(f"< {line}\n" if left > 0 else
                            "! the bot's further lines are not logged: it sent more than "
                            f"{self._from_bot_cap} bytes\n")
        return line

    def close(self, grace_s: float = QUIT_GRACE_S) -> None:
        close_transport(self.inner, grace_s)
        with contextlib.suppress(OSError):
            self._log.close()

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


def open_transport(manifest: BotManifest, settings: BotSettings, label: str) -> Transport:
    """Start the bot (sandboxed, unless settings say not) or connect to its service; no line is sent."""
    if not settings.sandbox or manifest.is_service:
        return _start_raw(manifest, settings, label, settings.preexec)
    from arena.sandbox.guard import BotGuard, SandboxedTransport, network_needed
    from arena.sandbox.child import make_preexec
    from arena.sandbox.limits import resolve_limits

    try:
        limits = resolve_limits(manifest, settings.sandbox_limits)
    except ValueError as exc:
        raise OSError(f"bad sandbox limits: {exc}") from None
    guard = BotGuard(limits, network=network_needed(manifest))
    if settings.preexec is not None:
        guard.preexec = make_preexec(limits, network=guard.network, cgroup=guard.cgroup, extra=settings.preexec)
    try:
        transport = _start_raw(manifest, settings, label, guard.preexec)
    except BaseException:
        guard.close()
        raise
    guard.attach(getattr(transport, "_proc", None))
    return SandboxedTransport(transport, guard)  # type: ignore[return-value]


def _start_raw(manifest: BotManifest, settings: BotSettings, label: str, preexec) -> Transport:
    stderr_log = str(settings.log_dir / f"{label}.stderr.log") if settings.log_dir else None
    common = dict(max_line_bytes=protocol.MAX_BOT_LINE_BYTES, name=manifest.name)
    if manifest.transport == "zmq":
        from arena.transport.zmq import ZmqTransport  # zmq stays optional for pipe-only runs

        if manifest.endpoint and not manifest.command:
            keys = {}
            if manifest.server_public_key is not None:
                keys = dict(server_public_key=str(manifest.server_public_key),
                            client_cert_path=str(manifest.client_secret_key) if manifest.client_secret_key else None)
            return ZmqTransport.connect(manifest.endpoint, **keys, **common)
        return ZmqTransport.start(manifest.argv(), endpoint_kind=manifest.zmq_endpoint_kind, cwd=str(manifest.directory),
                                  stderr_log_path=stderr_log, preexec=preexec, **common)
    return PipeTransport.start(manifest.argv(), cwd=str(manifest.directory), stderr_log_path=stderr_log,
                               preexec=preexec, **common)


def start_bot(manifest: BotManifest, settings: BotSettings, label: str) -> Seat:
    """Start or connect one bot and send `hello`; the answer is read by `await_hello`.
    Never raises for a bot's fault: a bot that cannot start comes back as a dropped Seat."""
    seat = Seat(name=manifest.name, transport=None)
    try:
        transport = open_transport(manifest, settings, label)
    except (TransportError, OSError) as exc:
        seat.drop(f"cannot start: {exc}", FaultKind.NO_HELLO)
        return seat
    if settings.log_dir is not None:
        try:
            transport = LoggedTransport(transport, settings.log_dir / f"{label}.protocol.log")
        except OSError:
            pass  # e.g. the bot replaced its log with a FIFO: it plays on, unlogged
    seat.transport = transport
    try:
        transport.send(protocol.format_hello(__version__))
    except TransportError as exc:
        seat.drop(f"cannot send hello: {exc}{_start_up_output(seat, str(exc), read_more=True)}", FaultKind.NO_HELLO)
    return seat


def await_hello(seat: Seat, deadline: float, timeout_s: float) -> str:
    """Read the bot's `hello` by the start-up deadline; returns its name ("" if it failed)."""
    if not seat.alive:
        return ""
    try:
        line = seat.transport.receive(max(0.0, deadline - time.monotonic()))
        return protocol.parse_bot_hello(line).name
    except BotTimeout as exc:
        # What the bot sent so far, else the transport's own guess at the usual cause.
        hint = f"it sent {exc.unfinished}" if exc.unfinished else getattr(seat.transport, "NO_HELLO_HINT", "")
        seat.drop(f"no hello within {timeout_s:g} s" + (f" ({hint})" if hint else ""), FaultKind.NO_HELLO)
    except TransportError as exc:
        seat.drop(f"no hello: {exc}{_start_up_output(seat, str(exc), read_more=False)}", FaultKind.NO_HELLO)
    except protocol.ProtocolError as exc:
        seat.drop(f"bad hello: {exc}{_start_up_output(seat, str(exc), read_more=True)}", FaultKind.NO_HELLO)
    return ""


# What a bot that failed its start-up wrote besides the line already quoted: a runtime that
# cannot start (a JVM refused memory, say) prints its reason a line or two later, on stdout or
# stderr, and then exits; the first line alone ("Error occurred during initialization of VM")
# does not say why.
START_UP_MORE_LINES = 3
START_UP_MORE_WAIT_S = 0.5


def _start_up_output(seat: Seat, reason: str, read_more: bool) -> str:
    """What else the bot wrote, to follow `reason` (a hint too when it reads as memory refused)."""
    transport = seat.transport
    if transport is None:
        return ""
    parts = []
    if read_more:
        lines = []
        deadline = time.monotonic() + START_UP_MORE_WAIT_S
        with contextlib.suppress(TransportError):
            while len(lines) < START_UP_MORE_LINES and time.monotonic() < deadline:
                lines.append(transport.receive(max(0.0, deadline - time.monotonic())))
        if lines:
            parts.append("then on stdout: " + " | ".join(quoted(line.strip(), QUOTED_CHARS) for line in lines))
    stderr_tail = getattr(transport, "stderr_tail", None)
    if stderr_tail is not None and "its stderr says:" not in reason:
        with contextlib.suppress(Exception):  # a log that cannot be read only loses the hint
            last = [line for line in stderr_tail(2000).splitlines() if line.strip()][-START_UP_MORE_LINES:]
            if last:
                parts.append("stderr ends: " + " | ".join(quoted(line.strip(), QUOTED_CHARS) for line in last))
    guard = getattr(transport, "guard", None)  # through a LoggedTransport too (it passes attributes on)
    if guard is not None and _OUT_OF_MEMORY_AT_START.search(" ".join([reason, *parts])):
        parts.append(f"it runs with address_space_mb = {guard.limits.address_space_mb} per process: a JVM "
                     "needs [limits] address_space_mb = 4096 in its bot.toml (docs/sandbox.md)")
    return "; " + "; ".join(parts) if parts else ""


# How runtimes say they could not reserve memory or start a thread at start-up (RLIMIT_AS):
# the JVM, Go, glibc's thread creation, Python, C++.
_OUT_OF_MEMORY_AT_START = re.compile(
    r"initialization of VM|could not (allocate|reserve)|pthread_create|out of memory|cannot allocate|"
    r"MemoryError|bad_alloc|mmap", re.IGNORECASE)


def connect_bot(manifest: BotManifest, settings: BotSettings, label: str) -> tuple[Seat, str]:
    """Start or connect one bot and shake hands (start-up limit: settings.limits.startup_timeout_s)."""
    timeout_s = settings.limits.startup_timeout_s
    deadline = time.monotonic() + timeout_s
    seat = start_bot(manifest, settings, label)
    return seat, await_hello(seat, deadline, timeout_s)


def close_seat(seat: Seat) -> None:
    """Ask the bot to quit, then close its transport (terminate, grace, kill the whole tree)."""
    transport = seat.transport
    if transport is None:
        return
    if seat.alive:
        with contextlib.suppress(TransportError, OSError):
            send_lines(transport, seat.outbox + [protocol.format_quit()])
    seat.outbox = []
    close_transport(transport, QUIT_GRACE_S)
    seat.alive = False


def tell_match_start(seats: Sequence[Seat], match_line: str) -> None:
    """Send `match` (protocol.md section 4) to every bot still there."""
    for seat in seats:
        if seat.alive:
            with contextlib.suppress(TransportError):
                send_lines(seat.transport, [match_line])


def revive_seats(seats: Sequence[Seat], match_line: str) -> None:
    """Before a game: give every bot lost in an earlier game (crash, hang, flood) a fresh process.

    As cutechess-cli restarts a crashed engine, one game's fault costs that game only. It also
    keeps resumed tournaments exact: a table resumed mid-way starts fresh bots, so an
    uninterrupted run must give a lost bot a fresh start before each game too.
    """
    for seat in seats:
        if seat.alive or seat.restart is None or seat.failed_restarts >= MAX_FAILED_RESTARTS:
            continue
        if seat.transport is not None:
            close_transport(seat.transport, 0.0)  # it already failed: no grace to wait out
        fresh = seat.restart()
        seat.transport = fresh.transport
        seat.outbox = []
        seat.next_request_id = 1
        seat.timeouts_in_a_row = 0
        seat.awaiting_late.clear()  # ids of the lost process: the fresh one starts again at 1
        if not fresh.alive:
            if fresh.transport is not None:  # e.g. alive but silent: it must not idle on the table's core
                close_transport(fresh.transport, 0.0)
                seat.transport = None
            seat.failed_restarts += 1
            failed = seat.failed_restarts  # a failed first start counts too: "restart 2" was the first restart
            if failed >= MAX_FAILED_RESTARTS:  # worded for the games after too, where none is tried
                seat.dead_reason = (f"not started again in this match after {failed} failed starts in a row; "
                                    f"the last: {fresh.dead_reason}")
            elif failed == 1:
                seat.dead_reason = f"its fresh start failed: {fresh.dead_reason}"
            else:
                seat.dead_reason = f"{failed} failed starts in a row, the last: {fresh.dead_reason}"
            seat.dead_kind = fresh.dead_kind
            continue
        seat.alive, seat.dead_reason = True, ""
        seat.failed_restarts = 0
        seat.restarts += 1
        tell_match_start([seat], match_line)


@contextlib.contextmanager
def open_table(manifests: Sequence[BotManifest], settings: BotSettings, labels: Sequence[str] | None = None) -> Iterator[list[Seat]]:
    """Start every bot of a table (once per table, not per game) and close them all on exit."""
    if settings.cpu is not None and hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {settings.cpu})  # the bots inherit it
    if settings.log_dir is not None:
        settings.log_dir.mkdir(parents=True, exist_ok=True)
    labels = list(labels or [f"seat{i}-{m.name}" for i, m in enumerate(manifests)])
    seats: list[Seat] = []
    try:
        # All bots start at once and then answer hello: a table's start-up costs about one
        # bot's start-up, not the sum (each has its own start-up limit from its own start).
        timeout_s = settings.limits.startup_timeout_s
        deadlines = []
        for manifest, label in zip(manifests, labels):
            deadlines.append(time.monotonic() + timeout_s)
            seats.append(start_bot(manifest, settings, label))
        for seat, deadline in zip(seats, deadlines):
            await_hello(seat, deadline, timeout_s)
        for seat, manifest, label in zip(seats, manifests, labels):
            allow_restarts(seat, manifest, settings, label)
        yield seats
    finally:
        for seat in seats:
            close_seat(seat)


def allow_restarts(seat: Seat, manifest: BotManifest, settings: BotSettings, label: str,
                   on_start: Callable[[Seat], None] | None = None) -> None:
    """Let `revive_seats` start this bot afresh before a game after it was lost (`on_start` sees
    each fresh start). Every bot the match layer starts gets this: one game's fault costs that
    game only."""

    def restart() -> Seat:
        fresh = connect_bot(manifest, settings, label)[0]
        if on_start is not None:
            on_start(fresh)
        return fresh

    seat.restart = restart
    seat.failed_restarts = 0 if seat.alive else 1  # a failed first start counts as one


def handshake_faults(seats: Sequence[Seat]) -> list[tuple[int, str]]:
    """Seats whose bot was already lost before the first game, with the reason."""
    return [(i, s.dead_reason) for i, s in enumerate(seats) if not s.alive]


@dataclass(frozen=True, slots=True)
class MatchResult:
    records: tuple[GameRecord, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    start_faults: tuple[tuple[int, str], ...]


def play_match(
    seats: Sequence[Seat],
    rules: Rules,
    seed: int,
    *,
    games: int | None = None,
    limits: TimeLimits = TimeLimits(),
    on_game: Callable[[GameRecord, MatchScore], None] | None = None,
    on_event: Callable[[Event], None] | None = None,
    keep_going: Callable[[GameRecord], bool] | None = None,
) -> MatchResult:
    """A match at one table (R54-R57): until the scoring says it is over, or exactly `games` games
    (fewer if `keep_going`, asked after each game, says no)."""
    start_faults = tuple(handshake_faults(seats))
    match_line = protocol.format_match_start(rules, games)
    tell_match_start(seats, match_line)
    score = MatchScore(rules, first_dealer(seed, rules.num_players))
    records = []
    number = 0
    while (games is None and not score.is_over) or (games is not None and number < games):
        number += 1
        game = Game.new(rules, derive_seed(seed, "game", number), score.dealer)
        revive_seats(seats, match_line)
        record = play_game(game, seats, number=number, limits=limits, on_event=on_event)
        score.record(record.outcome)
        records.append(record)
        if on_game is not None:
            on_game(record, score)  # the score as it stands after this game
        if keep_going is not None and not keep_going(record):
            break
    winners = score.winners
    for seat in seats:
        if seat.alive:
            with contextlib.suppress(TransportError):
                send_lines(seat.transport, seat.outbox + [protocol.format_match_over(score.totals, winners)])
                seat.outbox = []
    return MatchResult(tuple(records), tuple(score.totals), winners, start_faults)

