"""Phase 2 scenarios (R29-R51, E9-E22): beating, runs, picking up, tricks, going out, the cap."""

from __future__ import annotations

import pytest

from arena.game import EndReason, EventKind, IllegalMove, PICKUP, Rules, parse_card, parse_move

from .helpers import cards, do, hand_text, legal_texts, make_rules, phase2_game

A, B, C, D = 0, 1, 2, 3


# ---- R38: beating, with hearts trump and ace low ------------------------------------------------

def _on_9c():
    g = phase2_game(Rules(), ["9c", "Tc Jc Qc 2h Ah 8c 5c 6c Kd", "3s 4s"], "Kh", A)
    do(g, "9c")
    return g


def _on_5h():
    g = phase2_game(Rules(), ["5h", "6h 7h Ah Kc", "3s 4s"], "Kh", A)
    do(g, "5h")
    return g


@pytest.mark.parametrize("unit", ["Tc", "Tc,Jc,Qc", "2h", "Ah,2h"])
def test_R38_beats_on_9c(unit):
    """R38 on 9♣ (hearts trump): 10♣, 10♣-J♣-Q♣ (a), 2♥ and A♥-2♥ (b) beat."""
    g = _on_9c()
    assert parse_move(unit) in g.legal_moves()
    assert g.why_illegal(parse_move(unit)) is None
    do(g, unit)
    assert g.table[-1] == tuple(cards(unit.replace(",", " ")))


@pytest.mark.parametrize("unit", ["8c", "5c,6c", "Kd"])
def test_R38_does_not_beat_on_9c(unit):
    """R38 on 9♣: 8♣, 5♣-6♣ (low card not above) and K♦ (other non-trump suit) do not beat."""
    g = _on_9c()
    assert parse_move(unit) not in g.legal_moves()
    with pytest.raises(IllegalMove, match="R38"):
        g.apply(parse_move(unit))
    assert g.table == [tuple(cards("9c"))] and g.to_act == B  # nothing changed


def test_R38_full_legal_list_on_9c():
    """pickup first, then units by suit (c < d < h < s), low card, length."""
    assert legal_texts(_on_9c()) == [
        "pickup", "Tc", "Tc,Jc", "Tc,Jc,Qc", "Jc", "Jc,Qc", "Qc", "Ah", "Ah,2h", "2h",
    ]


@pytest.mark.parametrize("unit", ["6h", "6h,7h"])
def test_R38_beats_on_5h(unit):
    """R38 on 5♥ (trump on top): only a higher trump unit beats."""
    g = _on_5h()
    assert parse_move(unit) in g.legal_moves()
    do(g, unit)


@pytest.mark.parametrize("unit", ["Ah", "Kc"])
def test_R38_does_not_beat_on_5h(unit):
    """R38 on 5♥: A♥ (the ace is lowest) and K♣ (not trump) do not beat."""
    g = _on_5h()
    assert parse_move(unit) not in g.legal_moves()
    with pytest.raises(IllegalMove, match="R38"):
        g.apply(parse_move(unit))


def test_R38_on_5h_legal_list():
    assert legal_texts(_on_5h()) == ["pickup", "6h", "6h,7h", "7h"]


def test_E14_run_on_top_is_compared_by_its_high_card():
    """E14/R33: the top card of a run is its highest card."""
    g = phase2_game(Rules(), ["4d 5d 6d", "3d 7d", "3s 4s"], "Kh", A)
    do(g, "4d,5d,6d")
    assert legal_texts(g) == ["pickup", "7d"]
    with pytest.raises(IllegalMove, match="R38"):
        g.apply(parse_move("3d"))


def test_E15_trump_run_beats_non_trump():
    """E15: any trump unit, a run included, beats a non-trump top card (R38 b)."""
    g = phase2_game(Rules(), ["Kd", "2h 3h 4h", "3s 4s"], "Qh", A)
    do(g, "Kd", "2h,3h,4h")
    assert g.table[-1] == tuple(cards("2h 3h 4h")) and g.to_act == C


