"""The referee against scripted fake transports: normal games and every kind of fault (R52-R53)."""

from __future__ import annotations

import pytest

from arena.game import EndReason, Game, Rules, replay
from arena.play.records import FaultKind
from arena.play.seat import Seat
from arena.play.referee import FLOODED_AFTER_STRAY, play_game
from tests.fakes import (
    ScriptedTransport,
    exited_error,
    multi_frame_error,
    faulty_at,
    legal_moves_of,
    overlong_error,
    random_policy,
    timeout_error,
)


FLOODING_REASON = ("flooding: 3 answers in a row answered no open request "
                   "(no move line, or a move for a request that is over)")


def seats_with(*policies, names=("a", "b", "c")):
    return [Seat(name=name, transport=ScriptedTransport(p, name)) for name, p in zip(names, policies)]


def test_normal_game_ends_with_outcome_transcript_and_think_times():
    game = Game.new(Rules(), seed=11, dealer=0)
    seats = seats_with(random_policy(1), random_policy(2), random_policy(3))
    record = play_game(game, seats, number=1)
    assert record.faults == ()
    assert record.outcome.reason is EndReason.NORMAL
    assert sorted(record.outcome.finishing_order) == [0, 1, 2]
    assert record.points[record.outcome.skitgubbe] == 0
    assert sum(len(t) for t in record.think_times_s) == record.moves
    # The transcript replays to the same game.
    assert replay(record.transcript).outcome == record.outcome
    # Every seat was told the game started and ended, and saw public events.
    for seat in seats:
        sent = seat.transport.sent
        assert sent[0].startswith("game 1 ")
        assert sent[-1].startswith("gameover 1 ")
        assert any(line.startswith("event ") for line in sent)


def test_each_seat_only_sees_its_own_hand():
    game = Game.new(Rules(), seed=5, dealer=0)
    hands = [set(game.hands[s]) for s in range(3)]
    seats = seats_with(random_policy(1), random_policy(2), random_policy(3))
    play_game(game, seats)
    from arena.game import format_card

    for seat_no, seat in enumerate(seats):
        first_request = next(line for line in seat.transport.sent if line.startswith("request "))
        hand_field = next(tok for tok in first_request.split() if tok.startswith("hand="))
        shown = set(hand_field[len("hand="):].split(","))
        others = {format_card(c) for s in range(3) if s != seat_no for c in hands[s]}
        assert not (shown & others)


@pytest.mark.parametrize(
    "fault, kind",
    [
        (lambda tokens: timeout_error(), FaultKind.TIMEOUT),
        (lambda tokens: "garbage that is not a move", FaultKind.MALFORMED),
        (lambda tokens: overlong_error(), FaultKind.OVERLONG),
        (lambda tokens: f"move {int(tokens[1]) + 50} {legal_moves_of(tokens)[0]}", FaultKind.STALE),
        (lambda tokens: exited_error(), FaultKind.EXITED),
        (lambda tokens: f"move {tokens[1]} pickup" if "pickup" not in legal_moves_of(tokens) else f"move {tokens[1]} draw",
         FaultKind.ILLEGAL),
    ],
    ids=["timeout", "malformed", "overlong", "wrong-id", "exited", "illegal"],
)
def test_fault_is_recorded_and_fallback_finishes_the_game(fault, kind):
    """R52: the fault is logged, the fallback is played, and the game still ends normally."""
    game = Game.new(Rules(), seed=3, dealer=0)
    seats = seats_with(faulty_at(4, fault), random_policy(2), random_policy(3))
    record = play_game(game, seats, number=1)
    kinds = [f.kind for f in record.faults if f.seat == 0]
    assert kinds and kinds[0] is kind
    assert record.outcome.reason is EndReason.NORMAL
    if kind in (FaultKind.EXITED, FaultKind.OVERLONG):
        # The bot is dropped: every later decision is the referee's (recorded as DEAD faults).
        assert not seats[0].alive
        assert all(k is FaultKind.DEAD for k in kinds[1:])
    else:
        assert seats[0].alive
        assert any(line.startswith("fault ") and f" {kind.value} " in line for line in seats[0].transport.sent)
    assert replay(record.transcript).outcome == record.outcome


