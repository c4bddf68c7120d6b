"""A table's bots: start or connect them, shake hands, play a match, and always tear them down.

`open_table` is a context manager: whatever happens inside (a bot fault, Ctrl-C, an
exception in the arena), every bot it started is told to quit and then closed, which
kills its whole process tree.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from arena import protocol
from arena.game import Event, Game, Rules
from arena.game.outcome import Outcome
from arena.game.scoring import MatchScore, first_dealer
from arena.game.seeds import derive_seed
from arena.play.records import GameRecord, TimeLimits
from arena.play.referee import play_game
from arena.play.seat import QUIT_GRACE_S, Seat, close_transport, send_lines
from arena.play.startup import BotSettings, await_hello, connect_bot, start_bot
from arena.submission.manifest import BotManifest
from arena.transport.base import TransportError

# A bot lost in a game is started afresh before the next one; after this many failed starts in a
# row (the table's first start included) it stays out for the rest of the table: each failed
# start can cost the whole start-up limit.
MAX_FAILED_RESTARTS = 3


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
        if seat.alive and seat.transport is not None:
            with contextlib.suppress(TransportError):
                send_lines(seat.transport, [match_line])


def revive_seats(seats: Sequence[Seat], match_line: str, *, retry_s: float = 0.0,
                 keep_going: Callable[[], bool] | None = None,
                 on_retry: Callable[[Seat, float], None] | None = None) -> None:
    """Before a game: give every bot lost in an earlier game (crash, hang, flood) a fresh process,
    told `match_line` (its `games=`: the games still to come, this one included: protocol.md
    section 4).

    As cutechess-cli restarts a crashed engine, one game's fault costs that game only. It also
    keeps resumed tournaments exact: a table resumed mid-way starts fresh bots, so an
    uninterrupted run must give a lost bot a fresh start before each game too. A start that
    failed for a reason outside the bot (`Seat.void`) is tried again with growing waits for up
    to `retry_s` (an outage of a service, a machine out of room), and does not count against it;
    `on_retry(seat, retry_s)` is told as those tries begin, so that the organiser hears of the
    wait at once rather than once the window is spent.
    """
    for seat in seats:
        if seat.alive or seat.restart is None:
            continue
        failed_now, seat.start_failed_now = seat.start_failed_now, False
        if failed_now and not seat.void:
            continue  # its start for this game failed a moment ago: that failure is this game's
        if seat.failed_restarts >= MAX_FAILED_RESTARTS:
            continue
        _restart(seat, match_line)
        if seat.void and not seat.alive and retry_s > 0:
            if on_retry is not None:
                on_retry(seat, retry_s)
            _wait_out(seat, match_line, retry_s, keep_going)


# The waits between tries of a start that failed outside the bot: doubling from the first to the most.
RETRY_FIRST_WAIT_S = 1.0
RETRY_MOST_WAIT_S = 15.0


def _wait_out(seat: Seat, match_line: str, retry_s: float, keep_going: Callable[[], bool] | None) -> None:
    deadline = time.monotonic() + retry_s
    wait_s = RETRY_FIRST_WAIT_S
    tries = 1
    while not seat.alive and seat.void:
        left_s = deadline - time.monotonic()
        if left_s <= 0 or (keep_going is not None and not keep_going()):
            break
        time.sleep(min(wait_s, left_s))
        wait_s = min(2 * wait_s, RETRY_MOST_WAIT_S)
        _restart(seat, match_line)
        tries += 1
    if not seat.alive and seat.void:
        seat.dead_reason = f"{tries} tries in {retry_s:g} s failed, the last: {seat.dead_reason}"


def _restart(seat: Seat, match_line: str) -> None:
    """One fresh start of a lost bot (`Seat.restart`), its outcome kept on the seat."""
    assert seat.restart is not None
    if seat.transport is not None:
        close_transport(seat.transport, 0.0)  # it already failed: no grace to wait out
    fresh = seat.restart()
    seat.transport, seat.guard = fresh.transport, fresh.guard
    seat.outbox = []
    seat.next_request_id = 1
    seat.timeouts_in_a_row = seat.stray_in_a_row = 0
    seat.awaiting_late.clear()  # ids of the lost process: the fresh one starts again at 1
    if fresh.alive:
        seat.alive, seat.dead_reason, seat.void = True, "", False
        seat.failed_restarts = 0
        seat.restarts += 1
        tell_match_start([seat], match_line)
        return
    if fresh.transport is not None:  # e.g. alive but silent: it must not idle on the table's core
        close_transport(fresh.transport, 0.0)
        seat.transport = None
    seat.dead_kind, seat.void = fresh.dead_kind, fresh.void
    if fresh.void:  # not the bot's doing: said as it is, and not counted against it
        seat.dead_reason = fresh.dead_reason
        return
    seat.failed_restarts += 1
    failed = seat.failed_restarts  # the table's first start counts too
    if failed >= MAX_FAILED_RESTARTS:  # worded for the games after too, where none is tried
        seat.dead_reason = (f"not started again in this match after {failed} failed starts in a row; "
                            f"the last: {fresh.dead_reason}")
    elif failed == 1:
        seat.dead_reason = f"its fresh start failed: {fresh.dead_reason}"
    else:
        seat.dead_reason = f"{failed} failed starts in a row, the last: {fresh.dead_reason}"


def remaining_match_line(rules: Rules, games: int | None, number: int, *, dealers_given: bool = False) -> str:
    """The `match` line for a bot started afresh before game `number` (1, 2, ...) of a match of
    `games` games (None: until the scoring ends it): it counts the games still to come."""
    return protocol.format_match_start(rules, None if games is None else games - number + 1,
                                       dealers_given=dealers_given)


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
            await_hello(seat, deadline, timeout_s, settings)
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
    # A failed first start counts as one (unless it was not the bot's doing), and is the first game's.
    seat.failed_restarts = 0 if seat.alive or seat.void else 1
    seat.start_failed_now = not seat.alive


def seat_labels(names: Sequence[str]) -> list[str]:
    """Names as shown at a table: a bot seated twice is told apart by its seat (`random_bot#1`)."""
    return [f"{name}#{seat}" if names.count(name) > 1 else name for seat, name in enumerate(names)]


def handshake_faults(seats: Sequence[Seat]) -> list[tuple[int, str]]:
    """Seats whose bot was already lost before the first game, with the reason."""
    return [(i, s.dead_reason) for i, s in enumerate(seats) if not s.alive]


@dataclass(frozen=True, slots=True)
class MatchResult:
    records: tuple[GameRecord, ...]  # by seat
    totals: tuple[int, ...]  # by player (the order the match's seats were given in)
    winners: tuple[int, ...]  # players
    start_faults: tuple[tuple[int, str], ...]  # (player, why)
    seatings: tuple[tuple[int, ...], ...] = ()  # per game: the player at each seat


def rotation(number: int, n: int) -> tuple[int, ...]:
    """The seating of game `number` (1, 2, ...) of a match whose seats rotate: the player at each
    seat, moved one seat on per game, so that over n games every player sits at every seat."""
    shift = (number - 1) % n
    return tuple((seat + shift) % n for seat in range(n))


def outcome_by_player(outcome: Outcome, seating: Sequence[int]) -> Outcome:
    """A game's outcome (by seat) said of the players who sat there (`seating`: player by seat)."""
    forfeited = outcome.forfeited_seat
    return dataclasses.replace(outcome, finishing_order=tuple(seating[s] for s in outcome.finishing_order),
                               forfeited_seat=None if forfeited is None else seating[forfeited])


