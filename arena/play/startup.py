"""Starting one bot: open its transport (sandboxed, unless the settings say not), log it, send
`hello`, read the answer by the start-up limit, and say why it failed when it does, with what
the bot wrote (protocol.md section 3). A bot's fault never raises out of here: it comes back as
a dropped `Seat`."""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from arena import __version__, protocol
from arena.play.protocol_log import LoggedTransport
from arena.play.records import QUOTED_CHARS, FaultKind, TimeLimits
from arena.play.seat import Seat
from arena.sandbox.limits import Granted, LimitRefused
from arena.submission.manifest import BotManifest
from arena.transport.base import MACHINE_ERRNOS, BotTimeout, ServiceOut, Transport, TransportError, Unplayable
from arena.transport.pipe import PipeTransport
from arena.wording import quoted

if TYPE_CHECKING:  # the guard is imported where a bot is sandboxed, not for a pipe-only check
    from arena.sandbox.guard import BotGuard
    from arena.sandbox.isolation import Isolation


@dataclass(frozen=True, slots=True)
class BotSettings:
    """How the arena starts and watches bots."""

    limits: TimeLimits = TimeLimits()
    log_dir: Path | None = None  # protocol lines and bot stderr go here when set
    preexec: Callable[[], None] | None = None  # run in the bot's child before exec, after the sandbox's own
    cpu: int | None = None  # pin the referee and its bots to one core (cheaper wake-ups)
    # Resource limits (arena/sandbox/, docs/sandbox.md). `limits` above is the time limits, so the
    # sandbox gets its own fields: on by default. `sandbox_limits`: the organiser's ceilings for
    # every bot (a tournament's [sandbox]); `grants`: by bot name, what the organiser grants one bot
    # beyond them ([grant.NAME], --grant). A bot runs with what its manifest asks, within them.
    sandbox: bool = True
    sandbox_limits: Mapping[str, Any] | None = None
    grants: Mapping[str, Mapping[str, Any]] | None = None
    # Whether a sandboxed bot sees only its own folder (arena/sandbox/isolation.py): a mode, "auto"
    # where bubblewrap works here or "off" (a tournament with "required" refuses to start without
    # it), or the Isolation a tournament's parent found, so that its records say what was used.
    isolation: Isolation | str = "auto"
    # By bot name: why a bot cannot be started here at all (a cluster worker could not unpack or
    # build it); its seats are dropped at every start, as a bot that cannot start is.
    unavailable: Mapping[str, str] | None = None
    # Bots whose retry window of this run is spent (a start of theirs was void after it, at an
    # earlier table): a service of theirs out of reach is now charged, not void (protocol.md section 9).
    retries_spent: frozenset[str] = frozenset()


def granted(manifest: BotManifest, settings: BotSettings) -> Granted:
    """What the organiser grants this bot (arena/sandbox/limits.py `grant`): LimitRefused for what
    its manifest asks beyond its ceilings. Commands refuse such a bot before any game; here it
    cannot start."""
    from arena.sandbox.guard import tcp_asked
    from arena.sandbox.limits import ceilings_from, grant

    own = (settings.grants or {}).get(manifest.name) or {}
    return grant(dict(manifest.limits), ceilings_from(settings.sandbox_limits, own),
                 tcp_asked=tcp_asked(manifest), tcp_granted=bool(own.get("zmq_tcp")))


def refused_words(manifest: BotManifest, exc: LimitRefused, config_path: Path | None = None) -> str:
    """A manifest that asks beyond what is granted (a LimitRefused), in one sentence: the file, the
    key, the asked value, the ceiling, and how the organiser grants it: in the tournament's config,
    or with --grant for a command without one (docs/sandbox.md)."""
    key = "zmq_endpoint_kind" if exc.key == "zmq_tcp" else f"limits.{exc.key}"
    if config_path is None:
        value = "true" if exc.key == "zmq_tcp" else "false" if exc.key == "no_network" else "VALUE"
        how = f"to grant it, give --grant {manifest.name}.{exc.key}={value}"
    elif exc.key == "zmq_tcp":
        how = f"to grant it, add [grant.{manifest.name}] zmq_tcp = true to {config_path}"
    else:
        how = (f"to grant it, raise the ceiling in {config_path}: [sandbox] {exc.key} for every bot, or "
               f"[grant.{manifest.name}] {exc.key} for this one")
    return f"{manifest.path}: key {key!r}: {exc}; {how} (docs/sandbox.md)"