@pytest.mark.parametrize("line, hinted", [
    ("DEBUG: chose draw for request 1", True),  # a debug print: the hint says where it belongs
    ("move draw", False),  # an attempt at a move, just malformed: its own message is enough
])
def test_a_malformed_line_that_is_no_move_at_all_says_where_diagnostics_go(line, hinted):
    seats = seats_with(faulty_at(4, lambda tokens: line), random_policy(2), random_policy(3))
    record = play_game(Game.new(Rules(), seed=3, dealer=0), seats, number=1)
    detail = next(f.detail for f in record.faults if f.seat == 0)
    assert ("write diagnostics to stderr" in detail) is hinted, detail


def test_forfeit_policy_makes_the_offender_skitgubbe():
    """R53: under fault_policy = forfeit the offender loses at once."""
    rules = Rules.from_options({"fault_policy": "forfeit"})
    game = Game.new(rules, seed=3, dealer=0)
    seats = seats_with(random_policy(1), faulty_at(2, lambda t: "nonsense"), random_policy(3))
    record = play_game(game, seats)
    assert record.outcome.reason is EndReason.FORFEIT
    assert record.outcome.skitgubbe == 1
    assert record.outcome.forfeited_seat == 1
    assert record.faults[0].kind is FaultKind.MALFORMED
    assert replay(record.transcript).outcome == record.outcome


@pytest.mark.parametrize("copies, kinds", [
    (1, [FaultKind.TIMEOUT]),  # the late line is skipped, the current answer counts
    (2, [FaultKind.TIMEOUT, FaultKind.STALE]),  # one late answer per request; a second copy is stale
])
def test_late_answer_to_an_old_request_is_dropped_not_a_fault(copies, kinds):
    """A bot that times out and answers later, before its answer to the next request."""
    state = {"late": None}

    def policy(n, tokens):
        moves = legal_moves_of(tokens)
        if n == 3:
            state["late"] = f"move {tokens[1]} {moves[0]}"
            return timeout_error()
        if n == 4:
            seats[0].transport.pending.extend([state["late"]] * copies)
        return f"move {tokens[1]} {moves[-1]}"

    game = Game.new(Rules(), seed=8, dealer=0)
    seats = seats_with(policy, random_policy(2), random_policy(3))
    record = play_game(game, seats)
    assert [f.kind for f in record.faults] == kinds


def test_late_answers_that_lag_far_behind_are_still_dropped_not_stale():
    """A bot a little slower than the limit falls further behind with every request (an audit's
    bot slept 2.5 s under a 2 s limit). Its late answers, however old, are dropped as section 7
    promises; the arena used to remember only the last 12 and charged older ones as `stale`."""
    outstanding: list[str] = []

    def always_late(n, tokens):
        if n > 60:
            return f"move {tokens[1]} {legal_moves_of(tokens)[0]}"
        outstanding.append(f"move {tokens[1]} {legal_moves_of(tokens)[0]}")
        if n % 2 == 0:  # one old answer every other request: the backlog grows by one every two
            seats[0].transport.pending.append(outstanding.pop(0))
        return timeout_error()

    seats = seats_with(always_late, random_policy(2), random_policy(3))
    record = play_game(Game.new(Rules(), seed=8, dealer=0), seats)
    kinds = [f.kind for f in record.faults if f.seat == 0]
    assert len(outstanding) > 12 and kinds and set(kinds) == {FaultKind.TIMEOUT}  # 12: the old window
    assert seats[0].alive  # a late answer is a sign of life: never two timeouts in a row here without one


