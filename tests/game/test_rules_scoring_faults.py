"""Rule options (Part 2), player counts (R5), scoring (R54-R57), faults (R52-R53)."""

from __future__ import annotations

import random

import pytest

from arena.game import (
    DRAW, PICKUP, EndReason, Game, MatchScore, Outcome, Rules, RulesError, game_points, parse_card, play,
)

from .helpers import deal_game, do, make_rules, phase2_game, play_random

A, B, C = 0, 1, 2


# ---- options and their errors ----------------------------------------------------------------------

def test_unknown_option_names_it_and_lists_the_allowed():
    with pytest.raises(RulesError) as info:
        Rules.from_options({"acehigh": True})
    msg = str(info.value)
    assert "acehigh" in msg and "ace_high" in msg and "pickup" in msg and "draw_timing" in msg


@pytest.mark.parametrize(
    "name, value, allowed",
    [
        ("pickup", "everything", ["trick", "top_card", "top_play", "top_run", "bottom_play"]),
        ("draw_timing", "during", ["before", "after"]),
        ("ace_high", "maybe", ["true", "false"]),
        ("ace_high", 2, ["true", "false"]),
        ("num_players", 6, ["2", "5"]),
        ("num_players", "three", ["2", "5"]),
        ("max_phase2_actions", 0, ["1"]),
        ("scoring", 3, ["placement", "pot", "loser_count"]),
    ],
)
def test_bad_value_names_option_and_lists_allowed(name, value, allowed):
    with pytest.raises(RulesError) as info:
        Rules.from_options({name: value})
    msg = str(info.value)
    assert name in msg and all(a in msg for a in allowed)


def test_unimplemented_options_are_refused():
    with pytest.raises(RulesError, match="sloughing=True is not implemented yet"):
        Rules.from_options({"sloughing": True})
    with pytest.raises(RulesError, match="sloughing is not implemented yet"):
        Rules(sloughing=True)
    with pytest.raises(RulesError, match="sloughing is not implemented yet"):
        Rules.from_options({"sloughing": 1})
    with pytest.raises(RulesError, match="two_player_removed_cards"):
        Rules.from_options({"two_player_removed_cards": 10})  # needs num_players = 2 (R5)


def test_options_accept_text_and_round_trip():
    r = Rules.from_options({"ace_high": "true", "num_players": "4", "pickup": "TOP_RUN"})
    assert r.ace_high is True and r.num_players == 4 and r.pickup.value == "top_run"
    assert Rules.from_options(r.to_options()) == r
    assert r.changed_options() == {"ace_high": True, "num_players": 4, "pickup": "top_run"}
    assert Rules().effective_target_points == 10 and make_rules(num_players=5).effective_target_points == 20
    # A switch also takes the numbers 1 and 0, as its message says (TOML `ace_high = 1` was refused).
    assert Rules.from_options({"ace_high": 1}).ace_high is True and Rules.from_options({"ace_high": 0}).ace_high is False


# ---- player counts (R5) ----------------------------------------------------------------------------

@pytest.mark.parametrize("n, removed, stock", [(2, 0, 46), (2, 10, 36), (3, 0, 43), (4, 0, 40), (5, 0, 37)])
def test_stock_size_by_player_count_R5(n, removed, stock):
    """R5: the stock holds 52 - 3n cards, less any set-aside cards; the deal goes clockwise from the
    dealer's left (R7)."""
    rules = make_rules(num_players=n, two_player_removed_cards=removed)
    for dealer in range(n):
        g = Game.new(rules, 7, dealer)
        assert len(g.stock) == stock and len(g.set_aside) == removed
        assert all(len(h) == 3 for h in g.hands)
        everything = [c for h in g.hands for c in h] + g.stock + list(g.set_aside)
        assert sorted(everything) == list(range(52))


def test_deal_order_R7():
    """R7: one card at a time clockwise from the dealer's left; the rest is the stock, top first."""
    deck = list(range(52))
    random.Random(99).shuffle(deck)
    g = Game.new(Rules(), 99, 1)
    assert g.hands[2] == deck[0:9:3] and g.hands[0] == deck[1:9:3] and g.hands[1] == deck[2:9:3]
    assert g.stock[-1] == deck[9]


@pytest.mark.parametrize("n", [2, 4, 5])
def test_other_player_counts_play_to_the_end(n):
    """R5: 2, 4 and 5 players; for n = 2 the two always meet (no duel)."""
    for seed in range(30):
        g = Game.new(make_rules(num_players=n), seed, seed % n)
        if n == 2:
            assert g.duel == []
        play_random(g, random.Random(seed))
        assert sorted(g.outcome.finishing_order) == list(range(n))


