"""`arena play` runs through a match object (issue 41), as `tournament run` runs through its
session: MatchSession decides (the options, the rules, the isolation, the bots), plays, and hands
the CLI an outcome to word; the CLI decides nothing of it."""

from __future__ import annotations

import pytest

from arena.errors import ArenaError
from arena.play.seating import Seats
from arena.sandbox.isolation import IsolationMode
from arena.tournament.match_session import MatchOptions, MatchOutcome, MatchSession, MatchView, check_options, match_rules

THREE = ("random_bot", "heuristic_bot", "shell_bot")


@pytest.mark.parametrize(("options", "said"), [
    (MatchOptions(("random_bot",)), "a table seats 2 to 5 bots; you named 1"),
    (MatchOptions(THREE, games=3, duplicate=True), "give the number of deals with --deals, not --games"),
    (MatchOptions(THREE, deals=4), "--deals counts the deals of --duplicate"),
    (MatchOptions(THREE, duplicate=True, seats=Seats.FIXED), "it cannot keep the seats fixed"),
])
def test_options_that_contradict_each_other_are_refused_before_any_bot_is_found(options, said):
    with pytest.raises(ArenaError, match=said):
        check_options(options)


def test_the_rules_are_those_asked_at_a_table_of_as_many_seats_as_bots():
    assert match_rules(MatchOptions(THREE)).num_players == 3
    with pytest.raises(ArenaError, match="--rule num_players=4 does not match the 3 bots named"):
        match_rules(MatchOptions(THREE, rule_options={"num_players": "4"}))


def test_a_match_is_decided_and_played_below_the_cli_which_only_shows_it(tmp_path):
    said: list[str] = []
    games: list[tuple[int, tuple[int, ...], tuple[str, ...]]] = []
    moves: list[str] = []
    options = MatchOptions(("random_bot", "random_bot"), games=2, seed=4, log_dir=tmp_path / "logs",
                           isolation=IsolationMode.OFF)
    session = MatchSession(options, say=said.append)
    session.open()
    assert said == ['isolation: none: bots can read whatever the arena\'s user can (isolation = "off")']
    view = MatchView(on_game=lambda record, score, seating, names: games.append(
        (record.number, tuple(seating), tuple(names))), on_move=moves.append)
    outcome = session.play(view)
    assert outcome.result is not None and len(outcome.result.records) == 2 and outcome.standings is None
    assert outcome.labels == ("random_bot#0", "random_bot#1") and outcome.start_failure() is None
    # Seats rotate by default: the second game is played with the players moved one seat.
    assert [(number, seating) for number, seating, _ in games] == [(1, (0, 1)), (2, (1, 0))]
    assert sum(line.startswith("random_bot ") for line in moves) >= sum(r.moves for r in outcome.result.records) // 2
    assert sorted(path.name for path in (tmp_path / "logs").glob("game-*")) == [
        "game-0001.transcript.txt", "game-0002.transcript.txt"]


def test_a_bot_that_never_played_is_a_sentence_the_cli_ends_with():
    outcome = MatchOutcome(("a", "b"), ("a", "b"), ((1, "cannot start: no such program"),))
    assert outcome.start_failure() == "b could not start, so its moves were the referee's: cannot start: no such program"
