"""Phase 1 (R11-R28): the duel, tricks, drawing, chance, stunsa, the trump card.

A trick is played in rounds (R15). `g.round_seats` holds who plays the current round, in order:
the leader and his opponent under `phase1_mode = pair` (R11), every player clockwise from the
leader under `phase1_mode = all` (docs/rules.md, "Phase 1 with everybody", A1-A5). A stunsa
round is played by the tied players only, which under `pair` is the same pair again (R21).

Functions here mutate a `GameState` (arena/game/state.py); they assume the move was already
checked legal by `Game.apply` (arena/game/engine.py). When phase 1 ends, phase 2 starts here (R27).
"""

from __future__ import annotations

from arena.game import phase2
from arena.game.cards import SUIT_OF
from arena.game.errors import IllegalMove
from arena.game.events import Event, EventKind
from arena.game.moves import CHANCE, DRAW, Move, MoveKind, play
from arena.game.rules import BounceExhausted, DrawTiming, FirstLead, Phase1End, Phase1Mode
from arena.game.state import GameState


def start(g: GameState) -> None:
    """Choose the first leader (R13-R14) and start the first trick."""
    n, dealer = g.n, g.dealer
    p1, p2 = (dealer + 1) % n, (dealer + 2) % n
    if n == 2:
        # R14: the non-dealer leads; for two players that is also P1 under `forehand`.
        leader, opponent = p1, dealer
    elif g.rules.first_lead is FirstLead.FOREHAND:
        leader, opponent = p1, p2
    else:
        leader = _duel(g, p1, p2)
        opponent = p2 if leader == p1 else p1
    if g.rules.phase1_mode is Phase1Mode.ALL:
        _start_trick(g, leader, _clockwise_from(g, leader))  # A1: the dealer plays to it too
    else:
        _start_trick(g, leader, [leader, opponent])


def _duel(g: GameState, p1: int, p2: int) -> int:
    """R13/E1: compare highest, then second, then third cards; P1 wins full ties.

    Each compared card is shown (public), highest first; among equal ranks in one
    hand the higher suit by R52's order is shown first.
    """
    v = g.values
    ordered = [sorted(g.hands[s], key=lambda c: (v[c], SUIT_OF[c]), reverse=True) for s in (p1, p2)]
    for a, b in zip(*ordered):
        for seat, c in ((p1, a), (p2, b)):
            g.duel.append((seat, c))
            g.known[seat].add(c)
            g.events.append(Event(EventKind.DUEL, seat, (c,)))
        if v[a] != v[b]:
            return p1 if v[a] > v[b] else p2
    return p1


def _clockwise_from(g: GameState, leader: int, holders_only: bool = False) -> list[int]:
    """Every seat clockwise from the leader (A1), or only those with hand cards (A5, play_out)."""
    n = g.n
    seats = [(leader + i) % n for i in range(n)]
    return [s for s in seats if g.hands[s]] if holders_only else seats


def _start_trick(g: GameState, leader: int, seats: list[int]) -> None:
    g.leader = leader
    # `opponent` exists only in two-player tricks; under `all` the view sends `opponent=-`.
    g.opponent = seats[1] if g.rules.phase1_mode is Phase1Mode.PAIR else None
    g.round_seats = seats
    g.trick.clear()
    g.round.clear()
    _begin_turn(g, leader)


def chance_allowed(g: GameState) -> bool:
    """R16/E2: CHANCE needs the option on and at least `chance_min_stock` (2) stock cards."""
    return g.rules.allow_chance and len(g.stock) >= g.rules.chance_min_stock


def _begin_turn(g: GameState, seat: int) -> None:
    g.to_act = seat
    g.drawn = not g.stock  # R16: with an empty stock the source step is skipped
    if not g.drawn and g.rules.draw_timing is DrawTiming.BEFORE and not chance_allowed(g):
        # R16: with one stock card (or no CHANCE) DRAW is forced; the engine takes it
        # so that a bot is only asked about real choices.
        _draw(g, seat)
        g.drawn = True


def _draw(g: GameState, seat: int) -> None:
    c = g.stock.pop()
    if g.stock:
        g.hands[seat].append(c)
        g.events.append(Event(EventKind.DRAW, seat))
    else:
        # R16/R26: the last stock card goes face down to the trump slot, never into a hand.
        g.trump_card, g.trump_holder = c, seat
        g.events.append(Event(EventKind.TRUMP, seat))


def legal(g: GameState) -> list[Move]:
    seat = g.to_act
    assert seat is not None  # Game.legal_moves/apply call this only while a seat is to act
    before = g.rules.draw_timing is DrawTiming.BEFORE
    if before and not g.drawn:
        return [DRAW, CHANCE]  # only reached when CHANCE is allowed (else the draw was automatic)
    moves = [play(c) for c in g.sorted_hand(seat)]
    if not before and g.stock and chance_allowed(g):
        moves.append(CHANCE)
    return moves


def why_illegal(g: GameState, move: Move) -> str:
    """A reason citing the rule, for a move not in the legal list."""
    before = g.rules.draw_timing is DrawTiming.BEFORE
    if move.kind is MoveKind.PICKUP:
        return "picking up exists only in phase 2 (R36)"
    if move.kind is MoveKind.DRAW:
        if not before:
            return "under draw_timing = after you draw automatically after playing (R17)"
        return "you have already chosen your source this turn (R16)" if g.stock else "the stock is empty (R16)"
    if move.kind is MoveKind.CHANCE:
        if not g.rules.allow_chance:
            return "CHANCE is switched off (allow_chance = false)"
        if before and g.drawn and g.stock:
            return "you have already drawn this turn; now play a hand card (R16)"
        return f"CHANCE needs at least {g.rules.chance_min_stock} stock cards, the stock holds {len(g.stock)} (R16, E2)"
    if before and not g.drawn:
        return "first choose DRAW or CHANCE (R16)"
    if len(move.cards) != 1:
        return "phase 1 plays exactly one card (R11)"
    c = move.cards[0]
    if c in g.won[g.acting]:
        return "won-pile cards cannot be played in phase 1 (R18)"
    if g.trump_holder == g.acting:
        # One text whether or not the card named is the trump card: a distinct one would let
        # its holder probe guesses at a card hidden even from him until phase 2 (R9).
        return "that card is not in your hand; the face-down trump card cannot be played in phase 1 (R8, R16, R18)"
    return "that card is not in your hand (R8, R16)"