def test_four_players_last_card_on_opponents_turn_E8():
    """E8: with n = 4 the stock (40) is even, so the opponent always takes the trump card, and the
    trick is resolved straight after his play; with n = 3 (43) it is always the leader (E4)."""
    for n, role in ((4, "opponent"), (3, "leader"), (2, "opponent"), (5, "leader")):
        for seed in range(20):
            rng = random.Random(seed)
            g = Game.new(make_rules(num_players=n), seed)
            while g.trump_holder is None:
                g.apply(rng.choice(g.legal_moves()))
            assert g.phase == 1 and g.trump_holder == getattr(g, role)


# ---- faults (R52, R53) -----------------------------------------------------------------------------

def test_fallback_phase1_R52():
    """R52 phase 1: DRAW if possible, then the lowest hand card (suit c < d < h < s among equals)."""
    g = deal_game(Rules(), C, ["4h 4c Kd", "Jc 6d 3s", "2h 2s 7s"], "Qh 2c 3c 5c 6c")
    assert g.fallback_move() == DRAW
    do(g, "draw")
    assert g.fallback_move() == play(parse_card("4c"))
    g2 = deal_game(make_rules(draw_timing="after"), C, ["4h 4d Kd", "Jc 6d 3s", "2h 2s 7s"], "Qh 2c 3c 5c")
    assert g2.fallback_move() == play(parse_card("4d"))  # never chance


def test_fallback_phase2_R52():
    """R52 phase 2: pick up when responding; when leading, the lowest single non-trump card, or the
    lowest trump if he holds only trumps."""
    g = phase2_game(Rules(), ["5d 5c Ks 2h", "9c Th", "3h 4h"], "Kh", A)
    assert g.fallback_move() == play(parse_card("5c"))  # 2h is lower but trump
    do(g, "5c")
    assert g.fallback_move() == PICKUP
    do(g, "pickup")  # B picks up, C leads with only trumps
    assert g.fallback_move() == play(parse_card("3h"))
    g.apply(g.fallback_move())


def test_fallback_under_must_beat_is_legal():
    """R36 with R52: when picking up is illegal the fallback is still a legal move (lowest beating unit)."""
    g = phase2_game(make_rules(must_beat_if_able=True), ["9c Kd", "Tc Jc", "3s 4s"], "Kh", A)
    do(g, "9c")
    assert g.fallback_move() in g.legal_moves()


def test_fallback_always_legal_in_random_games():
    rng = random.Random(5)
    for seed in range(150):
        rules = make_rules(draw_timing=rng.choice(["before", "after"]), must_beat_if_able=rng.random() < 0.5)
        g = Game.new(rules, seed)
        while not g.is_over:
            move = g.fallback_move() if rng.random() < 0.5 else rng.choice(g.legal_moves())
            assert move in g.legal_moves()
            g.apply(move)
        assert g.outcome.reason in (EndReason.NORMAL, EndReason.CAPPED)


def test_forfeit_phase2_R53():
    """R53: the offender is the skitgubbe; the others are ranked by cards held, R51 tie-break."""
    g = phase2_game(Rules(), ["3h 9c", "5h Kc", "2d 8c"], "Qs", A)  # A 3 cards, B 2, C 2
    g.forfeit(B, "timeout")
    o = g.outcome
    assert o.reason is EndReason.FORFEIT and o.skitgubbe == B and o.forfeited_seat == B
    assert o.finishing_order == (C, A, B)
    assert o.forfeit_reason == "timeout" and g.legal_moves() == []
    g.forfeit(A)  # no effect once over
    assert g.outcome is o


def test_forfeit_tie_break_from_the_player_due_to_act_R53_R51():
    """A bot missing from the start forfeits before the first move, when another seat is due to
    act: ties among the others go clockwise from that seat, not from the offender (the engine
    once started from the offender, which placed a missing bot first when two were missing)."""
    for seed in range(20):
        g = Game.new(Rules(), seed, 0)
        due = g.to_act
        offender = (due + 1) % 3  # not the one due to act; every seat holds 3 cards: all tie
        g.forfeit(offender)
        assert g.outcome.finishing_order == (due, (due + 2) % 3, offender)


def test_forfeit_places_the_others_by_cards_held_R53():
    # In both games seat C is due to act, so a tie (the second game) goes clockwise from C.
    g = phase2_game(Rules(), ["3h", "5h Kc", "2d 8c"], "Qs", C)  # A 1, B 2, C 3
    g.forfeit(A)
    assert g.outcome.finishing_order == (B, C, A)
    g2 = phase2_game(Rules(), ["3h 4h", "5h Kc", "2d"], "Qs", C)  # A 2, B 2, C 2
    g2.forfeit(B)
    assert g2.outcome.finishing_order == (C, A, B)