def test_old_ids_that_are_not_late_answers_are_stale_and_do_not_hide_a_hang():
    """Found by a hostile bot answering `move 0 ...` to everything: every old id used to be taken
    for a late answer, dropped, and counted as a sign of life, so the bot was never called hung
    and cost the full move limit at each decision. Only a request that timed out (and is still
    unanswered) can get a late answer; any other old id is stale, at once."""
    answered = {}

    def repeats_old_answers(n, tokens):
        moves = legal_moves_of(tokens)
        if n == 1:
            answered["first"] = f"move {tokens[1]} {moves[0]}"
            return answered["first"]
        return "move 0 " + moves[0] if n % 2 else answered["first"]  # never-issued id, or a repeat

    game = Game.new(Rules(), seed=8, dealer=0)
    seats = seats_with(repeats_old_answers, random_policy(2), random_policy(3))
    record = play_game(game, seats)
    kinds = [f.kind for f in record.faults if f.seat == 0]
    # No timeout: each bad line is judged as it arrives. Three in a row answer nothing open, so
    # the bot is a flood (below): killed, and the rest of its game is the referee's.
    assert kinds[:FLOODED_AFTER_STRAY] == [FaultKind.STALE] * FLOODED_AFTER_STRAY
    assert set(kinds[FLOODED_AFTER_STRAY:]) == {FaultKind.DEAD}
    details = {f.detail.split(" (")[-1] for f in record.faults if f.kind is FaultKind.STALE}
    assert details == {"request 1 is over: answered already, or ended by a fault)", "no request 0 was ever sent)"}
    assert not seats[0].alive and seats[0].dead_reason == FLOODING_REASON


def test_a_backlog_of_copies_of_an_old_answer_is_a_flood_not_a_stale_fault_per_request():
    """Hostile-bot audit: a bot that wrote 2,000 copies of one answer had one read per request,
    each a `stale` fault, and was never stopped: 928 faults over the six games of its table, as
    the backlog outlived each game. Copies of an old answer answer nothing open, like lines that
    are no move: three in a row and it is killed (the next game gets a fresh process)."""
    def floods_copies(n, tokens):
        answer = f"move {tokens[1]} {legal_moves_of(tokens)[0]}"
        if n == 5:
            seats[0].transport.pending.extend([answer] * 2000)  # queued after the real answer
        return answer

    seats = seats_with(floods_copies, random_policy(2), random_policy(3))
    record = play_game(Game.new(Rules(), seed=8, dealer=0), seats)
    kinds = [f.kind for f in record.faults if f.seat == 0]
    assert kinds[:FLOODED_AFTER_STRAY] == [FaultKind.STALE] * FLOODED_AFTER_STRAY
    assert set(kinds[FLOODED_AFTER_STRAY:]) == {FaultKind.DEAD}
    assert not seats[0].alive and seats[0].dead_reason == FLOODING_REASON


def test_a_bot_that_answers_every_request_twice_is_charged_each_copy_but_not_killed():
    """Each second copy is stale, but the real answer to the request it spoilt comes next, as a
    late answer (section 7), which starts the count again: a bot with a bug in every answer loses
    every move, as one that prints a debug line before each answer does, without being killed."""
    def answers_twice(n, tokens):
        answer = f"move {tokens[1]} {legal_moves_of(tokens)[0]}"
        seats[0].transport.pending.append(answer)
        return answer

    seats = seats_with(answers_twice, random_policy(2), random_policy(3))
    record = play_game(Game.new(Rules(), seed=8, dealer=0), seats)
    kinds = [f.kind for f in record.faults if f.seat == 0]
    assert kinds and set(kinds) == {FaultKind.STALE} and seats[0].alive


def test_a_bot_that_answers_with_lines_that_are_no_moves_is_killed_as_flooding_after_three():
    """Hostile-bot audit: a bot flooding lines was charged a malformed fault at every decision (642
    over 18 games) and never stopped. Three answers in a row that are no move line: it is killed and
    dropped for the rest of the game, as a hung bot is; the referee's moves for it are not counted."""
    seats = seats_with(lambda n, tokens: "noise noise noise", random_policy(2), random_policy(3))
    record = play_game(Game.new(Rules(), seed=8, dealer=0), seats)
    kinds = [f.kind for f in record.faults if f.seat == 0]
    assert kinds[:FLOODED_AFTER_STRAY] == [FaultKind.MALFORMED] * FLOODED_AFTER_STRAY
    assert set(kinds[FLOODED_AFTER_STRAY:]) == {FaultKind.DEAD}
    assert seats[0].transport.requests == FLOODED_AFTER_STRAY and not seats[0].alive
    assert seats[0].dead_reason == FLOODING_REASON


