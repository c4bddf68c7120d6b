"""Phase 1 with everybody (`phase1_mode = all`, docs/rules.md A1-A5): who plays, who wins, stunsa
among the tied players only, a stunsa that cannot be played, play_out, and what the view says."""

from __future__ import annotations

import pytest

from arena.game import EventKind, parse_card
from arena.protocol import format_request, parse_message

from .helpers import cards, deal_game, do, hand_text, legal_texts, make_rules

A, B, C, D = 0, 1, 2, 3
FILLER = "2c 2d 3c 4c 5c 6c 7c 8c 9c Tc Jc"  # stock cards that tie nothing in the scenarios below


def settled(g):
    """The last stunsa, take or void (an automatic draw of the next turn may follow it)."""
    return next(e for e in reversed(g.events) if e.kind in (EventKind.STUNSA, EventKind.TAKE, EventKind.VOID))


def everybody(**options):
    # No chance, so every draw is automatic (R16) and each turn is one decision: the card.
    return make_rules(phase1_mode="all", allow_chance=False, **options)


def test_everybody_plays_clockwise_from_the_duel_winner_dealer_included_A1():
    """A1: the duel (R13) still picks the first leader, but the dealer plays to the first trick too,
    last; A2: the highest card takes every card and its player leads next, again before everybody."""
    g = deal_game(everybody(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 9s 7s"], FILLER)
    assert (g.leader, g.opponent, g.round_seats, g.to_act) == (A, None, [A, B, C], A)
    do(g, "4h")
    assert g.to_act == B
    do(g, "6d")
    assert g.to_act == C  # the dealer, whom R13 keeps out of a two-player first trick
    do(g, "9s")
    take = settled(g)
    assert take.kind is EventKind.TAKE and take.seat == C  # R19: 9 beats 6 and 4
    assert sorted(g.won[C]) == sorted(cards("4h 6d 9s")) and g.won[A] == g.won[B] == []  # R20
    assert (g.leader, g.round_seats, g.to_act) == (C, [C, A, B], C)  # A2, R24


def test_forehand_leads_and_four_players_all_play_A1():
    g = deal_game(everybody(num_players=4, first_lead="forehand"), D, ["2d 4h 3d", "Jd 6d 3s", "2h 9s 7s", "Kh 5s 5d"],
                  FILLER)
    assert g.duel == [] and g.round_seats == [A, B, C, D]  # P1 = the dealer's left leads (R14)
    do(g, "2d", "3s", "2h", "Kh")
    assert settled(g).kind is EventKind.TAKE and settled(g).seat == D
    assert g.round_seats == [D, A, B, C]


def test_stunsa_is_played_by_the_tied_players_only_in_the_order_they_played_A3():
    """A3: B and the dealer C tie on top with nines; A's lower card keeps no part. B plays first again;
    the winner of that round takes all five cards."""
    g = deal_game(everybody(), C, ["Kd 4h 3d", "Jc 9d 3s", "Qh 9s 7s"], FILLER)
    do(g, "4h", "9d", "9s")
    assert settled(g).kind is EventKind.STUNSA
    assert (g.round_seats, g.to_act, g.leader) == ([B, C], B, A)
    assert [c for _, c, _ in g.trick] == cards("4h 9d 9s")  # the cards stay on the table (R21)
    do(g, "3s", "Qh")
    assert settled(g).kind is EventKind.TAKE and settled(g).seat == C
    assert sorted(g.won[C]) == sorted(cards("4h 9d 9s 3s Qh"))
    assert g.round_seats == [C, A, B]


def test_three_way_tie_replays_among_all_three_then_two_A3():
    g = deal_game(everybody(), C, ["Kd 5h 3d", "Jc 5d 3s", "Qh 5s 3h"], FILLER)
    do(g, "5h", "5d", "5s")  # every card ties: all three play again, A first
    assert (g.round_seats, g.to_act) == ([A, B, C], A)
    do(g, "3d", "Jc", "Qh")  # now C alone is highest
    assert settled(g).kind is EventKind.TAKE and settled(g).seat == C
    assert len(g.won[C]) == 6


def test_a_lower_tie_is_no_stunsa_R19():
    g = deal_game(everybody(), C, ["Kd 4h 3d", "Jc 4d 3s", "Qh 9s 7s"], FILLER)
    do(g, "4h", "4d", "9s")  # A and B tie, but below C's nine
    assert settled(g).kind is EventKind.TAKE and settled(g).seat == C


def _dry_tie(bounce: str, hands: list[str]):
    # The stock is out (C holds the trump slot) and phase 1 plays out (R27): a stunsa must come
    # from hand cards, with no draw.
    g = deal_game(everybody(phase1_end="play_out", bounce_exhausted=bounce, first_lead="forehand"), C, hands, "")
    g.trump_card, g.trump_holder = parse_card("2s"), C
    return g


def test_void_return_when_a_tied_player_has_no_card_A4():
    """A4 void_return (R22): one of the tied players cannot play the stunsa, so the trick is void:
    each card goes to the won pile of the player who played it."""
    g = _dry_tie("void_return", ["5c", "5d 2c", "5h 3c"])
    do(g, "5c", "5d", "5h")
    assert settled(g).kind is EventKind.VOID
    assert g.won == [cards("5c"), cards("5d"), cards("5h")]


@pytest.mark.parametrize("bounce", ["void_return", "survivor_takes_all"])
def test_the_tied_without_a_card_drop_out_under_survivor_takes_all_A4(bounce):
    """A4 survivor_takes_all: A cannot play the stunsa and drops out of it; B and C, who can, play it
    on, and C's three takes all five cards. Under void_return the same deal voids the trick."""
    g = _dry_tie(bounce, ["5c", "5d 2c", "5h 3c"])
    do(g, "5c", "5d", "5h")
    if bounce == "void_return":
        assert settled(g).kind is EventKind.VOID
        return
    assert (g.round_seats, g.to_act) == ([B, C], B)
    do(g, "2c", "3c")
    assert settled(g).kind is EventKind.TAKE and settled(g).seat == C
    assert sorted(g.won[C]) == sorted(cards("5c 5d 5h 2c 3c"))


def test_survivor_takes_all_when_one_tied_player_has_a_card_A4():
    g = _dry_tie("survivor_takes_all", ["5c", "5d 2c", "5h"])
    do(g, "5c", "5d", "5h")
    assert settled(g).kind is EventKind.TAKE and settled(g).seat == B
    # He did not have to play his 2c. Only he holds a hand card now, so phase 2 began (R27) and
    # his won pile joined his hand (R28).
    assert g.phase == 2 and hand_text(g, B) == {"2c", "5c", "5d", "5h"}


def test_play_out_tricks_skip_players_without_hand_cards_A5():
    """A5: after stock-out only the players holding hand cards play to a trick (R27 play_out)."""
    g = _dry_tie("void_return", ["Kc 2d", "9c", "4d 2h"])
    do(g, "Kc", "9c", "4d")  # A wins and leads again; B has no hand card left
    assert g.phase == 1 and (g.leader, g.round_seats) == (A, [A, C])
    do(g, "2d", "2h")  # a tie in which nobody has a card left: void (R22)
    assert settled(g).kind is EventKind.VOID
    assert g.phase == 2  # fewer than two hold hand cards (R27)


def test_stock_runs_out_mid_trick_the_rest_play_from_hand_E4():
    """E4 under `all`: A's draw takes the last stock card into the trump slot; B and C play from their
    hands without drawing; the trick resolves and phase 1 ends (R27)."""
    g = deal_game(everybody(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 9s 7s"], "Qs")
    assert g.trump_holder == A and g.stock == []
    do(g, "4h")
    assert legal_texts(g) == ["3s", "6d", "Jc"]
    do(g, "6d", "9s")
    assert g.phase == 2 and g.to_act == A  # the trump holder leads (R30)


def test_view_and_request_say_who_plays_the_round():
    """protocol.md section 6: `opponent=-` and `round=` lists the seats of the current round."""
    g = deal_game(everybody(), C, ["Kd 4h 3d", "Jc 9d 3s", "Qh 9s 7s"], FILLER)
    do(g, "4h", "9d", "9s")
    view = g.view(g.to_act)
    assert view.opponent is None and view.round_seats == (B, C)
    line = format_request(1, view, g.legal_moves())
    assert " leader=0 opponent=- " in line and line.endswith(" round=1,2")
    assert parse_message(line).view == view
