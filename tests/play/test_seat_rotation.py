"""`arena play` rotates seats (each bot plays every seat) unless asked to keep them; with
--duplicate it plays every deal in every seating, with the cards a tournament table gets."""

from __future__ import annotations

import json
from collections import Counter

from arena.game import Rules
from arena.game.scoring import game_points
from arena.play.match import play_match, rotation
from arena.play.seat import Seat
from tests.cli_support import invoke
from tests.fakes import ScriptedTransport, random_policy


def seats_of(names: str) -> list[Seat]:
    return [Seat(name=n, transport=ScriptedTransport(random_policy(i), n)) for i, n in enumerate(names)]


def test_rotating_seats_give_every_player_every_seat_and_the_players_their_own_points():
    assert [rotation(k, 3) for k in (1, 2, 3, 4)] == [(0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 1, 2)]
    rules = Rules()
    result = play_match(seats_of("abc"), rules, seed=4, games=6, rotate=True)
    assert result.seatings == tuple(rotation(k, 3) for k in range(1, 7))
    seen = Counter((player, seat) for seating in result.seatings for seat, player in enumerate(seating))
    assert set(seen) == {(p, s) for p in range(3) for s in range(3)} and set(seen.values()) == {2}
    totals = [0, 0, 0]
    for record, seating in zip(result.records, result.seatings):
        assert record.bots == tuple("abc"[player] for player in seating)  # the game's seats hold those players
        for seat, points in enumerate(game_points(record.outcome, rules)):
            totals[seating[seat]] += points
    assert list(result.totals) == totals


def test_fixed_seats_play_as_before():
    rules = Rules()
    fixed = play_match(seats_of("abc"), rules, seed=4, games=3)
    assert fixed.seatings == ((0, 1, 2),) * 3 and all(r.bots == ("a", "b", "c") for r in fixed.records)


def test_play_duplicate_gives_points_per_game_and_the_cards_of_a_tournament_table(tmp_path):
    bots = ["heuristic_bot", "random_bot", "shell_bot"]
    played = invoke("play", *bots, "--duplicate", "--deals", "2", "--seed", "9")
    text = " ".join(played.output.split())
    assert played.exit_code == 0, text
    assert "game 12:" in text and "game 13:" not in text and "2 deals in every seating" in text and "±" in text
    config = tmp_path / "t.toml"
    config.write_text(f'seed = 9\ndeals = 2\nworkers = 1\nbots = {json.dumps(bots)}\n')
    assert invoke("tournament", "run", str(config)).exit_code == 0
    standings = json.loads(invoke("standings", str(config), "--format", "json").output)
    for bot in standings["bots"]:  # the same games: the same points, bot by bot
        assert _row(played.output, bot["bot"]) == ["12", str(bot["points"])], (bot, played.output)


def _row(output: str, bot: str) -> list[str]:
    line = next(line for line in output.splitlines() if f" {bot} " in line and "│" in line)
    return [cell.strip() for cell in line.split("│")[3:5]]


def test_play_refuses_options_that_contradict_each_other():
    both = invoke("play", "random_bot", "random_bot", "--duplicate", "--games", "3")
    assert both.exit_code == 2 and "--deals" in both.output
    fixed = invoke("play", "random_bot", "random_bot", "--duplicate", "--seats", "fixed")
    assert fixed.exit_code == 2 and "every seating" in fixed.output
    odd = invoke("play", "random_bot", "random_bot", "--seats", "sometimes")
    said = " ".join(odd.output.split())  # a choice the command line offers (click), not a hand check
    assert odd.exit_code == 2 and "'--seats'" in said and "'sometimes' is not one of 'rotate', 'fixed'" in said