def test_a_move_naming_the_open_request_with_a_garbled_move_is_charged_per_move_but_not_killed():
    """Flooding is lines that answer no open request (protocol.md section 9). `move 1 2` (a count
    where the move goes) names the open request: it answers it, badly. It had the bot killed as
    flooding after three, as if it were noise (a bot author's trial)."""
    seats = seats_with(lambda n, tokens: f"move {tokens[1]} 2", random_policy(2), random_policy(3))
    record = play_game(Game.new(Rules(), seed=8, dealer=0), seats)
    kinds = [f.kind for f in record.faults if f.seat == 0]
    assert kinds == [FaultKind.MALFORMED] * seats[0].transport.requests and seats[0].alive
    assert seats[0].transport.requests > FLOODED_AFTER_STRAY


def test_a_bot_that_prints_a_line_before_each_answer_is_charged_per_move_but_not_killed():
    """A debug print before every answer: each costs its move (the answer after it comes late and
    is dropped), but the late answer is a well-formed one, so the bot is not taken for a flood."""
    seats = seats_with(random_policy(1), random_policy(2), random_policy(3))
    answer = seats[0].transport.policy

    def prints_first(n, tokens):
        seats[0].transport.pending.append("thinking about it")
        return answer(n, tokens)

    seats[0].transport.policy = prints_first
    record = play_game(Game.new(Rules(), seed=8, dealer=0), seats)
    kinds = [f.kind for f in record.faults if f.seat == 0]
    assert kinds == [FaultKind.MALFORMED] * seats[0].transport.requests and seats[0].alive


def test_under_forfeit_a_bot_missing_from_the_start_is_the_skitgubbe_at_once():
    """R53: the offender is made the skitgubbe immediately; one that never started is no exception
    (it used to play on until some other bot's first fault, which then lost in its place)."""
    game = Game.new(Rules.from_options({"fault_policy": "forfeit"}), seed=4, dealer=0)
    seats = seats_with(random_policy(1), lambda n, tokens: "nonsense", random_policy(3))
    seats[2].drop("cannot start: no such file", FaultKind.NO_HELLO)
    record = play_game(game, seats)
    assert record.outcome.reason is EndReason.FORFEIT and record.outcome.skitgubbe == 2
    assert [(f.seat, f.kind) for f in record.faults] == [(2, FaultKind.NO_HELLO)] and record.moves == 0
    assert replay(record.transcript).outcome == record.outcome


def test_under_forfeit_with_two_bots_missing_the_one_that_plays_is_not_ranked_below_a_missing_one():
    """R53 with R51's tie-break from the player due to act: every hand holds the same number of
    cards before the first move, so the tie-break alone places the second missing bot and the live
    one. It used to start from the first missing seat, which put seat 1 (missing) first."""
    rules = Rules.from_options({"fault_policy": "forfeit"})
    seed = next(s for s in range(50) if Game.new(rules, seed=s, dealer=0).to_act == 2)
    seats = seats_with(random_policy(1), random_policy(2), random_policy(3))
    seats[0].drop("cannot start: no such file", FaultKind.NO_HELLO)
    seats[1].drop("cannot start: no such file", FaultKind.NO_HELLO)
    record = play_game(Game.new(rules, seed=seed, dealer=0), seats)
    assert record.outcome.finishing_order == (2, 1, 0) and record.points == (0, 1, 2)


def test_a_bot_already_gone_is_played_by_the_fallback():
    game = Game.new(Rules(), seed=4, dealer=0)
    seats = seats_with(random_policy(1), random_policy(2), random_policy(3))
    seats[2].drop("cannot start: no such file", FaultKind.NO_HELLO)
    record = play_game(game, seats)
    assert record.outcome.reason is EndReason.NORMAL
    kinds = [f.kind for f in record.faults if f.seat == 2]
    # Charged once, by the kind of its loss; then each move made for it is a `dead` record.
    assert kinds[0] is FaultKind.NO_HELLO and "no such file" in record.faults[0].detail
    assert set(kinds[1:]) == {FaultKind.DEAD} and len(kinds) > 10
    assert not any(f.seat != 2 for f in record.faults)


def test_the_protocol_log_keeps_a_capped_share_of_the_bots_lines(tmp_path):
    from arena.play.protocol_log import LoggedTransport

    log = tmp_path / "p.log"
    flood = ScriptedTransport(lambda n, tokens: None)
    flood.pending.extend([f"move 1 {'x' * 90}"] * 50)
    logged = LoggedTransport(flood, log, from_bot_cap_bytes=1000)
    logged.send("request 1")
    for _ in range(50):
        logged.receive(1.0)
    logged.close()
    lines = log.read_text().splitlines()
    assert lines[0] == "> request 1"
    assert sum(line.startswith("< ") for line in lines) == 10  # 10 x 99 bytes, then the cap
    assert lines[-1].startswith("! the bot's further lines are not logged")