def open_transport(manifest: BotManifest, settings: BotSettings, label: str) -> Transport:
    """Start the bot (sandboxed, unless settings say not) or connect to its service; no line is
    sent. LimitRefused for a manifest that asks beyond its ceilings (no process is started)."""
    return _open(manifest, settings, label)[0]


def _open(manifest: BotManifest, settings: BotSettings, label: str) -> tuple[Transport, BotGuard | None]:
    """The bot's transport, and the guard that watches it where it is sandboxed."""
    if not settings.sandbox or manifest.is_service:
        return _start_raw(manifest, settings, label, settings.preexec), None
    from arena.sandbox.guard import BotGuard
    from arena.sandbox.sandboxed import SandboxedTransport
    from arena.sandbox.isolation import find_isolation

    given = granted(manifest, settings)
    found = settings.isolation
    isolation = find_isolation(found) if isinstance(found, str) else found
    # A granted tcp endpoint: joined to the arena alone under isolation; without it, the host's.
    network = not given.limits.no_network or (given.tcp and not isolation.active)
    guard = BotGuard(given.limits, network=network, isolation=isolation, folder=manifest.directory,
                     writable_folder=manifest.writable_folder, relay=given.tcp, extra_preexec=settings.preexec,
                     ceilings=given.ceilings)
    try:
        transport = _start_raw(manifest, settings, label, guard.preexec, guard)
    except BaseException:
        guard.close()
        raise
    guard.attach(transport.process)
    return SandboxedTransport(transport, guard), guard


def _start_raw(manifest: BotManifest, settings: BotSettings, label: str, preexec: Callable[[], Any] | None,
               guard: BotGuard | None = None) -> Transport:
    stderr_log = str(settings.log_dir / f"{label}.stderr.log") if settings.log_dir else None
    limit, name = protocol.MAX_BOT_LINE_BYTES, manifest.name
    isolated = guard is not None and guard.isolation is not None
    if guard is not None and not isolated:
        manifest = replace(manifest, directory=guard.run_folder() or manifest.directory)  # a copy it may write in
    env = guard.environment() if guard is not None and isolated else None
    sandbox_argv = guard.wrap if guard is not None and isolated else None
    if manifest.transport == "zmq":
        from arena.transport.zmq import ZmqTransport  # zmq stays optional for pipe-only runs

        if manifest.endpoint and not manifest.command:
            public = str(manifest.server_public_key) if manifest.server_public_key is not None else None
            secret = str(manifest.client_secret_key) if manifest.client_secret_key is not None else None
            return ZmqTransport.connect(manifest.endpoint, server_public_key=public, client_cert_path=secret,
                                        max_line_bytes=limit, name=name)
        return ZmqTransport.start(manifest.argv(), endpoint_kind=manifest.zmq_endpoint_kind, cwd=str(manifest.directory),
                                  stderr_log_path=stderr_log, preexec=preexec, env=env, sandbox_argv=sandbox_argv,
                                  max_line_bytes=limit, name=name)
    return PipeTransport.start(manifest.argv(), cwd=str(manifest.directory), stderr_log_path=stderr_log,
                               preexec=preexec, env=env, sandbox_argv=sandbox_argv, max_line_bytes=limit, name=name)