# ---- R3, R34: runs -------------------------------------------------------------------------------

def test_runs_ace_low_R3():
    """R3 ace low: A-2-3 is a run, Q-K-A is not; leads are listed by suit, low card, length."""
    g = phase2_game(Rules(), ["Ac 2c 3c Qc Kc", "5d", "6d"], "9h", A)
    assert legal_texts(g) == [
        "Ac", "Ac,2c", "Ac,2c,3c", "2c", "2c,3c", "3c", "Qc", "Qc,Kc", "Kc", "9h",
    ]
    with pytest.raises(IllegalMove, match="R3"):
        g.apply(parse_move("Qc,Kc,Ac"))


def test_runs_ace_high_R3():
    """R3 ace high: Q-K-A is a run and A-2 is not."""
    g = phase2_game(make_rules(ace_high=True), ["Ac 2c 3c Qc Kc", "5d", "6d"], "9h", A)
    assert legal_texts(g) == [
        "2c", "2c,3c", "3c", "Qc", "Qc,Kc", "Qc,Kc,Ac", "Kc", "Kc,Ac", "Ac", "9h",
    ]
    with pytest.raises(IllegalMove, match="R3"):
        g.apply(parse_move("Ac,2c"))
    do(g, "Kc,Qc,Ac")  # a run may be written in any order; it is stored low to high
    assert g.table == [tuple(cards("Qc Kc Ac"))]


@pytest.mark.parametrize("unit, rule", [("4c,5d", "E21"), ("4c,6c", "E21"), ("4c,5c,6c,8c", "R34")])
def test_mixed_suit_or_gapped_units_are_illegal_E21(unit, rule):
    """R34/E21: a run is one suit, consecutive ranks."""
    g = phase2_game(Rules(), ["4c 5c 6c 8c 5d", "5s", "6s"], "9h", A)
    assert parse_move(unit) not in g.legal_moves()
    with pytest.raises(IllegalMove, match=rule):
        g.apply(parse_move(unit))


def test_runs_switched_off():
    """allow_sequences = false: single cards only (R34)."""
    g = phase2_game(make_rules(allow_sequences=False), ["4c 5c 6c", "5s", "6s"], "9h", A)
    assert legal_texts(g) == ["4c", "5c", "6c", "9h"]
    with pytest.raises(IllegalMove, match="allow_sequences"):
        g.apply(parse_move("4c,5c"))


def test_run_counts_as_one_play_R34_R45():
    """A run is one of the N plays of a trick (R45)."""
    g = phase2_game(Rules(), ["3c 9h", "4c 5c 6c 2d", "7c 8c 2s"], "Kh", A)
    do(g, "3c", "4c,5c,6c")
    assert len(g.table) == 2 and g.to_act == C
    do(g, "7c")
    assert g.table == [] and g.discard == cards("3c 4c 5c 6c 7c")
    assert g.to_act == C  # the completer leads (R46)


# ---- R42-R43: picking up -------------------------------------------------------------------------

# A leads (3h or 4h), B beats with 5h-6h, C picks up. Trump is spades.
PICKUP_CASES = [
    # pickup, A's lead, cards C takes, table left, who acts, does he lead?
    ("trick", "3h", "3h 5h 6h", [], A, True),
    ("top_card", "3h", "6h", ["3h", "5h"], A, False),
    ("top_play", "3h", "5h 6h", ["3h"], A, False),  # E22: A answers his own 3h
    ("top_run", "3h", "5h 6h", ["3h"], A, False),
    ("top_run", "4h", "4h 5h 6h", [], A, True),  # the run continues below into A's 4h
    ("bottom_play", "3h", "3h", ["5h 6h"], A, False),
]


