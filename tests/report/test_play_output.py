"""What `arena play` prints after each game: the match's own change (pot included, R55), the
running totals, and bots seated twice told apart by seat."""

from __future__ import annotations

import io

from rich.console import Console

from arena.game import Rules
from arena.play.match import play_match
from arena.play.seat import Seat
from arena.report.matches import render_game_record, seat_labels
from tests.fakes import ScriptedTransport, random_policy


def test_a_bot_seated_twice_is_told_apart_by_seat():
    assert seat_labels(["random_bot", "c_bot", "random_bot"]) == ["random_bot#0", "c_bot", "random_bot#2"]
    assert seat_labels(["a", "b", "c"]) == ["a", "b", "c"]


def test_pot_games_show_the_carried_pot_and_totals_that_add_up():
    # A low R51 cap stops some games before anybody goes out: their pot carries over (R55).
    rules = Rules.from_options({"scoring": "pot", "max_phase2_actions": "30"})
    seats = [Seat(name=n, transport=ScriptedTransport(random_policy(i), n)) for i, n in enumerate("abc")]
    lines: list[str] = []
    totals = [0, 0, 0]
    carried_seen = False

    def on_game(record, score, seating):
        nonlocal carried_seen
        console = Console(file=io.StringIO(), width=300, color_system=None)
        render_game_record(record, console, score)
        text = console.file.getvalue()
        lines.append(text)
        for seat in range(3):
            totals[seat] += score.last_change[seat]
        assert list(score.totals) == totals  # the printed changes add up to the printed totals
        assert "match  a=%d b=%d c=%d" % tuple(score.totals) in text
        if score.pot:
            carried_seen = True
            assert f"the pot of {score.pot} chips carries over" in text

    result = play_match(seats, rules, seed=3, games=12, on_game=on_game)
    assert len(lines) == 12 and list(result.totals) == totals
    assert carried_seen, "no game left the pot unwon: raise the cap's bite"


def test_moves_made_for_a_gone_bot_are_summed_up_not_listed_as_faults():
    import io

    from rich.console import Console

    from arena.game import EndReason, Outcome
    from arena.play.records import Fault, FaultKind, GameRecord
    from arena.report.matches import render_game_record

    faults = (Fault(0, FaultKind.EXITED, "exited (code 1)", 3),) + tuple(
        Fault(0, FaultKind.DEAD, "exited (code 1)", 4 + i) for i in range(40)) + tuple(
        Fault(2, FaultKind.DEAD, "hung: 3 requests in a row got no answer within 2 s", 50 + i) for i in range(3))
    record = GameRecord(number=1, bots=("x", "y", "z"), outcome=Outcome((1, 2, 0), EndReason.NORMAL, went_out=2),
                        transcript=None, points=(0, 2, 1), faults=faults, think_times_s=((), (), ()), moves=90)
    console = Console(file=io.StringIO(), width=200, color_system=None)
    render_game_record(record, console)
    text = console.file.getvalue()
    assert "exited: exited (code 1)" in text and "dead" not in text and "more faults" not in text
    assert "(40 moves made by the referee for seat 0 (x), gone: exited (code 1))" in text
    assert "(3 moves made by the referee for seat 2 (z), gone: hung: 3 requests in a row got no answer within 2 s)" in text


def test_a_fifo_in_place_of_a_transcript_is_a_note_not_a_hung_match(tmp_path):
    """Bots can write into the log folder. A FIFO named like a game's transcript once hung
    `arena play --log` at the end of that game."""
    import os
    import subprocess
    import sys

    os.mkfifo(tmp_path / "game-0001.transcript.txt")
    done = subprocess.run([sys.executable, "-m", "arena", "play", "random_bot", "random_bot", "--games", "2",
                           "--log", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "cannot write" in done.stderr and "game-0001.transcript.txt" in done.stderr
    assert (tmp_path / "game-0002.transcript.txt").read_text().strip()