def test_the_protocol_log_says_why_a_bot_went_whether_seen_on_a_read_or_a_write(tmp_path):
    """A bot found gone while the arena wrote to it left a log that ended at the request, with no
    word of why (an author's trial); and what the arena noticed came as a Python class name."""
    from arena.play.protocol_log import LoggedTransport
    from arena.transport import BotExited, BotTimeout

    log = tmp_path / "p.log"
    bot = ScriptedTransport(lambda n, tokens: None, name="b")
    logged = LoggedTransport(bot, log)
    with pytest.raises(BotTimeout):
        logged.receive(0.5)
    bot.closed = True  # the process exited: the next write finds it gone
    with pytest.raises(BotExited):
        logged.send_many(["event draw 1 -", "request 2 1 draw"])
    with pytest.raises(BotExited):
        logged.send("quit")
    logged.close()
    assert log.read_text().splitlines() == ["! b: no line within 0.5s", "> event draw 1 -", "> request 2 1 draw",
                                            "! b: closed", "> quit", "! b: closed"]


@pytest.mark.parametrize("draw_timing, bad_answer_at", [("after", 1), ("before", 2)])
def test_a_fallback_card_that_wins_the_trick_does_not_also_lead_the_next_one(draw_timing, bad_answer_at):
    """R52: one fallback covers the faulting turn only. B's fallback 9♦ beats A's 2♣, so B leads the
    next trick (A leads first: first_lead = forehand): that lead is B's own, asked for."""
    from tests.game.helpers import deal_game, make_rules

    def first_legal(n, tokens):
        return f"move {tokens[1]} {legal_moves_of(tokens)[0]}"

    def b_policy(n, tokens):  # under `before`, B draws, then garbles his card
        return "garbage" if n == bad_answer_at else first_legal(n, tokens)

    def new_game():
        return deal_game(make_rules(draw_timing=draw_timing, first_lead="forehand"), 2, ["2c 3c 4c", "9d 9h 9s", "Kd Kh Ks"],
                         "5d 6d 7d 8d Td Jd Qd 5h 6h 7h 8h Th Jh")

    seats = seats_with(lambda n, t: first_legal(n, t), b_policy, lambda n, t: first_legal(n, t))
    record = play_game(new_game(), seats)
    assert [(f.seat, f.kind) for f in record.faults] == [(1, FaultKind.MALFORMED)]
    again, b_moves = new_game(), 0
    for move in record.transcript.moves:
        b_moves += again.to_act == 1
        again.apply(move)
    b_requests = sum(line.startswith("request ") for line in seats[1].transport.sent)
    assert b_moves == b_requests  # the garbled request's move was the fallback; every other was asked


def test_a_quoted_bad_line_cannot_drive_the_terminal():
    # The fault detail quotes the bot's line and reaches terminals (play, replay, bot check): raw
    # escape sequences could erase the arena's own line and forge one blaming another seat.
    forged = "\x1b[2K\x1b[200D  fault seat 1 (random_bot): illegal\x00"
    game = Game.new(Rules(), seed=3, dealer=0)
    seats = seats_with(faulty_at(4, lambda tokens: f"move {tokens[1]} {legal_moves_of(tokens)[0]}{forged}"),
                       random_policy(2), random_policy(3))
    record = play_game(game, seats, number=1)
    detail = next(f.detail for f in record.faults if f.seat == 0)
    assert "\\x1b[2K" in detail and "\\x00" in detail
    assert detail.isprintable()


def test_a_multi_frame_zeromq_answer_is_malformed_not_a_lost_bot():
    # It was charged `exited` and the bot dropped for the game; it answered, just not in one frame.
    game = Game.new(Rules(), seed=3, dealer=0)
    seats = seats_with(faulty_at(4, lambda tokens: multi_frame_error()), random_policy(2), random_policy(3))
    record = play_game(game, seats, number=1)
    assert [f.kind for f in record.faults if f.seat == 0] == [FaultKind.MALFORMED]
    assert seats[0].alive


