"""Scenario helpers: games with a chosen deal, straight into phase 1 or phase 2.

Scenario games need not hold all 52 cards; the invariant tests never run on them.
"""

from __future__ import annotations

import random

from arena.game import Game, Rules, format_card, parse_card, parse_move
from arena.game import phase1, phase2


def cards(text: str) -> list[int]:
    """'Kd 4h' -> [card, card]; '' -> []."""
    return [parse_card(t) for t in text.split()]


def make_rules(**options) -> Rules:
    return Rules.from_options(options)


def deal_game(rules: Rules, dealer: int, hands: list[str] | list[list[str]], stock_top_first: str | list[str] = "") -> Game:
    """A phase-1 game with the given hands (seat order) and stock (top card first)."""
    g = Game(rules, 0, dealer)
    g.hands = [cards(h) if isinstance(h, str) else [parse_card(c) for c in h] for h in hands]
    stock = cards(stock_top_first) if isinstance(stock_top_first, str) else [parse_card(c) for c in stock_top_first]
    g.stock = list(reversed(stock))
    phase1.start(g)
    return g


def phase2_game(
    rules: Rules,
    hands: list[str],
    trump: str,
    holder: int,
    *,
    dealer: int = 0,
    last_trick_winner: int | None = None,
    won: list[str] | None = None,
) -> Game:
    """A game put straight into phase 2: `hands` are the phase-1 hands left, `trump` joins `holder`'s hand."""
    g = Game(rules, 0, dealer)
    g.hands = [cards(h) for h in hands]
    g.won = [cards(w) for w in won] if won else [[] for _ in range(g.n)]
    g.stock = []
    g.trump_card, g.trump_holder = parse_card(trump), holder
    g.last_trick_winner = last_trick_winner
    phase2.start(g)
    return g


def do(g: Game, *moves: str) -> Game:
    """Apply move tokens in order."""
    for m in moves:
        g.apply(parse_move(m))
    return g


def legal_texts(g: Game) -> list[str]:
    return [str(m) for m in g.legal_moves()]


def hand_text(g: Game, seat: int) -> set[str]:
    return {format_card(c) for c in g.hands[seat]}


def play_random(g: Game, rng: random.Random, on_move=None) -> Game:
    """Play random legal moves to the end; `on_move(g)` after each."""
    while not g.is_over:
        moves = g.legal_moves()
        g.apply(moves[rng.randrange(len(moves))])
        if on_move is not None:
            on_move(g)
    return g


def card_places(g: Game) -> list[int]:
    """Every card the game holds somewhere, with repeats if a card were in two places."""
    out: list[int] = []
    for h in g.hands:
        out.extend(h)
    out.extend(g.stock)
    out.extend(g.set_aside)
    out.extend(g.discard)
    for unit in g.table:
        out.extend(unit)
    if g.phase == 1:
        # In phase 2 the won piles have joined the hands (R28) and the trump card a hand (R29).
        for w in g.won:
            out.extend(w)
        if g.trump_card is not None:
            out.append(g.trump_card)
        # Cards of the trick in progress not yet taken.
        out.extend(c for _, c, _ in g.trick)
    return out


def view_cards(v) -> set[int]:
    """Every card a SeatView shows, wherever in the view it appears."""
    out = set(v.hand) | {c for _, c in v.duel} | {c for _, c, _ in v.trick} | set(v.discard)
    for _, unit in v.table:
        out.update(unit)
    for k in v.known:
        out.update(k)
    if v.won_piles:
        for w in v.won_piles:
            out.update(w)
    if v.trump_card is not None:
        out.add(v.trump_card)
    return out
