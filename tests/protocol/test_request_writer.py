"""The referee's `RequestWriter` writes the very bytes of `format_request(id, game.view(seat), legal)`
and `format_event` (protocol.md sections 6 and 8), request by request, under every option that
changes what a seat sees (R8-R10): it reads the game's state itself and keeps texts while they
hold, so this is what holds it to `build_view`."""

from __future__ import annotations

import random

import pytest

from arena import protocol
from arena.game import Game, Rules
from arena.protocol.request_writer import RequestWriter

OPTIONS = [
    {},
    {"phase1_mode": "all", "draw_timing": "after"},
    {"pickup": "top_play", "public_won_piles": False, "trump_only_if_void": True},
    {"num_players": 2, "scoring": "pot"},
    {"num_players": 4, "allow_chance": False},
    {"num_players": 5, "ace_high": True, "max_phase2_actions": 40},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_request_and_event_lines_equal_the_codec_s(options):
    rules = Rules.from_options(options)
    pick = random.Random(22).random
    requests = 0
    for seed in range(40):
        game = Game.new(rules, seed, seed % rules.num_players)
        writer = RequestWriter(game)
        events_seen = 0
        while game.outcome is None:
            legal = game.legal_moves()
            assert writer.request(requests + 1, legal) == protocol.format_request(
                requests + 1, game.view(game.to_act), legal), f"seed {seed}, move {len(game.moves)}"
            for event in game.events[events_seen:]:
                assert writer.event(event) == protocol.format_event(event)
            events_seen = len(game.events)
            requests += 1
            game.apply(legal[int(pick() * len(legal))])
        for event in game.events[events_seen:]:
            assert writer.event(event) == protocol.format_event(event)
    assert requests > 40 * 50  # whole games, both phases


def test_a_forfeit_s_end_event_is_written_as_the_codec_writes_it():
    game = Game.new(Rules(), 3, 0)
    writer = RequestWriter(game)
    game.apply(game.legal_moves()[0])
    game.forfeit(game.to_act, "timeout: no move within 1 s")
    assert [writer.event(e) for e in game.events] == [protocol.format_event(e) for e in game.events]
