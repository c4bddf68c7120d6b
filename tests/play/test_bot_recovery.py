"""A bot lost in one game (crash, hang) costs that game only: it is killed, and a fresh process plays the
next game. Hung bots are cut off after a few silent requests instead of costing the move limit at every
decision (R52 still decides each move it failed to make)."""

from __future__ import annotations

import os
import time

import pytest

from arena.game import EndReason, Game, Rules
from arena.submission.lookup import load_manifest
from arena.play.match import MAX_FAILED_RESTARTS, open_table, play_match
from arena.play.startup import BotSettings
from arena.play.referee import HUNG_AFTER_TIMEOUTS, play_game
from arena.play.records import FaultKind, TimeLimits
from arena.play.seat import Seat
from tests.fakes import ScriptedTransport, random_policy, timeout_error
from tests.bots_support import hostile_bot



def hostile(mode: str):
    return load_manifest(hostile_bot(mode))


def random_bot():
    return load_manifest("random_bot")


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def test_a_silent_bot_is_killed_after_a_few_timeouts_not_asked_all_game():
    silent = ScriptedTransport(lambda n, tokens: timeout_error(), "silent")
    seats = [Seat("silent", silent), Seat("b", ScriptedTransport(random_policy(2))),
             Seat("c", ScriptedTransport(random_policy(3)))]
    record = play_game(Game.new(Rules(), seed=4, dealer=0), seats)
    kinds = [f.kind for f in record.faults if f.seat == 0]
    assert kinds[:HUNG_AFTER_TIMEOUTS] == [FaultKind.TIMEOUT] * HUNG_AFTER_TIMEOUTS
    assert set(kinds[HUNG_AFTER_TIMEOUTS:]) == {FaultKind.DEAD}  # R52 decides the rest at once
    assert silent.requests == HUNG_AFTER_TIMEOUTS
    assert silent.closed and not seats[0].alive and seats[0].dead_reason.startswith("hung:")
    assert record.outcome.reason is EndReason.NORMAL


def test_an_answer_resets_the_count_so_a_slow_bot_is_not_called_hung():
    good = random_policy(1)

    def sometimes_slow(n, tokens):  # every other request times out: never three in a row
        return timeout_error() if n % 2 == 0 else good(n, tokens)

    transport = ScriptedTransport(sometimes_slow, "slow")
    seats = [Seat("slow", transport), Seat("b", ScriptedTransport(random_policy(2))),
             Seat("c", ScriptedTransport(random_policy(3)))]
    record = play_game(Game.new(Rules(), seed=4, dealer=0), seats)
    assert seats[0].alive and not transport.closed
    assert {f.kind for f in record.faults} == {FaultKind.TIMEOUT}


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to inspect the process table")
def test_a_crashed_bot_plays_the_next_game_as_a_fresh_process():
    with open_table([hostile("crash_even_games"), random_bot(), random_bot()], BotSettings()) as seats:
        first_pid = seats[0].transport.process.pid
        result = play_match(seats, Rules(), seed=5, games=4)
        assert seats[0].restarts == 1  # before game 3; it crashed again in game 4, the last
        last_pid = seats[0].transport.process.pid
    by_game = {r.number: [f.kind for f in r.faults if f.seat == 0] for r in result.records}
    assert by_game[1] == [] and by_game[3] == []  # fresh processes, no fault
    for number in (2, 4):
        assert by_game[number][0] is FaultKind.EXITED
        # the crash's reason, from the end of its stderr, is in the fault itself
        crash = next(f for f in result.records[number - 1].faults if f.seat == 0)
        assert crash.detail.endswith(f"(exit code 7); its stderr says: ValueError: gave up in game {number}"), crash.detail
        assert set(by_game[number][1:]) <= {FaultKind.DEAD}
    assert first_pid != last_pid and gone(first_pid) and gone(last_pid)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to inspect the process table")