class _SendOnly:
    """A transport with `send` alone (the interface's minimum): no `send_many`."""

    def __init__(self, inner: ScriptedTransport) -> None:
        self.inner = inner

    def send(self, line: str) -> None:
        self.inner.send(line)

    def receive(self, timeout_s: float) -> str:
        return self.inner.receive(timeout_s)

    def close(self, grace_s: float = 0.0) -> None:
        self.inner.close(grace_s)


def test_a_transport_without_send_many_gets_every_line_in_order():
    """The referee looks each bot's way of sending up once per game (seat.lines_sender); one with
    `send` alone gets the queued events and the request one by one, as one with `send_many` does."""
    plain = seats_with(random_policy(1), random_policy(2), random_policy(3))
    play_game(Game.new(Rules(), seed=4, dealer=0), plain)
    inner = ScriptedTransport(random_policy(1), "a")
    wrapped = [Seat(name="a", transport=_SendOnly(inner))] + seats_with(random_policy(2), random_policy(3), names=("b", "c"))
    record = play_game(Game.new(Rules(), seed=4, dealer=0), wrapped)
    assert not record.faults and inner.sent == plain[0].transport.sent


@pytest.mark.parametrize("kind", ["timeout", "malformed", "none"])
def test_every_move_keeps_the_think_time_of_the_answer_it_came_from(kind):
    """The replay page shows each move's think time: one entry per move of the transcript, the
    bot's own time for its answers, and for the referee's fallback the faulty answer's time if
    one came (None after a timeout, and for the second step of a fallback turn)."""
    fault = {"timeout": lambda tokens: timeout_error(), "malformed": lambda tokens: "garbage",
             "none": None}[kind]
    first = seats_with(faulty_at(1, fault) if fault else random_policy(1), random_policy(2), random_policy(3))
    record = play_game(Game.new(Rules(), seed=3, dealer=0), first, number=1)
    assert len(record.move_think_s) == record.moves == len(record.transcript.moves)
    answered = [t for t in record.move_think_s if t is not None]
    assert all(t >= 0 for t in answered)
    if kind == "none":
        assert len(answered) == record.moves
        return
    [fault_record] = record.faults
    at = fault_record.move_number
    assert record.transcript.moves[at].kind.value == "draw"  # R52: the fallback turn's first step is DRAW
    assert (record.move_think_s[at] is None) is (kind == "timeout")  # a malformed answer came, in some time
    assert record.move_think_s[at + 1] is None  # the card after the draw: the referee's, nobody thought
    assert len(answered) == record.moves - 2 + (kind == "malformed")


class _WithStderr(ScriptedTransport):
    def stderr_tail(self, n_bytes: int = 2000) -> str:
        return "".join(f"line {i} <script>alert(1)</script>\n" for i in range(40))[-n_bytes:]


@pytest.mark.parametrize("kept", [True, False], ids=["--log", "no log"])
def test_a_fault_keeps_the_tail_of_the_bots_stderr_only_where_the_run_keeps_stderr(kept):
    seat = Seat(name="a", transport=_WithStderr(faulty_at(2, lambda tokens: "garbage"), "a"), keep_stderr=kept)
    record = play_game(Game.new(Rules(), seed=3, dealer=0), [seat] + seats_with(random_policy(2), random_policy(3),
                                                                                 names=("b", "c")))
    [fault] = record.faults
    if not kept:
        assert fault.stderr == ""
        return
    lines = fault.stderr.splitlines()
    assert len(lines) == 20 and lines[-1] == "line 39 <script>alert(1)</script>"  # its last lines, as written


def test_a_bot_faulting_at_every_move_keeps_the_stderr_of_its_first_few_faults_only():
    illegal = lambda n, tokens: f"move {tokens[1]} pickup" if "pickup" not in tokens else f"move {tokens[1]} draw"  # noqa: E731
    seat = Seat(name="a", transport=_WithStderr(illegal, "a"), keep_stderr=True)
    record = play_game(Game.new(Rules(), seed=3, dealer=0), [seat] + seats_with(random_policy(2), random_policy(3),
                                                                                 names=("b", "c")))
    assert len(record.faults) > 10
    assert [bool(f.stderr) for f in record.faults] == [True] * 3 + [False] * (len(record.faults) - 3)
