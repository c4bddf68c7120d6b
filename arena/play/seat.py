"""A connected bot as the referee sees it (`Seat`), and how lines reach it and how it is closed."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from arena.play.records import FaultKind
from arena.transport.base import Transport, TransportError, lines_sender

if TYPE_CHECKING:  # a pipe-only check loads no sandbox
    from arena.sandbox.guard import BotGuard

log = logging.getLogger(__name__)

# Bots get this long to exit after `quit` before the transport's terminate/kill sequence.
QUIT_GRACE_S = 0.5
# How long a dropped bot gets between SIGTERM and SIGKILL: it has already failed to answer.
KILL_GRACE_S = 0.2


@dataclass(slots=True)
class Seat:
    """A connected bot as the referee sees it: its transport, its name, and whether it is still usable."""

    name: str
    transport: Transport | None
    alive: bool = True
    dead_reason: str = ""
    dead_kind: FaultKind = FaultKind.EXITED  # how it was lost: recorded once per game it misses
    next_request_id: int = 1
    outbox: list[str] = field(default_factory=list)  # event lines waiting for the bot's next turn
    timeouts_in_a_row: int = 0
    # Answers in a row that answered no open request: no move line at all (malformed, or not a
    # line), or a move for a request that is over (stale). A bot that floods lines nobody asked
    # for, or a backlog of copies of an old answer, answers every request with one (see
    # FLOODED_AFTER_STRAY).
    stray_in_a_row: int = 0
    # Requests ended by a timeout or a fault before the bot answered them: only these ids make a
    # late answer (dropped silently, once). Any other old id (never issued, or answered already) is
    # a stale fault: a bot repeating an old id must not pass for alive (see HUNG_AFTER_TIMEOUTS),
    # and one stray line must not put every later answer one step behind.
    awaiting_late: set[int] = field(default_factory=set)
    # Set by the match layer: starts a fresh process for this seat (None: the seat cannot be revived).
    restart: Callable[[], Seat] | None = None
    failed_restarts: int = 0  # in a row; the match layer gives up after a few
    restarts: int = 0
    # Lost for a reason outside the bot's code (transport.Unplayable: no room for a process, a
    # sandbox that could not be set up, a service out of reach): a game it stops is void, not its fault.
    void: bool = False
    # Its latest start failed for the game about to be played: that game's, not tried again for it.
    start_failed_now: bool = False
    # The run keeps the bots' stderr (`--log`): a fault records the tail of it (records.Fault.stderr).
    keep_stderr: bool = False
    # What watches its sandbox, where it has one (set at its start): its limits, for the hints of a failed start.
    guard: BotGuard | None = None

    def drop(self, reason: str, kind: FaultKind = FaultKind.EXITED, *, void: bool = False) -> None:
        """Stop talking to this bot for the rest of the game (its stream can't be trusted)."""
        self.alive = False
        self.dead_reason = reason
        self.dead_kind = kind
        self.void = void
        self.outbox.clear()

    def kill(self, reason: str) -> None:
        """Drop the bot and end its process now: a hung bot would otherwise keep burning the
        CPU that its table's other bots share."""
        self.drop(reason)
        if self.transport is not None:
            close_transport(self.transport, KILL_GRACE_S)


# How much of a bot's stderr a fault keeps where stderr is kept: its last lines, at most this much.
STDERR_TAIL_BYTES = 1500
STDERR_TAIL_LINES = 20


def stderr_tail(seat: Seat) -> str:
    """The last lines of the seat's bot's stderr, for a fault's record; "" where the run keeps no
    stderr (no `--log`) or the transport has none (a ZeroMQ service's stderr is not ours)."""
    if not seat.keep_stderr or seat.transport is None:
        return ""
    try:
        text = seat.transport.stderr_tail(STDERR_TAIL_BYTES)
    except (OSError, TransportError):
        log.debug("reading the stderr tail of %s", seat.name, exc_info=True)
        return ""
    return "\n".join(text.splitlines()[-STDERR_TAIL_LINES:])


def close_transport(transport: Transport, grace_s: float) -> None:
    """Close a bot's transport (quit grace, then terminate and kill its tree); never raises: what
    closing met (a process already gone) is logged."""
    try:
        transport.close(grace_s)
    except (OSError, TransportError):
        log.debug("closing %s", getattr(transport, "name", "a bot"), exc_info=True)


def send_lines(transport: Transport, lines: list[str]) -> None:
    """Several lines in one go where the transport can, else one by one."""
    lines_sender(transport)(lines)
