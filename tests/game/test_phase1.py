"""Phase 1 scenarios (R11-R31, E1-E8): the duel, tricks, stunsa, the last stock card."""

from __future__ import annotations

import pytest

from arena.game import EventKind, IllegalMove, Rules, parse_card, parse_move

from .helpers import cards, deal_game, do, hand_text, legal_texts, make_rules

A, B, C = 0, 1, 2
FILLER = "2c 2d 3c 4c 5c 6c 7c 8c 9c Tc"  # stock cards that tie nothing in the scenarios below


def test_seed_worked_example_duel_first_trick_and_stunsa():
    """The seed's example: dealer C; A shows K♦ against B's J♣ so A leads (R13); A leads 4♥, B takes it
    with 6♦ (R19-R20); later A's 3♦ and B's 3♠ make a stunsa (R21) that the next round decides."""
    g = deal_game(Rules(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "Qh Qs " + FILLER)
    assert g.duel == [(A, parse_card("Kd")), (B, parse_card("Jc"))]
    assert [e.kind for e in g.events] == [EventKind.DUEL, EventKind.DUEL]
    assert (g.leader, g.opponent, g.to_act) == (A, B, A)  # the dealer takes no part (R13)
    assert hand_text(g, A) == {"Kd", "4h", "3d"}  # the shown cards stay in hand
    assert legal_texts(g) == ["draw", "chance"]
    do(g, "draw", "4h")
    assert g.to_act == B
    do(g, "draw", "6d")
    assert sorted(g.won[B]) == sorted(cards("4h 6d"))  # R20
    assert g.won[A] == []
    # R24: B leads the next trick against his left neighbour, the dealer C (E18).
    assert (g.leader, g.opponent, g.to_act) == (B, C, B)


def test_stunsa_same_pair_replays_and_winner_takes_every_round():
    """R21: a 3♦/3♠ tie leaves both cards on the table; the same leader leads again; the winner of the
    deciding round takes the stunsa cards too (R20)."""
    g = deal_game(Rules(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "Qh Qs " + FILLER)
    do(g, "draw", "3d", "draw", "3s")
    assert g.events[-1].kind is EventKind.STUNSA
    assert (g.leader, g.opponent, g.to_act) == (A, B, A)
    assert [c for _, c, _ in g.trick] == cards("3d 3s")
    do(g, "draw", "Kd", "draw", "Qs")  # A drew Qh, B drew Qs
    assert sorted(g.won[A]) == sorted(cards("3d 3s Kd Qs"))
    assert (g.leader, g.opponent) == (A, B)  # R24: the leader won, so the same pair plays again


def test_chain_of_two_stunsas_then_a_win():
    """R21 repeats while the ranks tie; one winner takes every card of every round (R20)."""
    g = deal_game(Rules(), C, ["3d 9c Kd", "3s 9h Jc", "2h 2s 7s"], "4c 4d 8h 8s 5h " + FILLER)
    do(g, "draw", "3d", "draw", "3s")  # tie 1; A drew 4c, B 4d
    do(g, "draw", "4c", "draw", "4d")  # tie 2; A drew 8h, B 8s
    assert sum(e.kind is EventKind.STUNSA for e in g.events) == 2
    assert g.won == [[], [], []]
    do(g, "draw", "Kd", "chance")  # A drew 5h; B's blind 2c loses to K♦
    assert sorted(g.won[A]) == sorted(cards("3d 3s 4c 4d Kd 2c"))
    assert g.trick == [] and (g.leader, g.opponent) == (A, B)


def _dry_stunsa_game(rules: Rules):
    # The duel ties on every card (E1): P1 = A leads. The stock's only card is the trump card.
    return deal_game(rules, C, ["3d 9c Kd", "3s 9h Kc", "2h 2s 7s"], "Qs")


def test_duel_full_tie_p1_leads_and_every_pair_is_shown():
    """R13/E1: equal highest, second and third ranks: P1 (the dealer's left) leads; all six cards are shown."""
    g = _dry_stunsa_game(Rules())
    assert [s for s, _ in g.duel] == [A, B, A, B, A, B]
    assert sorted(c for _, c in g.duel) == sorted(cards("Kd Kc 9c 9h 3d 3s"))
    assert g.leader == A and g.opponent == B


@pytest.mark.parametrize("bounce", ["void_return", "survivor_takes_all"])
def test_stunsa_with_dry_stock_voids_when_neither_can_play(bounce):
    """R22/E5: the stock runs dry; three ties exhaust both hands, so the trick is void and every card goes
    to the won pile of whoever played it (under survivor_takes_all too, as neither has a card)."""
    g = _dry_stunsa_game(make_rules(bounce_exhausted=bounce))
    # With one stock card the draw is forced and automatic; it goes to the trump slot (R16, R26).
    assert g.trump_holder == A and g.stock == [] and hand_text(g, A) == {"3d", "9c", "Kd"}
    assert legal_texts(g) == ["3d", "9c", "Kd"]
    do(g, "3d", "3s", "9c", "9h", "Kd", "Kc")
    assert any(e.kind is EventKind.VOID for e in g.events)
    assert g.phase == 2
    # R28-R29: A's phase-2 hand is his three returned cards plus the trump card; A leads (R30).
    assert hand_text(g, A) == {"3d", "9c", "Kd", "Qs"}
    assert hand_text(g, B) == {"3s", "9h", "Kc"}
    assert hand_text(g, C) == {"2h", "2s", "7s"}
    assert g.trump_suit == parse_card("Qs") // 13 and g.to_act == A


def _play_out_game(bounce: str):
    # Stock already out (trump set aside by C); play_out keeps tricks going from hands (R27).
    rules = make_rules(phase1_end="play_out", bounce_exhausted=bounce, first_lead="forehand")
    g = deal_game(rules, C, ["5c 9d", "5d", "Kc"], "")
    g.trump_card, g.trump_holder = parse_card("2s"), C
    return g


def test_survivor_takes_all_when_only_one_can_play():
    """R22 survivor_takes_all: after a tie only the leader has a hand card; he takes the trick without
    playing another round."""
    g = _play_out_game("survivor_takes_all")
    do(g, "5c", "5d")
    take = g.events[-1]
    assert take.kind is EventKind.TAKE and take.seat == A
    assert sorted(g.won[A]) == sorted(cards("5c 5d"))
    assert hand_text(g, A) == {"9d"}  # he did not have to play it
    # R27 play_out: A leads again; his left neighbour B has no cards, so C is the opponent.
    assert (g.leader, g.opponent, g.to_act) == (A, C, A)


def test_void_return_when_one_cannot_play():
    """R22 void_return: the opponent cannot play the stunsa round: every card returns to its player."""
    g = _play_out_game("void_return")
    do(g, "5c", "5d")
    assert g.events[-1].kind is EventKind.VOID
    assert g.won[A] == cards("5c") and g.won[B] == cards("5d")
    assert hand_text(g, A) == {"9d"}


def test_play_out_ends_when_fewer_than_two_hold_cards_and_last_winner_may_lead():
    """R27 play_out then R30 option: phase 1 ends when fewer than two hold hand cards;
    phase2_first_leader = last_trick_winner makes the last winner lead."""
    rules = make_rules(phase1_end="play_out", first_lead="forehand", phase2_first_leader="last_trick_winner")
    g = deal_game(rules, C, ["5c", "6d", "Kc"], "")
    g.trump_card, g.trump_holder = parse_card("2s"), A
    do(g, "5c", "6d")  # B wins; now only C holds a hand card
    assert g.last_trick_winner == B
    assert g.phase == 2
    assert g.to_act == B  # last trick winner leads (he holds his won pile)


@pytest.mark.parametrize("timing", ["before", "after"])
def test_last_stock_card_on_leaders_turn_becomes_trump_E4(timing):
    """R16-R17/R26/E4: the leader acts with one stock card left and becomes the trump holder; the opponent
    plays from hand with no draw; the trick resolves, phase 1 ends (R27), the holder leads phase 2 (R30)
    with the trump card in hand (R29)."""
    g = deal_game(make_rules(draw_timing=timing), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "9s")
    if timing == "before":
        assert g.trump_holder == A and legal_texts(g) == ["3d", "4h", "Kd"]  # the draw was automatic
    else:
        assert g.trump_holder is None and "chance" not in legal_texts(g)  # E2: one card, no chance
    do(g, "4h")
    assert g.trump_holder == A and g.stock == [] and len(g.hands[A]) == 2
    assert g.to_act == B and legal_texts(g) == ["3s", "6d", "Jc"]  # no source step
    assert g.trump_card == parse_card("9s") and parse_card("9s") not in g.hands[A]  # R26
    do(g, "6d")
    assert g.phase == 2
    assert hand_text(g, A) == {"Kd", "3d", "9s"}
    assert hand_text(g, B) == {"Jc", "3s", "4h", "6d"}
    assert g.to_act == A and g.trump_suit == 3


@pytest.mark.parametrize("timing", ["before", "after"])
def test_last_stock_card_on_opponents_turn_E8(timing):
    """E8: with two stock cards left the leader takes one (or plays it blind) and the opponent takes the
    last one into the trump slot; the trick is then complete, resolves, and phase 1 ends."""
    g = deal_game(make_rules(draw_timing=timing), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "9c 9s")
    if timing == "before":
        do(g, "draw", "4h")
    else:
        do(g, "4h")
    assert g.to_act == B
    if timing == "before":
        # The forced draw of the last card is automatic: B holds the trump slot before playing.
        assert g.stock == [] and g.trump_holder == B and legal_texts(g) == ["3s", "6d", "Jc"]
    else:
        assert len(g.stock) == 1 and "chance" not in legal_texts(g)  # E2
    do(g, "Jc")
    assert g.trump_holder == B and g.phase == 2 and g.to_act == B  # R30
    assert hand_text(g, B) == {"6d", "3s", "4h", "Jc", "9s"}
    assert hand_text(g, A) == {"Kd", "3d", "9c"}


def test_chance_illegal_with_one_stock_card_E2():
    """E2/R16 under draw_timing = after: CHANCE needs two stock cards."""
    g = deal_game(make_rules(draw_timing="after"), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "9s")
    with pytest.raises(IllegalMove, match="E2"):
        g.apply(parse_move("chance"))
    assert "R16" in g.why_illegal(parse_move("chance"))


def test_chance_plays_top_card_and_keeps_hand():
    """R16: CHANCE turns the top stock card up as the played card; the hand is unchanged."""
    g = deal_game(Rules(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "Qh " + FILLER)
    do(g, "chance")
    assert g.trick == [(A, parse_card("Qh"), True)] and hand_text(g, A) == {"Kd", "4h", "3d"}
    assert g.events[-1].kind is EventKind.CHANCE


def test_allow_chance_false_makes_every_draw_automatic():
    """allow_chance = false: the source step has no choice, so DRAW is taken automatically (R16)."""
    g = deal_game(make_rules(allow_chance=False), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "Qh " + FILLER)
    assert legal_texts(g) == ["3d", "4h", "Qh", "Kd"]
    assert "switched off" in g.why_illegal(parse_move("chance"))


def test_draw_timing_after_plays_then_draws():
    """R17: play a hand card, then draw; CHANCE is offered last in the list."""
    g = deal_game(make_rules(draw_timing="after"), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "Qh " + FILLER)
    assert legal_texts(g) == ["3d", "4h", "Kd", "chance"]
    do(g, "4h")
    assert hand_text(g, A) == {"Kd", "3d", "Qh"}
    do(g, "chance")  # B plays the blind 2c and draws nothing
    assert hand_text(g, B) == {"Jc", "6d", "3s"}
    assert sorted(g.won[A]) == sorted(cards("4h 2c"))


def test_first_lead_forehand_no_duel():
    """R14 option first_lead = forehand: P1 leads against P2 with no duel."""
    g = deal_game(make_rules(first_lead="forehand"), C, ["2d 4h 3d", "Jc 6d 3s", "2h 2s 7s"], FILLER)
    assert g.duel == [] and (g.leader, g.opponent) == (A, B)


@pytest.mark.parametrize(
    "a_hand, b_hand, leader",
    [
        ("Kd 4h 3d", "Kc 6d 3s", B),  # second card decides (6 > 4)
        ("Kd 6h 4d", "Kc 6d 3s", A),  # third card decides (4 > 3)
        ("Kd 6h 3d", "Kc 6d 3s", A),  # full tie: P1 (E1)
        ("Qd 6h 3d", "Kc 2d As", B),  # first card decides
    ],
)
def test_duel_tie_breaks_R13(a_hand, b_hand, leader):
    """R13/E1: compare highest, then second, then third cards; a full tie goes to P1."""
    g = deal_game(Rules(), C, [a_hand, b_hand, "2h 2s 7s"], FILLER)
    assert g.leader == leader and g.opponent == (A if leader == B else B)


def test_duel_with_ace_high():
    """R2 ace_high: an ace outranks a king in the duel."""
    g = deal_game(make_rules(ace_high=True), C, ["Kd 4h 3d", "Ac 6d 3s", "2h 2s 7s"], FILLER)
    assert g.leader == B


def test_two_players_non_dealer_leads_R14():
    """R14/R5: with two players the non-dealer leads and there is no duel."""
    g = deal_game(make_rules(num_players=2), 1, ["Kd 4h 3d", "Jc 6d 3s"], FILLER)
    assert g.duel == [] and (g.leader, g.opponent) == (0, 1)


def test_winner_leads_against_left_neighbour_R24():
    """R24: the opponent who wins leads next against his own left neighbour."""
    g = deal_game(Rules(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], FILLER)
    do(g, "draw", "3d", "draw", "Jc")
    assert (g.leader, g.opponent, g.to_act) == (B, C, B)
    do(g, "draw", "3s", "draw", "7s")
    assert (g.leader, g.opponent) == (C, A)


def test_won_pile_and_trump_card_cannot_be_played_R18():
    """R18: only hand cards are playable in phase 1; the error cites R18."""
    g = deal_game(Rules(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "9s")  # A holds the trump slot
    with pytest.raises(IllegalMove, match="R18"):
        g.apply(parse_move("9s"))
    g2 = deal_game(Rules(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], FILLER)
    do(g2, "draw", "Kd", "draw", "3s", "draw")  # A won K♦ and leads again
    assert g2.to_act == A and parse_card("Kd") in g2.won[A]
    assert "R18" in g2.why_illegal(parse_move("Kd"))


def test_an_illegal_card_does_not_tell_the_trump_holder_which_card_is_trump_R9():
    """R9: the trump card is hidden even from its holder until phase 2. The reason for an illegal
    card goes back to the bot, so it must read the same for the trump card as for any other."""
    g = deal_game(Rules(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "9s")  # A holds the trump slot: 9♠
    assert g.trump_holder == A and g.trump_card == parse_card("9s") and g.to_act == A
    assert g.why_illegal(parse_move("9s")) == g.why_illegal(parse_move("8s"))


@pytest.mark.parametrize(
    "move, rule",
    [("pickup", "R36"), ("4h,5h", "R16"), ("Kd", "R16")],
)
def test_phase1_illegal_moves_cite_rules(move, rule):
    g = deal_game(Rules(), C, ["Kd 4h 5h", "Jc 6d 3s", "2h 2s 7s"], FILLER)
    with pytest.raises(IllegalMove, match=rule):
        g.apply(parse_move(move))


def test_phase1_run_is_one_card_only():
    g = deal_game(Rules(), C, ["Kd 4h 5h", "Jc 6d 3s", "2h 2s 7s"], FILLER)
    do(g, "draw")
    with pytest.raises(IllegalMove, match="R11"):
        g.apply(parse_move("4h,5h"))