def test_forfeit_phase1_counts_won_pile_and_trump():
    """R53 in phase 1: cards held counts hand, won pile and the trump slot (the phase-2 hand to be)."""
    g = deal_game(Rules(), C, ["Kd 4h 3d", "Jc 6d 3s", "2h 2s 7s"], "Qh 2c 3c 5c 6c")
    do(g, "draw", "Kd", "draw", "3s")  # A: 3 in hand + 2 won
    g.forfeit(C)
    assert g.outcome.finishing_order == (B, A, C)


# ---- scoring (R54-R57) -----------------------------------------------------------------------------

def out(order, reason=EndReason.NORMAL, went_out=None):
    return Outcome(tuple(order), reason, went_out=len(order) - 1 if went_out is None else went_out)


def test_placement_points_R54():
    assert game_points(out([2, 0, 1]), Rules()) == (1, 0, 2)
    assert game_points(out([3, 1, 0, 2]), make_rules(num_players=4)) == (1, 2, 0, 3)


def test_placement_match_target_R54():
    """R54: the match ends after the first game in which a total reaches the target (10 for n = 3)."""
    m = MatchScore(Rules(), dealer=0)
    for _ in range(4):
        m.record(out([0, 1, 2]))
        assert not m.is_over
    m.record(out([0, 1, 2]))
    assert m.totals == [10, 5, 0] and m.is_over and m.winners == (0,)


def test_placement_tie_continues_then_shared_at_max_games_R54():
    rules = make_rules(target_points=4, max_games=4)
    m = MatchScore(rules, dealer=0)
    m.record(out([0, 1, 2]))
    m.record(out([1, 0, 2]))
    assert m.totals == [3, 3, 0] and not m.is_over
    m.record(out([1, 0, 2]))  # 4, 5: B leads alone past the target
    assert m.is_over and m.winners == (1,)
    m2 = MatchScore(rules, dealer=0)
    for order in ([0, 1, 2], [1, 0, 2], [0, 1, 2], [1, 0, 2]):
        m2.record(out(order))
    assert m2.totals == [6, 6, 0] and m2.games_played == 4 and m2.is_over and m2.winners == (0, 1)


def test_pot_R55_with_carry_over_on_capped_game():
    """R55: each game every player antes; the first out takes the pot; a capped game with nobody out
    carries the pot over (R51)."""
    rules = make_rules(scoring="pot", ante=2, games=3)
    m = MatchScore(rules, dealer=0)
    capped = out([1, 0, 2], EndReason.CAPPED, went_out=0)
    assert m.record(capped) == (-2, -2, -2) and m.pot == 6
    assert game_points(capped, rules) == (-2, -2, -2)
    assert m.record(out([2, 0, 1])) == (-2, -2, 10) and m.pot == 0
    assert m.totals == [-4, -4, 8] and not m.is_over
    m.record(out([0, 1, 2], EndReason.CAPPED, went_out=1))  # someone went out: the pot is won
    assert m.totals == [0, -6, 6] and m.is_over and m.winners == (2,)
    assert game_points(out([2, 0, 1]), rules) == (-2, -2, 4)


def test_pot_R55_after_a_forfeit_goes_to_the_first_of_the_finishing_order_R53():
    """Our decision (docs/rules.md section 7): a forfeited game pays the pot to the first placed,
    even if nobody went out, so that under pot scoring a fault costs its bot more than an ante."""
    rules = make_rules(scoring="pot", fault_policy="forfeit")
    forfeited = Outcome((2, 0, 1), EndReason.FORFEIT, forfeited_seat=1, went_out=0)
    assert game_points(forfeited, rules) == (-1, -1, 2)
    m = MatchScore(rules, dealer=0)
    m.record(out([1, 0, 2], EndReason.CAPPED, went_out=0))  # the pot carries over...
    assert m.record(forfeited) == (-1, -1, 5) and m.pot == 0  # ...to the forfeited game's first


def test_loser_count_R56():
    rules = make_rules(scoring="loser_count", games=2)
    m = MatchScore(rules, dealer=0)
    assert m.record(out([0, 1, 2])) == (0, 0, -1)
    m.record(out([2, 0, 1]))
    assert m.totals == [0, -1, -1] and m.is_over and m.winners == (0,)


def test_next_dealer_R57():
    """R57/R6: rotate moves one seat clockwise; loser makes the skitgubbe deal."""
    m = MatchScore(Rules(), dealer=2)
    m.record(out([0, 1, 2]))
    assert m.dealer == 0
    m2 = MatchScore(make_rules(next_dealer="loser"), dealer=2)
    m2.record(out([0, 2, 1]))
    assert m2.dealer == 1


def test_first_dealer_is_seeded_R6():
    from arena.game.scoring import first_dealer

    assert {first_dealer(s, 3) for s in range(50)} == {0, 1, 2}
    assert first_dealer(12, 4) == first_dealer(12, 4)
