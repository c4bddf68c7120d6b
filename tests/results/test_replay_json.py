"""A stored game as the replay's JSON (arena/results/replay_json.py): the deal as the seed gives it
(R7), each move with its player, its count of legal moves (the engine's) and its think time, the
referee's fallback moves marked (R52, both steps of a fallback turn), the faults with their stderr,
and the outcome; a game stored before think times were kept has null ones."""

from __future__ import annotations

import dataclasses
import json

from arena.game import Game, Rules, format_card, format_move
from arena.results.replay_json import FORMAT, game_replay
from tests.fakes import faulty_at, random_policy, timeout_error
from tests.replay_support import played_row


def test_the_deal_legal_moves_and_players_are_the_engines():
    row = played_row({"num_players": 4, "two_player_removed_cards": 0}, seed=9, extra={
        "arena": "0.1.0", "protocol": 1, "versions": {"a": "1a2b", "b": "3c4d"}, "time_limits": {"move_timeout_s": 2.0}})
    data = json.loads(json.dumps(game_replay(row, 17, tournament="Cup")))  # JSON all the way
    assert data["format"] == FORMAT and data["game"]["number"] == 17 and data["game"]["key"] == row.key
    assert data["engine"]["arena"] == "0.1.0" and data["engine"]["protocol"] == 1
    assert [bot["version"] for bot in data["bots"]] == ["1a2b", "3c4d", None, None]
    assert data["rules"]["num_players"] == 4 and data["changed_rules"] == {"num_players": 4}
    dealt = Game(Rules.from_options(data["rules"]), row.seed, row.dealer)
    dealt.deal()
    assert data["deal"]["hands"] == [[format_card(c) for c in hand] for hand in dealt.hands]
    assert data["deal"]["stock"][0] == format_card(dealt.stock[-1])  # the top first
    assert sum(map(len, data["deal"]["hands"])) + len(data["deal"]["stock"]) == 52
    game = Game.new(row.transcript.rules, row.seed, row.dealer)
    for entry, move in zip(data["moves"], row.transcript.moves, strict=True):
        assert (entry["seat"], entry["legal"], entry["move"]) == (game.to_act, len(game.legal_moves()), format_move(move))
        assert entry["think_ms"] is not None and "by_referee" not in entry
        game.apply(move)
    assert data["outcome"]["order"] == list(row.finishing_order) and data["outcome"]["points"] == list(row.points)


def test_the_referees_moves_for_a_faulting_bot_are_marked_with_the_fault():
    """R52: a timeout on the source step (draw) makes the whole turn the referee's: both moves;
    a malformed answer comes with its time, a timeout without."""
    row = played_row({}, seed=3, policies=[faulty_at(1, lambda t: timeout_error()), faulty_at(2, lambda t: "x <b>"),
                                           random_policy(5)])
    malformed, timeout = sorted(row.faults, key=lambda fault: fault["kind"])
    malformed["stderr"] = "Traceback\n<script>x</script>"  # as a run with --log keeps it
    data = game_replay(row)
    marked = [index for index, move in enumerate(data["moves"]) if move.get("by_referee")]
    assert marked == sorted([timeout["move"], timeout["move"] + 1, malformed["move"], malformed["move"] + 1])
    assert [data["moves"][i]["move"] for i in marked][::2] == ["draw", "draw"]  # the source step first
    assert data["moves"][timeout["move"]]["think_ms"] is None and data["moves"][malformed["move"]]["think_ms"] is not None
    assert all(data["moves"][i]["think_ms"] is None for i in marked[1::2])  # nobody thought about the card
    faults = {fault["kind"]: fault for fault in data["faults"]}
    assert faults["malformed"] == {"seat": 1, "kind": "malformed", "detail": malformed["detail"],
                                   "move": malformed["move"], "stderr": "Traceback\n<script>x</script>"}
    assert faults["timeout"]["stderr"] is None and faults["timeout"]["seat"] == 0


def test_a_forfeit_and_a_game_stored_without_think_times():
    row = played_row({"fault_policy": "forfeit"}, seed=4, policies=[random_policy(1), faulty_at(9, lambda t: "x"),
                                                                    random_policy(3)])
    data = game_replay(dataclasses.replace(row, extra={}))
    assert data["outcome"]["forfeited_seat"] == 1 and data["outcome"]["reason"] == "forfeit"
    assert data["engine"] == {"arena": None, "protocol": None, "written_by": data["engine"]["written_by"]}
    older = dataclasses.replace(row)  # a games row of schema 2: no think times with the transcript
    older.__dict__["_transcript"], older.__dict__["_think_s"] = row.transcript, None
    assert {move["think_ms"] for move in game_replay(older)["moves"]} == {None}
