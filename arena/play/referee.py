"""The referee: plays one game between connected bots, turning every bot fault into a recorded outcome.

It speaks to bots only through the `Transport` interface and the protocol codec, so
it never knows whether a bot is a subprocess or a ZeroMQ peer. Nothing a bot does
(silence, garbage, illegal moves, dying) raises out of `play_game`: each becomes a
`Fault` in the record, and the game goes on under the fault policy (R52-R53).
"""

from __future__ import annotations

import time
from typing import Callable, NamedTuple, Sequence

from arena import protocol
from arena.game import Event, Game, IllegalMove, Move, MoveKind
from arena.game.rules import FaultPolicy
from arena.game.scoring import game_points
from arena.play.records import QUOTED_CHARS, Fault, FaultKind, GameRecord, TimeLimits
from arena.play.seat import Seat, send_lines, stderr_tail
from arena.protocol.bot_lines import quick_move
from arena.protocol.request_writer import RequestWriter
from arena.transport.base import BadMessage, BotTimeout, LineTooLong, TransportError, lines_sender
from arena.wording import quoted

# Faults after which the stream cannot be trusted: the bot is dropped for the rest of the game
# (the match layer starts a fresh process before the next one: arena/play/match.py, revive_seats).
FATAL_FAULTS = frozenset({FaultKind.EXITED, FaultKind.OVERLONG, FaultKind.NO_HELLO})
DRAW_STEPS = frozenset({MoveKind.DRAW, MoveKind.CHANCE})  # a phase-1 turn's first step (R16)

# This many requests in a row without an answer and the bot counts as hung: it is killed and
# dropped for the rest of the game. Without this a bot stuck in a loop would cost the full move
# limit at every one of its decisions (about 75 a game), and a tournament table would take hours.
HUNG_AFTER_TIMEOUTS = 3
# This many answers in a row that answer no open request (no move line at all, or a move for a
# request that is over) and the bot counts as flooding: killed and dropped for the rest of the
# game, as a hung bot is; else its backlog of lines would cost a fault at every decision, game
# after game. A well-formed answer in between, a late one too, starts the count again, so a bot
# that prints one debug line per move is charged per move but not killed.
FLOODED_AFTER_STRAY = 3
# Said with a malformed answer that is no attempt at a move: most often a debug print. Its bytes
# reach the bot in a `fault` line, which the wire transcript test holds (it names stdout, where
# a ZeroMQ bot's stray messages do not come from).
_ONLY_PROTOCOL_LINES = "; only protocol lines may go to stdout: write diagnostics to stderr (protocol.md section 2)"
# A fault keeps the tail of its bot's stderr where the run keeps stderr (--log), for this many of a
# seat's faults in a game: a bot answering every request with an illegal move would otherwise store
# its tail some seventy times.
STDERR_TAILS_PER_GAME = 3
# How many unanswered requests a bot's late answers are recognised for (protocol.md section 7).
LATE_ANSWERS_REMEMBERED = 10_000


class Answer(NamedTuple):
    """What one request got from a bot (python-chess's PlayResult): a well-formed move, not yet
    checked against the rules (`Game.apply` does that), or the fault that stands in its place;
    and how long the bot took, when it answered at all. A tuple: one is made for every move."""

    move: Move | None
    fault: tuple[FaultKind, str] | None = None
    think_s: float | None = None


# An answered move makes an Answer per move: tuple.__new__ builds it without NamedTuple's Python-level __new__.
_answered = tuple.__new__