@pytest.mark.parametrize("option, lead, taken, left, nxt, leads", PICKUP_CASES)
def test_pickup_options_R42_R43(option, lead, taken, left, nxt, leads):
    """R42 (trick) and R43 (partial pick-ups): what is taken, what stays, and who acts next (E22)."""
    g = phase2_game(make_rules(pickup=option), [f"{lead} 9c", "5h 6h Kc", "2d 8c"], "Qs", A)
    do(g, lead, "5h,6h")
    assert g.to_act == C
    do(g, "pickup")
    event = g.events[-1] if g.events[-1].kind is EventKind.PICKUP else g.events[-2]
    assert event.kind is EventKind.PICKUP and event.seat == C
    assert sorted(event.cards) == sorted(cards(taken))
    assert hand_text(g, C) == {"2d", "8c"} | set(taken.split())
    assert [tuple(cards(u)) for u in left] == g.table
    assert g.to_act == nxt
    assert set(cards(taken)) <= g.known[C]  # R44: picked-up cards are public
    if leads:
        assert g.events[-1].kind is EventKind.LEAD and PICKUP not in g.legal_moves()
    else:
        assert g.legal_moves()[0] == PICKUP  # he responds to the new top card, same trick


def test_pickup_two_players_leader_leads_again_E16():
    """E16: with two players, after the responder picks up the whole trick the leader leads again."""
    g = phase2_game(make_rules(num_players=2), ["3h 9c", "Kc"], "Qs", A)
    do(g, "3h", "pickup")
    assert g.to_act == A and g.table == [] and hand_text(g, B) == {"Kc", "3h"}


def test_partial_pickup_keeps_trick_size():
    """R43/R45: after a partial pick-up the trick goes on; it completes at N units."""
    g = phase2_game(make_rules(pickup="top_card"), ["3h 9c", "5h Kc", "2d 8c 6h"], "Qs", A)
    do(g, "3h", "5h", "pickup")  # C takes 5h; A must answer his own 3h
    assert g.to_act == A and g.table == [tuple(cards("3h"))] and g.trick_size == 3
    do(g, "pickup")  # A takes 3h back: the table is empty, B leads
    assert g.to_act == B and g.table == []


# ---- R45-R46: completing a trick -------------------------------------------------------------------

@pytest.mark.parametrize("completer_leads, leader", [(True, C), (False, A)])
def test_trick_completion_and_next_leader_R45_R46(completer_leads, leader):
    """R45-R46: the third unit completes a 3-player trick, which is discarded; the completer leads,
    or with completer_leads = false the next active player after him."""
    g = phase2_game(make_rules(completer_leads=completer_leads), ["3h 9c", "5h Kc", "8h 2d"], "Qs", A)
    assert g.trick_size == 3
    do(g, "3h", "5h", "8h")
    assert g.table == [] and g.discard == cards("3h 5h 8h")
    assert any(e.kind is EventKind.DISCARD for e in g.events)
    assert g.to_act == leader


def test_trick_size_fixed_at_the_lead_R45_R47():
    """R45/R47: a player going out mid-trick does not change N."""
    g = phase2_game(Rules(), ["3h 9c", "5h", "8h 2d"], "Qs", A)
    do(g, "3h", "5h")  # B goes out
    assert g.out_order == [B] and g.trick_size == 3 and g.to_act == C
    do(g, "8h")
    assert g.table == [] and g.to_act == C
    assert g.trick_size == 2  # the next trick's lead sees two active players


# ---- going out (R48-R50, E10-E12) -------------------------------------------------------------------

def test_going_out_with_the_completing_play_E10():
    """E10: the completer goes out: the trick is discarded and the next active player clockwise leads."""
    g = phase2_game(Rules(), ["3h 9c", "5h Kc", "8h"], "Qs", A)
    do(g, "3h", "5h", "8h")
    assert g.out_order == [C] and g.table == [] and g.to_act == A
    assert not g.is_over


def test_out_then_pickup_E11():
    """E11: B goes out; C picks up the table (B's card too); B stays out; A, after C, leads."""
    g = phase2_game(Rules(), ["3h 9c", "5h", "2d 8c"], "Qs", A)
    do(g, "3h", "5h")
    assert g.out == [False, True, False]
    do(g, "pickup")
    assert hand_text(g, C) == {"2d", "8c", "3h", "5h"}
    assert g.out == [False, True, False] and g.hands[B] == []
    assert g.to_act == A and g.trick_size == 2