def apply(g: GameState, move: Move) -> None:
    seat = g.to_act
    assert seat is not None  # Game.legal_moves/apply call this only while a seat is to act
    kind = move.kind
    if kind is MoveKind.DRAW:
        _draw(g, seat)
        g.drawn = True
        return
    if kind is MoveKind.CHANCE:
        c = g.stock.pop()  # R16: at least 2 cards, so the stock never empties here (E20)
        g.trick.append((seat, c, True))
        g.round.append(c)
        g.events.append(Event(EventKind.CHANCE, seat, (c,)))
    else:
        c = move.cards[0]
        g.hands[seat].remove(c)
        g.known[seat].discard(c)
        g.trick.append((seat, c, False))
        g.round.append(c)
        g.events.append(Event(EventKind.PLAY, seat, (c,)))
        if g.rules.draw_timing is DrawTiming.AFTER and g.stock:
            _draw(g, seat)  # R17: play, then draw (into the trump slot if it is the last card)
    played = len(g.round)
    if played < len(g.round_seats):
        _next_player_must_play(g, g.round_seats[played])
    else:
        _resolve_round(g)


def _next_player_must_play(g: GameState, seat: int) -> None:
    if not g.stock and not g.hands[seat]:
        # Defensive: a round starts only when all its players hold a card (R22 is checked at a
        # stunsa, A5 at a play_out trick), and nobody loses a card during another's turn.
        _exhausted(g, [])
    else:
        _begin_turn(g, seat)


def _resolve_round(g: GameState) -> None:
    v = g.values
    ranks = [v[c] for c in g.round]
    top = max(ranks)
    tied = [s for s, r in zip(g.round_seats, ranks) if r == top]
    if len(tied) == 1:
        _take(g, tied[0])  # R19
        return
    # R21/E3: stunsa. The tied players play another round, in the order they just played: under
    # `pair` the same leader and opponent, under `all` only those tied for the top rank (A3).
    g.events.append(Event(EventKind.STUNSA))
    g.round.clear()
    g.round_seats = tied
    if not g.stock:
        holders = [s for s in tied if g.hands[s]]
        if len(holders) < len(tied):
            # R22/A4: one of them cannot play the new round, so it is not played as such.
            _exhausted(g, holders)
            return
    _begin_turn(g, tied[0])


def _take(g: GameState, winner: int) -> None:
    cards = tuple(c for _, c, _ in g.trick)
    g.won[winner].extend(cards)  # R20: all cards of the trick, stunsa rounds included
    g.events.append(Event(EventKind.TAKE, winner, cards))
    g.last_trick_winner = winner
    _after_trick(g, winner)


def _exhausted(g: GameState, holders: list[int]) -> None:
    """R22/A4: a player who must play a stunsa round has no hand card; `holders` are the tied
    players who still have one."""
    if g.rules.bounce_exhausted is BounceExhausted.SURVIVOR_TAKES_ALL:
        if len(holders) == 1:
            _take(g, holders[0])
            return
        if len(holders) > 1:
            # A4 (only under `all`, where three or more can tie): those without a card drop
            # out of the stunsa, and the others play it on among themselves.
            g.round_seats = holders
            _begin_turn(g, holders[0])
            return
    for seat, c, _ in g.trick:
        g.won[seat].append(c)
    g.events.append(Event(EventKind.VOID, None, tuple(c for _, c, _ in g.trick)))
    _after_trick(g, g.leader)  # decision: after a void trick its leader keeps the lead (play_out only)


def _after_trick(g: GameState, next_leader: int) -> None:
    n = g.n
    everybody = g.rules.phase1_mode is Phase1Mode.ALL
    if g.stock:
        if everybody:
            _start_trick(g, next_leader, _clockwise_from(g, next_leader))  # A2
        else:
            _start_trick(g, next_leader, [next_leader, (next_leader + 1) % n])  # R24: his left neighbour
        return
    if g.rules.phase1_end is Phase1End.STOCK_OUT:
        phase2.start(g)  # R27: stock out and the trick resolved
        return
    # R27 play_out: tricks go on from hands while at least two players hold hand cards.
    holders = [s for s in range(n) if g.hands[s]]
    if len(holders) < 2:
        phase2.start(g)
        return
    leader = next_leader
    while not g.hands[leader]:
        leader = (leader + 1) % n  # a leader with no hand cards passes the lead clockwise
    if everybody:
        _start_trick(g, leader, _clockwise_from(g, leader, holders_only=True))  # A5
        return
    opponent = (leader + 1) % n
    while not g.hands[opponent]:
        opponent = (opponent + 1) % n
    _start_trick(g, leader, [leader, opponent])


def fallback(g: GameState) -> Move:
    """R52, phase 1: DRAW if possible, then the lowest hand card (never CHANCE)."""
    if g.rules.draw_timing is DrawTiming.BEFORE and not g.drawn:
        return DRAW
    hand = g.sorted_hand(g.acting)
    if not hand:
        raise IllegalMove("no fallback: the player to act has no hand card")  # unreachable by R22
    return play(hand[0])