def play_game(
    game: Game,
    seats: Sequence[Seat],
    *,
    number: int = 1,
    limits: TimeLimits = TimeLimits(),
    on_event: Callable[[Event], None] | None = None,
) -> GameRecord:
    """Play `game` to its end with `seats[i]` deciding for seat i; never raises for a bot's fault."""
    faults = _start_game(game, seats, number)
    think: list[list[float]] = [[] for _ in seats]
    move_think: list[float | None] = []  # per move of game.moves: its answer's think time (GameRecord)
    writer = RequestWriter(game)  # the request and event lines, each field written once while it holds
    # Each bot's way to take several lines at once, looked up once: a seat keeps its transport
    # for the whole game (a dropped bot is revived, if at all, between games).
    senders = [None if seat.transport is None else lines_sender(seat.transport) for seat in seats]
    events = game.events
    events_sent = 0
    while game.outcome is None:
        if len(events) != events_sent:
            events_sent = _queue_events(game, writer, seats, events_sent, on_event)
        to_act = game.to_act
        assert to_act is not None  # the loop runs while the game is on, so a seat is to act
        seat_no = to_act
        seat = seats[seat_no]
        legal = game.legal_moves()
        fault: tuple[FaultKind, str] | None = None
        move: Move | None = None
        think_s: float | None = None
        if not seat.alive:
            fault = (FaultKind.DEAD, seat.dead_reason or "the bot is gone")
        else:
            move, fault, think_s = _ask(seat, senders[seat_no], writer, legal, limits.move_timeout_s)
            if think_s is not None:
                think[seat_no].append(think_s)
        if fault is None:
            assert move is not None  # an Answer without a fault carries a move
            try:
                game.apply(move)  # the one legality check of the move (it cites the rule)
                move_think.append(think_s)
                continue
            except IllegalMove as exc:
                fault = (FaultKind.ILLEGAL, f"{move}: {exc}")
        faults.append(_charge(game, seat, seat_no, fault, faults, limits))
        _play_for(game, seat_no, think_s, move_think, faults[-1])
    _queue_events(game, writer, seats, events_sent, on_event)
    return _end_game(game, seats, number, faults, think, move_think)


def _start_game(game: Game, seats: Sequence[Seat], number: int) -> list[Fault]:
    """Tell each bot the game begins; the faults of the bots that miss it from its start (R53 at
    once under the forfeit policy)."""
    faults: list[Fault] = []
    for seat_no, seat in enumerate(seats):
        # A bot that misses this game from its start (it could not be started, or is gone since
        # its game line could not be sent) is charged once, by the kind of its loss; the moves
        # made for it afterwards are `dead` records, not counted as faults again.
        if not seat.alive:
            faults.append(Fault(seat_no, seat.dead_kind, f"out of this game: {seat.dead_reason}", 0, stderr_tail(seat)))
        elif not _send(seat, [protocol.format_game_start(number, seat_no, game.dealer, game.rules)]):
            faults.append(Fault(seat_no, FaultKind.EXITED, seat.dead_reason, 0))
    if game.rules.fault_policy is FaultPolicy.FORFEIT and faults:
        # R53 at once: otherwise the game would go on until some other bot's first fault, or
        # the missing bot's first turn, and could make a bot that played no move the winner.
        # With two missing, the first in seat order is the skitgubbe, the other ranked by R51.
        first = faults[0]
        game.forfeit(first.seat, f"{first.kind.value}: {first.detail}")
    return faults


def _charge(game: Game, seat: Seat, seat_no: int, fault: tuple[FaultKind, str], faults: Sequence[Fault],
            limits: TimeLimits) -> Fault:
    """The fault a bot's answer stands for: told to the bot, and the bot dropped or killed where
    its stream can no longer be trusted (hung, flooding, gone)."""
    kind, detail = fault
    # A bot gone says nothing new; one that faults at every move keeps the tails of its first few.
    tails = sum(1 for f in faults if f.seat == seat_no and f.stderr)
    said = stderr_tail(seat) if kind is not FaultKind.DEAD and tails < STDERR_TAILS_PER_GAME else ""
    charged = Fault(seat_no, kind, detail, len(game.moves), said)
    if kind not in (FaultKind.DEAD, FaultKind.EXITED) and seat.alive:
        # Not to a bot whose connection is gone: a ZeroMQ send would wait out its timeout.
        _send(seat, [protocol.format_fault(seat.next_request_id - 1, kind.value, detail)])
    if kind in FATAL_FAULTS:
        seat.drop(detail)
    elif seat.timeouts_in_a_row >= HUNG_AFTER_TIMEOUTS and seat.alive:
        seat.kill(f"hung: {seat.timeouts_in_a_row} requests in a row got no answer "
                  f"within {limits.move_timeout_s:g} s")
    elif seat.stray_in_a_row >= FLOODED_AFTER_STRAY and seat.alive:
        seat.kill(f"flooding: {seat.stray_in_a_row} answers in a row answered no open request "
                  "(no move line, or a move for a request that is over)")
    return charged


