"""`arena bot check`'s probes of what the games alone would not show: a bot that chokes on what a
later protocol may add (`FutureLines`, in a game of its own: `later_protocol`), a service that mixes
up simultaneous conversations (`conversations_apart`), and a bot that does not exit on `quit`
(`check_quit`). arena/check/runner.py runs them."""

from __future__ import annotations

import contextlib
import time
from typing import Any, Protocol, Sequence, cast

from arena import __version__, protocol
from arena.check.evidence import Evidence
from arena.check.verdicts import CheckReport, CheckResult
from arena.game import Rules
from arena.play.match import open_table, play_match
from arena.play.records import FaultKind
from arena.play.seat import QUIT_GRACE_S, Seat, close_transport, send_lines
from arena.play.startup import BotSettings, open_transport
from arena.submission.manifest import BotManifest
from arena.transport.base import Transport, TransportError, TransportWrapper, describe_returncode


class FutureLines(TransportWrapper):
    """The bot's transport, with what a later protocol version may add: a message type before
    each game line and a field at the end of each request. Bots must ignore both (protocol.md
    section 2); a bot that chokes on them would break at the first change of the protocol."""

    UNKNOWN_LINE = "x-unknown this message type is from a later protocol version: ignore it"
    UNKNOWN_FIELD = " x_unknown=1"

    def __init__(self, inner: Transport) -> None:
        super().__init__(inner)

    def _widen(self, lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            if line.startswith("game "):
                out.append(self.UNKNOWN_LINE)
            out.append(line + self.UNKNOWN_FIELD if line.startswith("request ") else line)
        return out

    def send(self, line: str) -> None:
        send_lines(self.inner, self._widen([line]))

    def send_many(self, lines: list[str]) -> None:
        send_lines(self.inner, self._widen(lines))

    def receive(self, timeout_s: float) -> str:
        return self.inner.receive(timeout_s)

    def close(self, grace_s: float = QUIT_GRACE_S) -> None:
        close_transport(self.inner, grace_s)


LATER_LABEL = "later"  # the log label's start of the later protocol's game, beside seat0-... of the check's own


def later_protocol(manifest: BotManifest, opponents: Sequence[BotManifest], settings: BotSettings, rules: Rules,
                   seed: int, number: int, known: set[FaultKind]) -> CheckResult:
    """One game at a table of its own, the bot started afresh, with what a later protocol may add
    (`FutureLines`): apart from the check's games, which speak as a tournament's do, so that a bot
    cannot tell a check from a tournament by them (a bot keeps nothing from one start to the next).
    Only a fault of a kind its games did not show (`known`) is the later protocol's doing."""
    label = f"{LATER_LABEL}0-{manifest.name}"
    labels = [label] + [f"{LATER_LABEL}{i}-{bot.name}" for i, bot in enumerate(opponents, start=1)]
    ev = Evidence(settings.log_dir, label) if settings.log_dir is not None else None
    with open_table([manifest, *opponents], settings, labels) as seats:
        bot = seats[0]
        if not bot.alive or bot.transport is None:
            return CheckResult("later protocol", False, f"not played: the bot did not start again: {bot.dead_reason}",
                               ev.both() if ev else ())
        bot.transport = FutureLines(bot.transport)
        match = play_match(seats, rules, seed, games=1, limits=settings.limits, first_number=number, dealers_given=True)
        lost = [f for record in match.records for f in record.faults if f.seat == 0 and f.kind not in known]
        alive = bot.alive or FaultKind.EXITED in known or FaultKind.DEAD in known
    if not lost and alive:
        return CheckResult("later protocol", True, "a message type and a request field from a later protocol "
                                                   "version, in a game of its own: ignored, as they must be")
    said = f"{lost[0].kind.value}: {lost[0].detail}" if lost else bot.dead_reason
    return CheckResult("later protocol", False, f"a message type and a request field from a later protocol version "
                                                f"(protocol.md section 2): {said}", ev.both() if ev else ())


CONVERSATIONS_PROBED = 3


def conversations_apart(manifest: BotManifest, settings: BotSettings) -> tuple[bool, str]:
    """A service must answer each conversation on it (protocol.md appendix A). A DEALER socket
    passes every one-conversation check and then, with two tables open, sends each answer to
    whichever conversation comes next in its rotation, mixing games. So: open several
    conversations, then begin them one by one from the last opened to the first, against the
    order of any rotation, and see each answer come back on its own conversation."""
    transports = []
    begun = []
    try:
        try:
            for i in range(CONVERSATIONS_PROBED):
                transports.append(open_transport(manifest, settings, f"apart{i}-{manifest.name}"))
        except (TransportError, OSError) as exc:
            return False, f"could not open {CONVERSATIONS_PROBED} conversations at once: {exc}"
        time.sleep(0.2)  # every connection made before the first line: their order is the test
        for number in range(CONVERSATIONS_PROBED, 0, -1):
            transport = transports[number - 1]
            try:
                send_lines(transport, [protocol.format_hello(__version__)])
                begun.append(transport)
                protocol.parse_bot_hello(transport.receive(settings.limits.startup_timeout_s))
            except (TransportError, protocol.ProtocolError) as exc:
                misrouted = [i for i, t in enumerate(transports, start=1) if i != number and _has_a_line(t)]
                if misrouted:
                    return False, (
                        f"the hello of conversation {number} was answered on conversation {misrouted[0]} "
                        f"({CONVERSATIONS_PROBED} open): a DEALER socket? Only a ROUTER, replying [routing id, "
                        "line], keeps simultaneous games apart (protocol.md appendix A)")
                return False, f"no answer to the hello of conversation {number} ({CONVERSATIONS_PROBED} open): {exc}"
        return True, f"{CONVERSATIONS_PROBED} conversations open at once, each answered on its own"
    finally:
        for transport in begun:  # the others never began: they end unannounced, as conversations may
            with contextlib.suppress(TransportError, OSError):
                send_lines(transport, [protocol.format_quit()])
        for transport in transports:
            close_transport(transport, 0.0)


class _Started(Protocol):
    """The transport of a bot the arena started (a pipe's, a zmq bot's with a command; FutureLines
    passes it on): it knows how the bot exited, None while it runs."""

    @property
    def returncode(self) -> int | None: ...


def _has_a_line(transport: Any) -> bool:
    try:
        transport.receive(0.2)
        return True
    except TransportError:
        return False


def check_quit(manifest: BotManifest, seat: Seat, report: CheckReport, ev: Evidence, wait_s: float) -> None:
    results = report.results
    transport = seat.transport
    if manifest.is_service:
        results.append(CheckResult("exit on quit", True, "not applicable: a running service"))
        return
    if not seat.alive or transport is None:
        # Its loss is the "stays up" row's failure, with the evidence: not a second one here.
        results.append(CheckResult("exit on quit", True, "not tested: the bot was already gone", skipped=True))
        return
    try:
        send_lines(transport, seat.outbox + [protocol.format_quit()])
    except (TransportError, OSError) as exc:
        results.append(CheckResult("exit on quit", False, f"could not send quit: {exc}", ev.both()))
        return
    seat.outbox = []
    seat.alive = False  # close_seat must not send a second quit
    deadline = time.monotonic() + wait_s
    started = cast(_Started, transport)  # not a service (above): the arena started this bot
    rc = started.returncode
    while rc is None and time.monotonic() < deadline:
        time.sleep(0.01)
        rc = started.returncode
    if rc is None:
        results.append(CheckResult("exit on quit", False, f"still running {wait_s:g} s after quit", ev.both()))
    elif rc != 0:
        results.append(CheckResult("exit on quit", False, f"exited after quit with {describe_returncode(rc)}",
                                   ev.both()))
    else:
        results.append(CheckResult("exit on quit", True, f"exit code 0 within {wait_s:g} s"))