def start_bot(manifest: BotManifest, settings: BotSettings, label: str) -> Seat:
    """Start or connect one bot and send `hello`; the answer is read by `await_hello`.
    Never raises for a bot's fault: a bot that cannot start comes back as a dropped Seat."""
    seat = Seat(name=manifest.name, transport=None, keep_stderr=settings.log_dir is not None)
    missing = (settings.unavailable or {}).get(manifest.name)
    if missing:
        seat.drop(f"cannot start: {missing}", FaultKind.NO_HELLO)
        return seat
    try:
        transport, seat.guard = _open(manifest, settings, label)
    except LimitRefused as exc:  # commands refuse such a bot before any game: here, it cannot start
        seat.drop(f"cannot start: {manifest.path}: {exc}", FaultKind.NO_HELLO)
        return seat
    except (TransportError, OSError) as exc:
        _drop_at_start(seat, f"cannot start: {exc}", exc, settings)
        return seat
    if settings.log_dir is not None:
        try:
            transport = LoggedTransport(transport, settings.log_dir / f"{label}.protocol.log")
        except OSError:
            pass  # e.g. the bot replaced its log with a FIFO: it plays on, unlogged
    seat.transport = transport
    try:
        transport.send(protocol.format_hello(__version__))
    except Unplayable as exc:
        _drop_at_start(seat, f"cannot send hello: {exc}", exc, settings)
    except TransportError as exc:
        seat.drop(f"cannot send hello: {exc}{_start_up_output(seat, str(exc), read_more=True)}", FaultKind.NO_HELLO)
    return seat


def _drop_at_start(seat: Seat, reason: str, exc: BaseException, settings: BotSettings) -> None:
    """Drop a seat whose start failed: void when it was not the bot's doing (a machine with no room,
    a full disk for its copy, a sandbox not set up; a service out of reach within its retry window),
    else charged `no_hello` (protocol.md section 9)."""
    if isinstance(exc, ServiceOut) and seat.name in settings.retries_spent:
        seat.drop(f"{reason}; a service out of reach after its retry window of this run is its own "
                  "(protocol.md section 9)", FaultKind.NO_HELLO)
        return
    void = isinstance(exc, Unplayable) or (isinstance(exc, OSError) and exc.errno in MACHINE_ERRNOS)
    seat.drop(reason, FaultKind.NO_HELLO, void=void)


def await_hello(seat: Seat, deadline: float, timeout_s: float, settings: BotSettings) -> str:
    """Read the bot's `hello` by the start-up deadline; returns its name ("" if it failed)."""
    if not seat.alive or seat.transport is None:
        return ""
    try:
        line = seat.transport.receive(max(0.0, deadline - time.monotonic()))
        return protocol.parse_bot_hello(line).name
    except BotTimeout as exc:
        # What the bot sent so far, else the transport's own guess at the usual cause.
        hint = f"it sent {exc.unfinished}" if exc.unfinished else seat.transport.no_hello_hint
        seat.drop(f"no hello within {timeout_s:g} s" + (f" ({hint})" if hint else ""), FaultKind.NO_HELLO)
    except Unplayable as exc:
        _drop_at_start(seat, f"no hello: {exc}", exc, settings)
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
    parts: list[str] = []
    if read_more:
        lines: list[str] = []
        deadline = time.monotonic() + START_UP_MORE_WAIT_S
        with contextlib.suppress(TransportError):
            while len(lines) < START_UP_MORE_LINES and time.monotonic() < deadline:
                lines.append(transport.receive(max(0.0, deadline - time.monotonic())))
        if lines:
            parts.append("then on stdout: " + " | ".join(quoted(line.strip(), QUOTED_CHARS) for line in lines))
    if "its stderr says:" not in reason:
        with contextlib.suppress(Exception):  # a log that cannot be read only loses the hint
            last = [line for line in transport.stderr_tail(2000).splitlines() if line.strip()][-START_UP_MORE_LINES:]
            if last:
                parts.append("stderr ends: " + " | ".join(quoted(line.strip(), QUOTED_CHARS) for line in last))
    guard = seat.guard
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
    return seat, await_hello(seat, deadline, timeout_s, settings)