def test_game_ends_mid_trick_when_one_player_has_cards_E12():
    """R49/E12: the game ends the moment only one player holds cards; the table does not matter;
    R50: finishing order is the order of going out, skitgubbe last."""
    g = phase2_game(Rules(), ["", "Ks", "2c 3c"], "Qs", A)
    do(g, "Qs", "Ks")
    assert g.is_over and g.outcome.reason is EndReason.NORMAL
    assert g.outcome.finishing_order == (A, B, C) and g.outcome.skitgubbe == C
    assert g.legal_moves() == [] and g.to_act is None
    assert "R49" in g.why_illegal(parse_move("2c"))
    with pytest.raises(IllegalMove):
        g.apply(parse_move("2c"))


def test_lead_is_required_R35():
    """R35: with an empty table the player must lead: picking up is illegal."""
    g = phase2_game(Rules(), ["3h 9c", "5h", "2d 8c"], "Qs", A)
    assert PICKUP not in g.legal_moves()
    with pytest.raises(IllegalMove, match="R35"):
        g.apply(PICKUP)


def test_out_player_is_skipped_R32():
    g = phase2_game(Rules(), ["3h 9c", "5h", "2d 8c 6d"], "Qs", A)
    do(g, "3h", "5h", "pickup")  # B out; C picks up; A leads
    do(g, "9c")
    assert g.to_act == C  # B is skipped


# ---- R51: the cap -----------------------------------------------------------------------------------

def test_capped_game_ranking_and_tie_break_R51():
    """R51: the cap stops the game; fewest cards first; ties go to the tied player reached first
    clockwise from the player due to act (C here), who finishes ahead."""
    g = phase2_game(make_rules(max_phase2_actions=2), ["3h 9c", "5h Kc", "2d 8c 7c"], "Qs", A)
    do(g, "3h", "pickup")  # A: 2 cards; B: 3; C: 3; C is due to lead
    assert g.is_over and g.outcome.reason is EndReason.CAPPED
    assert g.outcome.finishing_order == (A, C, B)
    assert g.outcome.skitgubbe == B and g.outcome.went_out == 0


def test_capped_game_keeps_those_out_first_R51():
    g = phase2_game(make_rules(max_phase2_actions=3), ["3h 9c", "5h", "2d 8c 7c"], "Qs", A)
    do(g, "3h", "5h", "pickup")  # B out; C picks up: A 2 cards, C 4
    assert g.outcome.reason is EndReason.CAPPED
    assert g.outcome.finishing_order == (B, A, C) and g.outcome.went_out == 1


def test_cap_tie_break_includes_the_player_due():
    """R51: the player due to act is first in the clockwise tie order."""
    g = phase2_game(make_rules(max_phase2_actions=1, num_players=4), ["3h 9c", "5h Kc", "2d 8c", "4d 4c"], "Qs", A)
    do(g, "3h")  # B due; everyone holds 2 cards
    assert g.outcome.finishing_order == (B, C, D, A)


# ---- R29-R31: the start of phase 2 ------------------------------------------------------------------

def test_phase2_hands_are_hand_plus_won_plus_trump_R28_R29():
    g = phase2_game(Rules(), ["3h", "5h", "2d"], "Qs", B, won=["9c 9d", "", "Kc"])
    assert hand_text(g, A) == {"3h", "9c", "9d"}
    assert hand_text(g, B) == {"5h", "Qs"}
    assert hand_text(g, C) == {"2d", "Kc"}
    assert g.to_act == B and g.trump_suit == 3  # R30
    assert g.events[0].kind is EventKind.PHASE2 and g.events[0].cards == (parse_card("Qs"),)


def test_phase2_first_leader_last_trick_winner():
    """R30 option: the last phase-1 trick winner leads."""
    rules = make_rules(phase2_first_leader="last_trick_winner")
    g = phase2_game(rules, ["3h", "5h", "2d"], "Qs", B, last_trick_winner=C)
    assert g.to_act == C
    g2 = phase2_game(Rules(), ["3h", "5h", "2d"], "Qs", B, last_trick_winner=C)
    assert g2.to_act == B