def test_a_hung_bot_is_killed_and_replaced_for_the_next_game():
    move_timeout_s = 0.3
    settings = BotSettings(limits=TimeLimits(move_timeout_s=move_timeout_s))
    started = time.monotonic()
    with open_table([hostile("hang_odd_games"), random_bot(), random_bot()], settings) as seats:
        hung_pid = seats[0].transport.process.pid
        result = play_match(seats, Rules(), seed=5, games=2, limits=settings.limits)
        assert gone(hung_pid), "the hung bot was not killed"
        assert seats[0].alive and seats[0].restarts == 1
    game1, game2 = result.records
    kinds = [f.kind for f in game1.faults if f.seat == 0]
    assert kinds[:HUNG_AFTER_TIMEOUTS] == [FaultKind.TIMEOUT] * HUNG_AFTER_TIMEOUTS
    assert set(kinds[HUNG_AFTER_TIMEOUTS:]) == {FaultKind.DEAD}
    assert [f for f in game2.faults if f.seat == 0] == []
    # The hang cost a few move limits, not one per remaining decision (dozens).
    assert time.monotonic() - started < 30 * move_timeout_s


def test_a_bot_that_never_starts_is_given_up_after_a_few_tries(tmp_path):
    # Each start leaves a line in its stderr log (a sandboxed bot cannot write elsewhere), then
    # the bot exits without a hello.
    (tmp_path / "bot.toml").write_text(
        'name = "dud"\ncommand = ["sh", "-c", "echo start >&2; exit 1"]\ntransport = "pipe"\n')
    dud = load_manifest(tmp_path / "bot.toml")
    logs = tmp_path / "logs"
    with open_table([dud, random_bot(), random_bot()], BotSettings(log_dir=logs)) as seats:
        result = play_match(seats, Rules(), seed=3, games=MAX_FAILED_RESTARTS + 3)
        assert not seats[0].alive and seats[0].restarts == 0
    # The table's first start counts among the tries; after the last one it stays out.
    assert (logs / "seat0-dud.stderr.log").read_text().count("start") == MAX_FAILED_RESTARTS
    assert all(r.outcome.reason is EndReason.NORMAL for r in result.records)


def test_a_fresh_process_is_told_the_games_still_to_come():
    """protocol.md section 4: the `match` line a bot gets after a restart counts the games from the
    one it is started for to the end, that one included (games 2 to 6 of six: games=5)."""
    fresh = []

    def restart() -> Seat:
        transport = ScriptedTransport(random_policy(len(fresh) + 9), name="s")
        transport.send("hello protocol=1")  # the handshake the real start does; its reply is read here
        transport.receive(1.0)
        fresh.append(transport)
        return Seat("s", transport)

    silent = ScriptedTransport(lambda n, tokens: None, name="s")  # hung: cut off in game 1
    seats = [Seat("s", silent, restart=restart), Seat("b", ScriptedTransport(random_policy(2))),
             Seat("c", ScriptedTransport(random_policy(3)))]
    result = play_match(seats, Rules(), seed=5, games=6, limits=TimeLimits(move_timeout_s=0.01))
    assert len(result.records) == 6 and len(fresh) == 1
    assert [line for line in silent.sent if line.startswith("match ")][0].split()[2] == "games=6"
    told = [line for line in fresh[0].sent if line.startswith("match ")]
    assert len(told) == 1 and told[0].split()[2] == "games=5", told


def test_failed_starts_are_counted_from_the_first(tmp_path):
    """The first game's fault says one start failed, the second's two in a row (an extra try before
    game 1 once made it say "2 failed starts in a row" after one)."""
    (tmp_path / "bot.toml").write_text('name = "dud"\ncommand = ["sh", "-c", "exit 1"]\ntransport = "pipe"\n')
    dud = load_manifest(tmp_path / "bot.toml")
    with open_table([dud, random_bot(), random_bot()], BotSettings()) as seats:
        result = play_match(seats, Rules(), seed=3, games=MAX_FAILED_RESTARTS + 1)
    details = [next(f.detail for f in record.faults if f.seat == 0).removeprefix("out of this game: ")
               for record in result.records]
    assert "failed start" not in details[0] and "fresh start" not in details[0], details[0]
    assert details[1].startswith("2 failed starts in a row"), details[1]
    assert details[2].startswith(f"not started again in this match after {MAX_FAILED_RESTARTS} failed starts"), details[2]
    assert details[3] == details[2]
    assert {f.kind for record in result.records for f in record.faults if f.seat == 0} <= {FaultKind.NO_HELLO, FaultKind.DEAD}
