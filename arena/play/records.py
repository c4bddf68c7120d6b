"""What a game leaves behind and the limits it is played under: fault kinds, faults, the game
record the results store keeps, and the time limits (protocol.md section 9, R52-R53)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from arena.game import Outcome, Transcript
from arena.wording import as_written


class FaultKind(str, Enum):
    TIMEOUT = "timeout"  # no answer within the move time limit
    EXITED = "exited"  # the process ended or the connection was lost
    MALFORMED = "malformed"  # a line that is not `move <id> <move>`
    OVERLONG = "overlong"  # a line longer than the protocol allows
    ILLEGAL = "illegal"  # a well-formed move the rules forbid now
    STALE = "stale"  # an answer carrying the id of a request that was never made
    NO_HELLO = "no_hello"  # no valid handshake within the start-up limit
    DEAD = "dead"  # the bot was already gone: the referee decided for it


# Fault kinds kept in the record but not counted as faults in standings: `dead` marks each move
# the referee made for a bot that was already gone, whose loss is counted once, by its own kind
# (exited, overlong, the timeouts of a hang, or no_hello for a bot that could not start).
NOT_COUNTED_FAULTS = frozenset({FaultKind.DEAD.value})

# How much of a bot's line a fault quotes (escaped: the detail reaches terminals).
QUOTED_CHARS = 120


@dataclass(frozen=True, slots=True)
class Fault:
    seat: int
    kind: FaultKind
    detail: str
    move_number: int  # index in the transcript where the referee stepped in
    # The tail of the bot's stderr when the fault happened, kept only where the run keeps the
    # bots' stderr (`--log`): the organiser asked for it; "" otherwise.
    stderr: str = ""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """Everything a game leaves behind: the results store keeps one row of this per game."""

    number: int
    bots: tuple[str, ...]  # bot name per seat
    outcome: Outcome
    transcript: Transcript
    points: tuple[int, ...]  # per seat, under the rules' scoring (R54-R56)
    faults: tuple[Fault, ...]
    think_times_s: tuple[tuple[float, ...], ...]  # per seat, one entry per decision the bot answered
    moves: int
    # Per move of the transcript: how long its bot took to give the answer the move came from
    # (for the referee's fallback after a fault, the faulty answer's time), None where no answer
    # came (a timeout, a bot gone, the second step of a fallback turn). Empty: not recorded.
    move_think_s: tuple[float | None, ...] = ()


@dataclass(frozen=True, slots=True)
class VoidGame:
    """A game the arena could not play: a bot at it could not be started or reached for a reason
    outside its code (protocol.md section 9). No result: kept for the record, out of the
    standings, and played again, with the same cards, by a later attempt."""

    number: int
    bots: tuple[str, ...]  # bot name per seat, as the game would have had them
    bot: str  # the bot that could not be started or reached
    why: str
    tried: bool = True  # False: not tried, because that bot had just failed at the same table


# The time limits a match or tournament may set, in seconds. The upper bound keeps what a hung
# bot can cost finite (an infinite limit would disable the hung-bot cut-off above); the lower one
# is still far above a pipe round trip.
MOVE_TIMEOUT_RANGE_S = (0.01, 600.0)
STARTUP_TIMEOUT_RANGE_S = (0.1, 600.0)
# How long a tournament keeps trying a bot whose start failed outside its code (a service out of
# reach) before the game is void: 0 gives up at once; an hour holds a worker that long at most.
START_RETRY_RANGE_S = (0.0, 3600.0)
START_RETRY_S = 120.0


def time_limit_problem(value: object, bounds_s: tuple[float, float]) -> str | None:
    """Why `value` cannot be a time limit within `bounds_s` (None if it can)."""
    low, high = bounds_s
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        return f"expected a number of seconds from {low:g} to {high:g}, got {as_written(value)}"
    return None  # NaN fails both comparisons above, so it is refused too


@dataclass(frozen=True, slots=True)
class TimeLimits:
    """Defaults documented in protocol.md."""

    move_timeout_s: float = 2.0
    startup_timeout_s: float = 10.0
