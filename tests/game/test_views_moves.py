"""Views (R8-R10), events, transcripts, and the card/move text forms."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, strategies as st

from arena.game import (
    CHANCE, DRAW, PICKUP, Game, ParseError, Rules, Transcript, format_card, format_cards, parse_card, parse_cards,
    parse_move, play, pretty_card, replay,
)
from arena.game.moves import MoveKind

from .helpers import cards, deal_game, do, make_rules, phase2_game, play_random, view_cards

A, B, C = 0, 1, 2


def test_view_hides_other_hands_stock_and_trump_R8_R9():
    """R8-R9: a seat sees its own hand (a drawn card included), never another hand, the stock order or
    the trump card before phase 2, even when it holds the trump slot."""
    g = deal_game(Rules(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "9c 9s")
    do(g, "draw")
    v = g.view(A)
    assert set(v.hand) == set(cards("Kd 4h 3d 9c"))
    assert v.stock_size == 1 and v.hand_sizes == (4, 3, 3)
    seen = view_cards(v)
    assert parse_card("9s") not in seen
    assert not set(cards("6d 3s 2h 2s 7s")) & seen  # B's unshown cards and C's hand
    assert parse_card("Jc") in seen  # shown in the duel (R13)
    do(g, "4h")  # B draws the last card automatically: the trump slot
    vb = g.view(B)
    assert vb.trump_holder == B and vb.trump_card is None
    assert parse_card("9s") not in view_cards(vb)
    assert parse_card("9c") not in view_cards(vb)  # A's drawn card
    do(g, "6d")
    assert g.phase == 2
    for seat in range(3):
        assert g.view(seat).trump_card == parse_card("9s")  # turned up (R29)


def test_view_phase2_public_knowledge_R10_R44():
    g = phase2_game(make_rules(pickup="trick"), ["3h 9c", "5h Kc", "2d 8c"], "Qs", A, won=["4d", "", ""])
    do(g, "3h", "5h", "pickup")
    v = g.view(A)
    assert set(cards("3h 5h")) <= set(v.known[C])  # picked-up cards are public (R44)
    assert parse_card("4d") in v.known[A]  # won-pile contents are public (R10)
    assert parse_card("Qs") in v.known[A]  # the turned-up trump card
    assert parse_card("Kc") not in view_cards(v) and parse_card("2d") not in view_cards(v)
    g2 = phase2_game(make_rules(public_won_piles=False), ["3h 9c", "5h Kc", "2d 8c"], "Qs", A, won=["4d", "", ""])
    assert parse_card("4d") not in view_cards(g2.view(B))


def test_events_never_carry_drawn_or_stock_cards():
    g = deal_game(Rules(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "9c 9s")
    do(g, "draw", "4h", "6d")
    for e in g.events:
        if e.kind.value in ("draw", "trump"):
            assert e.cards == ()
    assert [e.text() for e in g.events][:3] == ["duel 0 Kd", "duel 1 Jc", "draw 0 -"]


def test_transcript_text_round_trip_and_replay():
    rules = make_rules(ace_high=True, pickup="top_run", num_players=4)
    g = Game.new(rules, 4242, 3)
    play_random(g, random.Random(1))
    text = g.transcript.to_text()
    assert text.startswith("skitgubbe-transcript 1\nseed 4242\ndealer 3\n")
    assert "rule ace_high true" in text and "rule pickup top_run" in text
    t = Transcript.from_text(text)
    assert t == g.transcript
    assert replay(t).outcome == g.outcome


def test_transcript_with_forfeit():
    g = Game.new(Rules(), 3)
    for _ in range(5):
        g.apply(g.legal_moves()[0])
    g.forfeit(g.to_act, "late move")
    t = Transcript.from_text(g.transcript.to_text())
    assert t.forfeited_seat == g.outcome.skitgubbe and t.forfeit_reason == "late move"
    assert replay(t).outcome == g.outcome


@pytest.mark.parametrize("bad", ["", "skitgubbe-transcript 2\nseed 1\ndealer 0\nmoves\n", "skitgubbe-transcript 1\nseed x\n"])
def test_bad_transcripts_raise_parse_error(bad):
    with pytest.raises(ParseError):
        Transcript.from_text(bad)


# ---- cards and moves ---------------------------------------------------------------------------

@given(st.integers(0, 51))
def test_card_text_round_trip(c):
    text = format_card(c)
    assert parse_card(text) == c and parse_card(text.upper()) == c and parse_card(text.lower()) == c
    if text[0] == "T":
        assert parse_card("10" + text[1]) == c
    assert pretty_card(c).endswith("♣♦♥♠"[c // 13])


@given(st.lists(st.integers(0, 51), max_size=8, unique=True))
def test_cards_text_round_trip(cs):
    assert parse_cards(format_cards(cs)) == tuple(cs)


@given(st.one_of(
    st.sampled_from([DRAW, CHANCE, PICKUP]),
    st.lists(st.integers(0, 51), min_size=1, max_size=5, unique=True).map(lambda cs: play(*cs)),
))
def test_move_text_round_trip(move):
    text = str(move)
    assert " " not in text and text
    assert parse_move(text) == move
    assert parse_move(text.upper()) == move


@pytest.mark.parametrize("bad", ["", "draw now", "Kx", "Kd,Kd", "1d", "Kd,", "pick"])
def test_bad_moves_raise_parse_error(bad):
    with pytest.raises(ParseError):
        parse_move(bad)


def test_parse_examples():
    assert parse_move("Kd").kind is MoveKind.PLAY and parse_move("Kd").cards == (parse_card("Kd"),)
    assert parse_move("4h,5h,6h").cards == tuple(cards("4h 5h 6h"))
    assert parse_move(" Pickup ") == PICKUP
    assert parse_card("Kd") == 1 * 13 + 12


def test_cards_parse_in_any_case_of_rank_and_suit():
    """protocol.md section 5 accepts any case; 'aD' (lower rank, upper suit) was refused."""
    from arena.game.cards import format_card, parse_card

    for text, canonical in [("Kd", "Kd"), ("KD", "Kd"), ("kd", "Kd"), ("kD", "Kd"), ("aD", "Ad"), ("tS", "Ts"),
                            ("10h", "Th"), ("10H", "Th"), ("qC", "Qc")]:
        assert format_card(parse_card(text)) == canonical


def test_parsing_keeps_only_canonical_tokens_and_a_bounded_number_of_them():
    """parse_move remembers the tokens a transcript repeats (as format_move writes them); a bot's
    other spellings of a move parse alike but are not kept, and however many runs in odd orders
    come, what is kept stays bounded."""
    from arena.game import format_move, moves

    for spelled in ("KD", "kd", "Kd", "4h,5h,6h", "6H,4h,5h", "DRAW"):
        assert format_move(parse_move(spelled)) in {"Kd", "4h,5h,6h", "6h,4h,5h", "draw"}
    assert "Kd" in moves._CANONICAL and "KD" not in moves._CANONICAL and "kd" not in moves._CANONICAL
    hearts = [format_card(c) for c in range(26, 39)]
    rng = random.Random(1)
    for _ in range(6000):
        parse_move(",".join(rng.sample(hearts, 6)))
    assert len(moves._CANONICAL) <= moves._CANONICAL_MAX