def _play_for(game: Game, seat_no: int, think_s: float | None, move_think: list[float | None], fault: Fault) -> None:
    """The fault policy's move in place of a faulty answer: the seat forfeits (R53), or the
    referee plays its turn (R52)."""
    if game.rules.fault_policy is FaultPolicy.FORFEIT:
        game.forfeit(seat_no, f"{fault.kind.value}: {fault.detail}")  # R53
        return
    fallback = game.fallback_move()
    game.apply(fallback)  # R52
    move_think.append(think_s)  # the faulty answer's time, if it answered at all
    if fallback.kind in DRAW_STEPS and game.to_act == seat_no and game.outcome is None:
        # R52 covers the whole turn: after the draw step, the lowest card. Only then: a
        # fallback card that wins the trick makes the seat lead the next one, unasked.
        game.apply(game.fallback_move())
        move_think.append(None)


def _end_game(game: Game, seats: Sequence[Seat], number: int, faults: Sequence[Fault],
              think: Sequence[Sequence[float]], move_think: Sequence[float | None]) -> GameRecord:
    """Tell each bot how the game ended, and the game's record."""
    outcome = game.outcome
    assert outcome is not None
    points = game_points(outcome, game.rules)
    for seat in seats:
        _send(seat, [protocol.format_game_over(number, outcome, points)])
    return GameRecord(
        number=number,
        bots=tuple(s.name for s in seats),
        outcome=outcome,
        transcript=game.transcript,
        points=points,
        faults=tuple(faults),
        think_times_s=tuple(tuple(t) for t in think),
        moves=len(game.moves),
        move_think_s=tuple(move_think),
    )


def _queue_events(game: Game, writer: RequestWriter, seats: Sequence[Seat], start: int,
                  on_event: Callable[[Event], None] | None) -> int:
    """Queue the public events since `start` for every live bot; they travel with its next message.
    Each event's line is written once, for all seats."""
    events = game.events
    new = events[start:]
    lines = writer.events(new)
    for seat in seats:
        if seat.alive:
            seat.outbox += lines
    if on_event is not None:
        for event in new:
            on_event(event)
    return len(events)


def _send(seat: Seat, lines: list[str]) -> bool:
    """Send the bot's queued events plus `lines`; a bot that cannot take them is dropped."""
    if not seat.alive or seat.transport is None:
        return False
    if seat.outbox:
        lines = seat.outbox + lines
        seat.outbox = []
    try:
        send_lines(seat.transport, lines)
        return True
    except TransportError as exc:
        seat.drop(str(exc))
        return False