def test_zero_card_start_out_R31_E9():
    """R31/E9: a player with no cards at the start of phase 2 is out at once."""
    g = phase2_game(Rules(), ["3h", "", "2d"], "Qs", A)
    assert g.out_order == [B] and g.trick_size == 2 and g.to_act == A
    assert not g.is_over


def test_zero_card_start_several_out_in_order_from_trump_holder():
    """R31: several go out in clockwise order from the trump holder."""
    g = phase2_game(make_rules(num_players=4), ["", "3h", "", "2d"], "Qs", B)
    assert g.out_order == [C, A]


def test_zero_card_start_only_one_left_ends_the_game():
    """R31: if only one player then has cards he is the skitgubbe."""
    g = phase2_game(Rules(), ["", "3h", ""], "Qs", B)
    assert g.is_over and g.outcome.finishing_order == (C, A, B)


def test_zero_card_start_must_pick_up():
    """R31 option must_pick_up: the empty-handed player stays in, and must pick up when his turn comes."""
    g = phase2_game(make_rules(zero_card_start="must_pick_up"), ["3h 9c", "", "2d 8c"], "Qs", A)
    assert g.out_order == [] and g.trick_size == 3
    do(g, "3h")
    assert g.to_act == B and legal_texts(g) == ["pickup"]
    do(g, "pickup")
    assert hand_text(g, B) == {"3h"} and g.to_act == C
    do(g, "2d")
    assert g.to_act == A


# ---- options -----------------------------------------------------------------------------------------

def test_must_beat_if_able_R36():
    """R36 option: picking up is legal only when no beating unit exists (E13)."""
    g = phase2_game(make_rules(must_beat_if_able=True), ["9c Kd", "Tc 2d", "3s 4s"], "Kh", A)
    do(g, "9c")
    assert legal_texts(g) == ["Tc"]
    with pytest.raises(IllegalMove, match="R36"):
        g.apply(PICKUP)
    do(g, "Tc")
    assert legal_texts(g) == ["pickup"]  # C cannot beat: E13


def test_trump_only_if_void_R39():
    """R39: trump beats a non-trump card only if the player holds none of its suit."""
    g = phase2_game(make_rules(trump_only_if_void=True), ["9c", "2h 3c", "4h 5d"], "Kh", A)
    do(g, "9c")
    assert legal_texts(g) == ["pickup"]
    with pytest.raises(IllegalMove, match="R39"):
        g.apply(parse_move("2h"))
    do(g, "pickup")
    # After B's pick-up (pickup = trick), C leads: no response is due.
    g2 = phase2_game(make_rules(trump_only_if_void=True), ["9c", "3d", "4h 5d"], "Kh", A)
    do(g2, "9c", "pickup")
    assert g2.to_act == C and g2.table == []  # pickup=trick: C leads
    # B has no club: the trump is allowed.
    g3 = phase2_game(make_rules(trump_only_if_void=True), ["9c 9s", "4h 5d", "3d"], "Kh", A)
    do(g3, "9c")
    assert legal_texts(g3) == ["pickup", "4h"]


def test_sequence_response_same_length_R40():
    """R40: a run of k on top must be answered by a beating run of k; a single by any unit."""
    rules = make_rules(sequence_response="same_length")
    g = phase2_game(rules, ["4d 5d", "6d 7d 8d 2h 3h", "3s 4s"], "Kh", A)
    do(g, "4d,5d")
    assert legal_texts(g) == ["pickup", "6d,7d", "7d,8d", "2h,3h"]
    with pytest.raises(IllegalMove, match="R40"):
        g.apply(parse_move("6d"))
    g2 = phase2_game(rules, ["4d", "6d 7d 8d 2h 3h", "3s 4s"], "Kh", A)
    do(g2, "4d")
    assert "6d" in legal_texts(g2) and "6d,7d,8d" in legal_texts(g2)
