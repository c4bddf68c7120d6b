"""The transport interface (one protocol line in, one line out) and its errors.

Every transport fault a bot can cause maps onto exactly one of the errors below so the
referee can turn it into a recorded outcome without knowing which transport was used.
"""

from __future__ import annotations

import errno
import signal
from typing import Callable, Protocol, runtime_checkable

# The most of one line (bytes, no newline) a transport takes in before LineTooLong, unless told less:
# a bound on memory, not the protocol's lower limit on a bot's line (protocol.MAX_BOT_LINE_BYTES).
MAX_BUFFERED_LINE_BYTES = 65536


class TransportError(Exception):
    """Base of every transport failure; str(err) is a human message naming the cause, and what
    the bot's sandbox stopped it for when it did (`sandbox_reason`)."""

    # Why the bot's sandbox killed it (a limit it broke), or "": arena/sandbox/sandboxed.py sets it
    # on the error as it passes, and the message ends with it, so a fault's detail says it.
    sandbox_reason: str = ""

    def __str__(self) -> str:
        said = super().__str__()
        return f"{said} [{self.sandbox_reason}]" if self.sandbox_reason else said


class BotTimeout(TransportError):
    """No full line arrived (or a line could not be sent) before the deadline.
    `unfinished`: what the bot did send meanwhile without ending a line, said for a fault's
    reason (lines ended in \r alone, say), or "" if it sent nothing."""

    def __init__(self, message: str, unfinished: str = "") -> None:
        super().__init__(message)
        self.unfinished = unfinished


class BotExited(TransportError):
    """The bot process is gone, its stdout closed, or the peer went away."""

    def __init__(self, message: str, *, returncode: int | None = None) -> None:
        super().__init__(message)
        # Popen convention: >= 0 is an exit code, < 0 is -signal number, None is unknown.
        self.returncode = returncode

    @property
    def exit_code(self) -> int | None:
        return self.returncode if self.returncode is not None and self.returncode >= 0 else None

    @property
    def signal(self) -> int | None:
        return -self.returncode if self.returncode is not None and self.returncode < 0 else None


class LineTooLong(TransportError):
    """The bot sent more than max_line_bytes without a newline (or one oversized message)."""


class BotUnreachable(TransportError):
    """The bot cannot be started (missing executable, bad cwd) or connected to (incl. auth)."""


class Unplayable(BotUnreachable):
    """The bot could not be started or reached for a reason outside its code: the machine could not
    start a process (no memory, no process slots, a full disk), or its sandbox could not be set up.
    A game it stops is void, played again later, and not the bot's fault (protocol.md section 9)."""


class ServiceOut(Unplayable):
    """A ZeroMQ service (one the arena connects to, not one it starts) could not be reached or
    refused the handshake. The arena retries it, and a game it stops within its retry window of a
    run is void; after that window it is the bot's own doing, charged (protocol.md section 9): its
    own program chose or failed, and a losing service must not refuse its way to void games."""


# How the system says it has no room for another process or file: the machine's state, not the
# bot's doing, wherever it is met while a bot starts.
MACHINE_ERRNOS = frozenset({errno.EAGAIN, errno.ENOMEM, errno.ENOSPC, errno.EDQUOT, errno.EMFILE, errno.ENFILE})


class BadMessage(TransportError):
    """A ZeroMQ peer sent something that is not one single-frame line (e.g. multipart)."""


def describe_returncode(returncode: int | None) -> str:
    """Human text for a Popen-style return code: 'exit code 3' / 'signal SIGKILL'."""
    if returncode is None:
        return "exit status unknown"
    if returncode >= 0:
        return f"exit code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = str(-returncode)
    return f"killed by signal {name}"


class StartedProcess(Protocol):
    """The process the arena started for a bot (bot_process.py's BotProcess), as those who watch
    it see it: the sandbox's guard, and the check that counts what is left of it after close."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    def members(self) -> set[int]:
        """Every live process of the bot: its session, group and descendants."""
        ...


@runtime_checkable
class Transport(Protocol):
    """Moves protocol lines between the referee and one bot."""

    @property
    def no_hello_hint(self) -> str:
        """What to suspect when a bot that works by hand never answers hello on this transport."""
        ...

    @property
    def process(self) -> StartedProcess | None:
        """The bot's process, where the arena started it; None for a service it connects to."""
        ...

    def stderr_tail(self, n_bytes: int = 2000) -> str:
        """The end of the bot's stderr; "" where the arena has none (a service's is not ours)."""
        ...

    def send(self, line: str) -> None:
        """Send one line (without "\\n"); raises BotTimeout instead of blocking forever."""
        ...

    def receive(self, timeout_s: float) -> str:
        """Return the next line without its "\\r\\n"/"\\n", or raise a TransportError."""
        ...

    def close(self, grace_s: float = 1.0) -> None:
        """Release everything (processes included): a bot gets `grace_s` to exit after its stdin
        closes, then its whole tree is ended. Idempotent; never raises."""
        ...


class TransportWrapper:
    """A transport that wraps another (a log, a sandbox's guard, a check's extra lines): what the
    Transport Protocol reads of the bot, passed through from `inner`; the wrapper overrides the
    line-moving methods it changes."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner

    @property
    def no_hello_hint(self) -> str:
        return self.inner.no_hello_hint

    @property
    def process(self) -> StartedProcess | None:
        return self.inner.process

    @property
    def returncode(self) -> int | None:
        """The bot's exit status once it ended; None while it runs (or for a service)."""
        process = self.inner.process
        return process.returncode if process is not None else None

    def stderr_tail(self, n_bytes: int = 2000) -> str:
        return self.inner.stderr_tail(n_bytes)

    def send(self, line: str) -> None:
        self.inner.send(line)

    def receive(self, timeout_s: float) -> str:
        return self.inner.receive(timeout_s)

    def close(self, grace_s: float = 1.0) -> None:
        self.inner.close(grace_s)


def lines_sender(transport: Transport) -> Callable[[list[str]], None]:
    """What sends several lines in one go where the transport can (`send_many`: one write for a
    pipe), else one by one. Looked up once, not once per move: the referee does it per game, a
    wrapping transport when it is made."""
    send_many: Callable[[list[str]], None] | None = getattr(transport, "send_many", None)
    if send_many is not None:
        return send_many

    def send_each(lines: list[str]) -> None:
        for line in lines:
            transport.send(line)
    return send_each