def _ask(seat: Seat, send_lines_now: Callable[[list[str]], None] | None, writer: RequestWriter,
         legal: list[Move], timeout_s: float) -> Answer:
    """One decision: the bot's Answer to a request for it."""
    request_id = seat.next_request_id
    seat.next_request_id += 1
    id_text = str(request_id)  # once: the request and the expected answer both write it
    lines = seat.outbox  # the events queued since its last turn, then the request: one write
    lines.append(writer.request(id_text, legal))
    seat.outbox = []
    transport = seat.transport
    if transport is None or send_lines_now is None:
        return Answer(None, (FaultKind.EXITED, seat.dead_reason or "the bot is gone"))
    started = time.perf_counter()
    try:
        send_lines_now(lines)
    except TransportError as exc:
        seat.drop(str(exc))
        return Answer(None, (FaultKind.EXITED, seat.dead_reason))
    deadline = started + timeout_s
    answer_prefix = f"move {id_text} "  # the common answer's start (quick_move)
    while True:
        remaining = deadline - time.perf_counter()
        try:
            reply_line = transport.receive(remaining if remaining > 0.0 else 0.0)  # not max(): a slow call here
        except BotTimeout as exc:
            seat.timeouts_in_a_row += 1
            _await_late(seat, request_id)
            unfinished = f" (it sent {exc.unfinished})" if exc.unfinished else ""
            return Answer(None, (FaultKind.TIMEOUT, f"no move within {timeout_s:g} s{unfinished}"))
        except LineTooLong as exc:
            return Answer(None, (FaultKind.OVERLONG, str(exc)))
        except BadMessage as exc:  # e.g. a ZeroMQ message of several frames: an answer, but not a line
            seat.timeouts_in_a_row = 0
            seat.stray_in_a_row += 1
            _await_late(seat, request_id)
            return Answer(None, (FaultKind.MALFORMED, str(exc)))
        except TransportError as exc:  # BotExited, and any other lost connection
            return Answer(None, (FaultKind.EXITED, str(exc)))
        elapsed = time.perf_counter() - started
        move = quick_move(reply_line, answer_prefix)
        if move is not None:
            seat.timeouts_in_a_row = seat.stray_in_a_row = 0
            return _answered(Answer, (move, None, elapsed))
        try:
            reply = protocol.parse_move_reply(reply_line)
        except protocol.ProtocolError as exc:
            seat.timeouts_in_a_row = 0  # it answered something: broken perhaps, but not hung
            # A `move` naming this request answers it, garbled or not: only a line that is no move
            # line, or a move for a request that is over, counts towards flooding (protocol.md section 9).
            if reply_line.startswith(answer_prefix):
                seat.stray_in_a_row = 0
            else:
                seat.stray_in_a_row += 1
            _await_late(seat, request_id)  # a garbled line is no answer: the real one may follow
            # A line that is no attempt at a move at all is most often a debug print: each one
            # costs a move (the real answer after it is then late), so say where such lines go.
            hint = "" if reply_line.lstrip().lower().startswith("move") else _ONLY_PROTOCOL_LINES
            return Answer(None, (FaultKind.MALFORMED, f"{exc} (line: {quoted(reply_line, QUOTED_CHARS)}){hint}"), elapsed)
        if reply.request_id == request_id:
            seat.timeouts_in_a_row = seat.stray_in_a_row = 0
            return Answer(reply.move, None, elapsed)
        if reply.request_id in seat.awaiting_late:
            # A late answer to a request that timed out: dropped, keep waiting. It shows the bot
            # is slow, not hung.
            seat.awaiting_late.discard(reply.request_id)
            seat.timeouts_in_a_row = seat.stray_in_a_row = 0
            continue
        seat.stray_in_a_row += 1  # no answer to anything open: copies of an old answer flood too
        _await_late(seat, request_id)  # its real answer may still come: it will be dropped, not misread
        return Answer(None, (FaultKind.STALE, _stale_detail(reply.request_id, request_id)), elapsed)


def _stale_detail(answered_id: int, request_id: int) -> str:
    if 1 <= answered_id < request_id:
        why = f"request {answered_id} is over: answered already, or ended by a fault"
    else:
        why = f"no request {answered_id} was ever sent"
    return f"answered request {answered_id}, but the request is {request_id} ({why})"


def _await_late(seat: Seat, request_id: int) -> None:
    late = seat.awaiting_late
    late.add(request_id)
    # A bot that is always a little slow falls further behind with every request, so its late
    # answers can lag by hundreds of requests; protocol.md promises they are dropped, not
    # charged as `stale`. The bound only keeps a flood of faults from growing the set forever.
    if len(late) > LATE_ANSWERS_REMEMBERED:
        late.discard(min(late))
