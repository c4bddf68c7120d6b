"""The rows `arena bot check` reads off the games the bot played: one small function per row, each
given the same `Played` (what the games showed of the bot under test) and returning its row.
arena/check/runner.py plays the games and runs `GAME_ROWS` in order."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

from arena.check.evidence import Evidence
from arena.check.verdicts import CheckResult, percentile
from arena.play.match import MatchResult
from arena.play.records import Fault, FaultKind, TimeLimits
from arena.play.seat import Seat
from arena.wording import count

# The check stops playing further games once the bot has this many timeouts: the row fails anyway.
TIMEOUTS_ENOUGH = 10
# Nothing answered at all: the rows about answers are not tested, rather than passed (an author
# read "PASS legal moves" as the part that works, of a bot that never moved).
UNANSWERED = "not tested: no answer came from the bot (see the games row)"


@dataclass(frozen=True, slots=True)
class Played:
    """The check's games, seen from the bot under test (the match's player 0)."""

    match: MatchResult
    games: int  # as many as were asked for
    opponents: Sequence[str]
    rule_words: str  # " under k=v, ..." or ""
    limits: TimeLimits
    bot: Seat
    ev: Evidence

    @property
    def at(self) -> list[int]:  # its seat in each game
        return [seating.index(0) for seating in self.match.seatings]

    @property
    def mine(self) -> list[Fault]:
        return [f for r, seat in zip(self.match.records, self.at) for f in r.faults if f.seat == seat]

    @property
    def kinds(self) -> Counter[FaultKind]:
        return Counter(f.kind for f in self.mine)

    @property
    def think_s(self) -> list[float]:
        return [t for r, seat in zip(self.match.records, self.at) for t in r.think_times_s[seat]]

    @property
    def decisions(self) -> int:
        return len(self.think_s)

    @property
    def think_ms(self) -> tuple[float, float]:
        """p50 and p99. A timed-out request took at least the limit: left out, a bot that always took
        longer than the limit showed the quick replies after each timeout (p50 445 ms for a bot that
        slept 2.5 s a move)."""
        timed = self.think_s + [self.limits.move_timeout_s] * self.kinds[FaultKind.TIMEOUT]
        return percentile(timed, 50) * 1000.0, percentile(timed, 99) * 1000.0

    def first(self, *wanted: FaultKind) -> Fault | None:
        return next((f for f in self.mine if f.kind in wanted), None)

    def evidence(self, fault: Fault | None) -> tuple[str, ...]:
        return self.ev.both("> fault ") if fault is not None and fault.kind is not FaultKind.DEAD else self.ev.both()


def games_row(p: Played) -> CheckResult:
    summary = ", ".join(f"{k.value} x{n}" for k, n in p.kinds.items()) or "no faults"
    played = len(p.match.records)
    if played < p.games:
        summary += f" (stopped after {count(played, 'game')} of {p.games}: {TIMEOUTS_ENOUGH} timeouts or more say enough)"
    return CheckResult("games", not p.mine, f"{count(played, 'game')} vs {', '.join(p.opponents)}{p.rule_words} at "
                                            f"{_seats_words(sorted(set(p.at)))}; {p.decisions} decisions answered; {summary}")


def legal_moves_row(p: Played) -> CheckResult:
    name = "legal moves"
    if not p.decisions:
        return CheckResult(name, True, UNANSWERED, skipped=True)
    f = p.first(FaultKind.ILLEGAL, FaultKind.STALE)
    # Answers that were moves of the bot's own: a bot whose every line was malformed made no move
    # to check, and must not read as one whose moves were all legal.
    own_moves = p.decisions - sum(p.kinds[k] for k in (FaultKind.MALFORMED, FaultKind.STALE, FaultKind.ILLEGAL))
    if f is None and own_moves <= 0:
        return CheckResult(name, False, "no answer was a well-formed move, so no move could be checked",
                           p.evidence(p.first(FaultKind.MALFORMED, FaultKind.OVERLONG)))
    if f is None:
        malformed = p.kinds[FaultKind.MALFORMED]
        # A PASS beside malformed replies reads as "my moves were fine": say they were no moves.
        return CheckResult(name, True, "every well-formed move was one of the legal moves" + (
            f" ({malformed} malformed replies are not moves: see well-formed lines)" if malformed else ""))
    return CheckResult(name, False, f"{f.kind.value}: {f.detail}", p.evidence(f))


def answers_in_time_row(p: Played) -> CheckResult:
    f = p.first(FaultKind.TIMEOUT)
    if f is None and not p.decisions:
        return CheckResult("answers in time", True, UNANSWERED, skipped=True)
    p50, p99 = p.think_ms
    move_ms = p.limits.move_timeout_s * 1000.0
    detail = f"think time p50 {p50:.1f} ms, p99 {p99:.1f} ms (limit {move_ms:.0f} ms"
    if f is None:
        return CheckResult("answers in time", p99 <= move_ms, detail + ")", () if p99 <= move_ms else p.evidence(f))
    detail += f", timeouts counted at the limit); {p.kinds[FaultKind.TIMEOUT]} timeout(s): {f.detail}"
    if not p.decisions:  # its hello came (the handshake passed), and then nothing at all
        detail += ("; no request got any answer, though the hello came: is stdout flushed after "
                   "every line, not only after hello?")
    return CheckResult("answers in time", False, detail, p.evidence(f))


def well_formed_row(p: Played) -> CheckResult:
    f = p.first(FaultKind.MALFORMED, FaultKind.OVERLONG)
    if f is None and not p.decisions:
        return CheckResult("well-formed lines", True, UNANSWERED, skipped=True)
    if f is None:
        return CheckResult("well-formed lines", True, "every line the bot sent was a well-formed protocol line")
    return CheckResult("well-formed lines", False, f"{f.kind.value}: {f.detail}", p.evidence(f))


def stays_up_row(p: Played) -> CheckResult:
    f = p.first(FaultKind.EXITED, FaultKind.DEAD)
    if f is None and p.bot.alive:
        return CheckResult("stays up", True, "the bot played every game to the end")
    afresh = f", then started afresh {count(p.bot.restarts, 'time')} for later games" if p.bot.restarts else ""
    return CheckResult("stays up", False, f"lost during the games: {f.detail if f else p.bot.dead_reason}{afresh}",
                       p.ev.both())


GAME_ROWS: tuple[Callable[[Played], CheckResult], ...] = (
    games_row, legal_moves_row, answers_in_time_row, well_formed_row, stays_up_row)


def _seats_words(seats: list[int]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"