def play_match(
    seats: Sequence[Seat],
    rules: Rules,
    seed: int,
    *,
    games: int | None = None,
    limits: TimeLimits = TimeLimits(),
    on_game: Callable[[GameRecord, MatchScore, tuple[int, ...]], None] | None = None,
    on_event: Callable[[Event], None] | None = None,
    keep_going: Callable[[GameRecord], bool] | None = None,
    rotate: bool = False,
    first_number: int = 1,
    dealers_given: bool = False,
) -> MatchResult:
    """A match at one table (R54-R57): until the scoring says it is over, or exactly `games` games
    (fewer if `keep_going`, asked after each game, says no). `seats` are the match's players; with
    `rotate` they move one seat on each game (`rotation`), else each keeps its seat. The score,
    the dealer (R57) and the winners are the players'; each record is by seat, and `on_game` gets
    the game's seating (player by seat) beside it. The games are numbered from `first_number` (a
    check numbers its games as a tournament's table may: arena/check/runner.py). `dealers_given`:
    the match line leaves out `next_dealer`, as a tournament table's does (protocol.md section 4:
    the arena names each game's dealer); the check speaks so, not to be told from a tournament."""
    n = len(seats)
    start_faults = tuple(handshake_faults(seats))
    match_line = protocol.format_match_start(rules, games, dealers_given=dealers_given)
    tell_match_start(seats, match_line)
    score = MatchScore(rules, first_dealer(seed, rules.num_players))
    records, seatings = [], []
    played = 0
    while (games is None and not score.is_over) or (games is not None and played < games):
        played += 1
        number = first_number + played - 1
        seating = rotation(played, n) if rotate else tuple(range(n))
        game = Game.new(rules, derive_seed(seed, "game", number), seating.index(score.dealer))
        revive_seats(seats, remaining_match_line(rules, games, played, dealers_given=dealers_given))
        record = play_game(game, [seats[player] for player in seating], number=number, limits=limits, on_event=on_event)
        score.record(outcome_by_player(record.outcome, seating))
        records.append(record)
        seatings.append(seating)
        if on_game is not None:
            on_game(record, score, seating)  # the score as it stands after this game
        if keep_going is not None and not keep_going(record):
            break
    winners = score.winners
    # protocol.md section 4: per-seat totals mean nothing where seats changed; such a match ends
    # with `quit` alone, as a tournament table does.
    for seat in seats if not rotate else ():
        if seat.alive and seat.transport is not None:
            with contextlib.suppress(TransportError):
                send_lines(seat.transport, seat.outbox + [protocol.format_match_over(score.totals, winners)])
                seat.outbox = []
    return MatchResult(tuple(records), tuple(score.totals), winners, start_faults, tuple(seatings))
