"""What protocol.md (sections 5 and 8, appendix E.3) promises bot authors about events, checked over
random games: the order of events at the end of a trick and at the change of phase, and the order of
the cards of a `pickup` event under each `pickup` option (R42-R43)."""

from __future__ import annotations

import random

import pytest

from arena.game import Game, Rules
from arena.game.events import EventKind as K


def random_games(options: dict, count: int = 120):
    rules = Rules.from_options(options)
    for seed in range(count):
        game = Game.new(rules, seed, seed % rules.num_players)
        pick = random.Random(seed).choice
        tables = []  # the table as it lay before each move
        while game.outcome is None:
            tables.append([c for unit in game.table for c in unit])
            game.apply(pick(game.legal_moves()))
        yield game, tables


@pytest.mark.parametrize("options", [{}, {"phase1_end": "play_out"}, {"phase1_mode": "all"},
                                     {"zero_card_start": "must_pick_up"}, {"completer_leads": "false"}])
def test_events_at_the_end_of_a_trick_and_at_the_change_of_phase(options):
    for game, _ in random_games(options):
        kinds = [e.kind for e in game.events]
        assert kinds[-1] is K.END and kinds.count(K.END) == 1
        for i, kind in enumerate(kinds):
            if kind is K.DISCARD:  # a completed phase-2 trick: the next trick's lead follows
                assert kinds[i + 1] is K.LEAD
            if kind is K.PHASE2:  # after the phase-1 trick's end: outs, then the end or the first lead
                assert kinds[i - 1] in (K.TAKE, K.VOID)
                j = i + 1
                while kinds[j] is K.OUT:
                    j += 1
                assert kinds[j] in (K.END, K.LEAD)
            if kind is K.LEAD:
                assert K.PHASE2 in kinds[:i]  # phase 1 has no lead event


@pytest.mark.parametrize("pickup", ["trick", "top_play", "bottom_play", "top_card", "top_run"])
def test_the_cards_of_a_pickup_event_are_in_the_order_protocol_md_gives(pickup):
    seen = 0
    for game, tables in random_games({"pickup": pickup}, count=60):
        pickups = [e for e in game.events if e.kind is K.PICKUP]
        before = [t for t, move in zip(tables, game.moves) if str(move) == "pickup"]
        for event, table in zip(pickups, before):
            cards = list(event.cards)
            if pickup in ("top_card", "top_run"):  # from the top of the pile down
                assert cards == table[::-1][:len(cards)]
            elif pickup == "trick":  # as they lay, bottom up
                assert cards == table
            elif pickup == "top_play":
                assert cards == table[len(table) - len(cards):]
            else:
                assert cards == table[:len(cards)]
            seen += 1
    assert seen > 50
