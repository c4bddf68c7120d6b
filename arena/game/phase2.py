"""Phase 2 (R29-R51): trump, units and runs, beating, picking up, tricks, going out, the cap.

Functions here mutate a `Game` (arena.game.state); `apply` assumes the move is legal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.game.cards import SUIT_OF
from arena.game.events import Event, EventKind
from arena.game.moves import PICKUP, Move, MoveKind, play
from arena.game.outcome import EndReason
from arena.game.rules import Phase2FirstLeader, Pickup, SequenceResponse, ZeroCardStart

if TYPE_CHECKING:
    from arena.game.state import Game


def start(g: "Game") -> None:
    """R28-R31: build phase-2 hands, turn up the trump card, put out empty-handed players."""
    n = g.n
    for seat in range(n):
        g.hands[seat].extend(g.won[seat])  # R28
        if g.rules.public_won_piles:
            g.known[seat].update(g.won[seat])
    holder, trump_card = g.trump_holder, g.trump_card
    g.hands[holder].append(trump_card)  # R29
    g.known[holder].add(trump_card)
    g.trump_suit = SUIT_OF[trump_card]
    g.phase = 2
    g.to_act = None
    g.events.append(Event(EventKind.PHASE2, holder, (trump_card,)))
    for k in range(n):  # R31: in clockwise order from the trump holder
        seat = (holder + k) % n
        if not g.hands[seat]:
            if g.rules.zero_card_start is ZeroCardStart.OUT:
                _go_out(g, seat)
            else:
                g.pending[seat] = True  # must pick up before he can go out
    if g.in_count == 1:
        g.finish(EndReason.NORMAL)
        return
    leader = holder  # R30
    if g.rules.phase2_first_leader is Phase2FirstLeader.LAST_TRICK_WINNER and g.last_trick_winner is not None:
        leader = g.last_trick_winner
    if g.out[leader]:
        leader = next_in(g, leader)
    _begin_lead(g, leader)


def next_in(g: "Game", seat: int) -> int:
    """The next player clockwise after seat who is not out (R32)."""
    n, out = g.n, g.out
    s = (seat + 1) % n
    while out[s]:
        s = (s + 1) % n
    return s


def _begin_lead(g: "Game", seat: int) -> None:
    # A player still in with no cards (zero_card_start = must_pick_up) cannot lead:
    # the lead passes clockwise to the next player who holds cards.
    for _ in range(g.n):
        if g.hands[seat]:
            break
        seat = next_in(g, seat)
    g.to_act = seat
    g.trick_size = g.in_count  # R45: fixed at the lead, the leader included
    g.events.append(Event(EventKind.LEAD, seat, count=g.trick_size))


def _go_out(g: "Game", seat: int) -> None:
    g.out[seat] = True
    g.in_count -= 1
    g.out_order.append(seat)
    g.events.append(Event(EventKind.OUT, seat))


# ---- units ---------------------------------------------------------------------------------

def _suit_runs(cards_low_to_high: list[int], values: tuple[int, ...], allow_sequences: bool) -> list[tuple[int, ...]]:
    """Every unit (R34) made of one suit's cards, given sorted low to high."""
    units = [(c,) for c in cards_low_to_high]
    if not allow_sequences or len(cards_low_to_high) < 2:
        return units
    # Split into maximal chains of consecutive values (R3), then take every sub-run of 2+.
    chain = [cards_low_to_high[0]]
    chains = []
    for c in cards_low_to_high[1:]:
        if values[c] == values[chain[-1]] + 1:
            chain.append(c)
        else:
            chains.append(chain)
            chain = [c]
    chains.append(chain)
    for ch in chains:
        size = len(ch)
        for length in range(2, size + 1):
            for i in range(size - length + 1):
                units.append(tuple(ch[i:i + length]))
    return units


def _by_suit(g: "Game", seat: int) -> list[list[int]]:
    values = g.values
    suits: list[list[int]] = [[], [], [], []]
    for c in g.hands[seat]:
        suits[SUIT_OF[c]].append(c)
    for cards in suits:
        if len(cards) > 1:
            cards.sort(key=values.__getitem__)
    return suits


def _sort_units(units: list[tuple[int, ...]], values: tuple[int, ...]) -> list[tuple[int, ...]]:
    # Documented order: by length, then the low card by R2, then suit c < d < h < s.
    return sorted(units, key=lambda u: (len(u), values[u[0]], SUIT_OF[u[0]]))


def top_card(g: "Game") -> int:
    """R33: the highest-ranked card of the most recent unit."""
    return g.table[-1][-1]  # units are stored low to high


def legal(g: "Game") -> list[Move]:
    seat, values, rules = g.to_act, g.values, g.rules
    suits = _by_suit(g, seat)
    if not g.table:  # R35: lead any unit
        units = []
        for cards in suits:
            if cards:
                units.extend(_suit_runs(cards, values, rules.allow_sequences))
        return [play(*u) for u in _sort_units(units, values)]
    top = top_card(g)
    top_suit, top_value, trump = SUIT_OF[top], values[top], g.trump_suit
    candidates = [u for u in _suit_runs(suits[top_suit], values, rules.allow_sequences) if values[u[0]] > top_value]
    if top_suit != trump and suits[trump] and not (rules.trump_only_if_void and suits[top_suit]):
        candidates.extend(_suit_runs(suits[trump], values, rules.allow_sequences))  # R38(b), R39
    if rules.sequence_response is SequenceResponse.SAME_LENGTH and len(g.table[-1]) > 1:
        k = len(g.table[-1])
        candidates = [u for u in candidates if len(u) == k]  # R40
    moves = [play(*u) for u in _sort_units(candidates, values)]
    if not (rules.must_beat_if_able and moves):  # R36
        moves.insert(0, PICKUP)
    return moves


def why_illegal(g: "Game", move: Move) -> str:
    """A reason citing the rule, for a move not in the legal list."""
    seat, values = g.to_act, g.values
    if move.kind in (MoveKind.DRAW, MoveKind.CHANCE):
        return f"{move.kind.value} exists only in phase 1 while the stock lasts (R16)"
    if move.kind is MoveKind.PICKUP:
        if not g.table:
            return "the table is empty: you must lead a unit (R35)"
        return "you can beat the top card, and must_beat_if_able is on (R36)"
    cards = move.cards
    missing = [c for c in cards if c not in g.hands[seat]]
    if missing:
        return "you do not hold every card of that unit (R8)"
    if len(cards) > 1:
        if not g.rules.allow_sequences:
            return "runs are switched off (allow_sequences = false, R34)"
        if len({SUIT_OF[c] for c in cards}) != 1:
            return "a run is of one suit (R34, E21)"
        vals = sorted(values[c] for c in cards)
        if any(b != a + 1 for a, b in zip(vals, vals[1:])):
            return "a run has consecutive ranks, with no wrap-around (R3, R34, E21)"
    if not g.table:
        return "not a unit you can lead (R35)"  # pragma: no cover - every held unit is leadable
    top = top_card(g)
    if g.rules.sequence_response is SequenceResponse.SAME_LENGTH and len(g.table[-1]) > 1 and len(cards) != len(g.table[-1]):
        return f"the top unit is a run of {len(g.table[-1])}: answer with a run of the same length (R40)"
    suit, top_suit = SUIT_OF[cards[0]], SUIT_OF[top]
    if suit == top_suit:
        return "a unit of the top card's suit must have its low card above the top card (R38a)"
    if suit == g.trump_suit and top_suit != g.trump_suit:
        return "trump is allowed only when you hold no card of the top card's suit (R39)"
    if top_suit == g.trump_suit:
        return "a trump on top is beaten only by a higher trump (R38)"
    return "only the same suit higher, or trump, beats the top card (R38)"


def apply(g: "Game", move: Move) -> None:
    seat = g.to_act
    g.phase2_actions += 1  # R51: every play and every pick-up counts one
    if move.kind is MoveKind.PICKUP:
        _pickup(g, seat)
    else:
        _play_unit(g, seat, move.cards)
    if not g.is_over and g.phase2_actions >= g.rules.max_phase2_actions:
        g.finish(EndReason.CAPPED)


def _play_unit(g: "Game", seat: int, cards: tuple[int, ...]) -> None:
    hand, known = g.hands[seat], g.known[seat]
    for c in cards:
        hand.remove(c)
        known.discard(c)
    g.table.append(cards)
    g.table_owners.append(seat)
    g.events.append(Event(EventKind.UNIT, seat, cards))
    if not hand and not g.pending[seat]:
        _go_out(g, seat)  # R48
        if g.in_count == 1:
            g.finish(EndReason.NORMAL)  # R49/E12
            return
    if len(g.table) >= g.trick_size:  # R45-R46: complete; discard
        discarded = tuple(c for unit in g.table for c in unit)
        g.discard.extend(discarded)
        g.table.clear()
        g.table_owners.clear()
        g.events.append(Event(EventKind.DISCARD, None, discarded))
        if g.rules.completer_leads and not g.out[seat]:
            _begin_lead(g, seat)
        else:
            _begin_lead(g, next_in(g, seat))  # E10, or completer_leads = false
        return
    g.to_act = next_in(g, seat)


def _pickup(g: "Game", seat: int) -> None:
    table, owners, option = g.table, g.table_owners, g.rules.pickup
    if option is Pickup.TRICK:  # R42
        taken = tuple(c for unit in table for c in unit)
        table.clear()
        owners.clear()
    elif option is Pickup.TOP_PLAY:
        taken = table.pop()
        owners.pop()
    elif option is Pickup.BOTTOM_PLAY:
        taken = table.pop(0)
        owners.pop(0)
    elif option is Pickup.TOP_CARD:
        taken = _take_from_top(g, 1)
    else:
        taken = _take_top_run(g)
    g.hands[seat].extend(taken)
    g.known[seat].update(taken)  # R44: picked-up cards are public
    g.pending[seat] = False
    g.events.append(Event(EventKind.PICKUP, seat, taken))
    nxt = next_in(g, seat)
    if table:
        g.to_act = nxt  # R43/E22: respond to the new top card within the same trick
    else:
        _begin_lead(g, nxt)  # R42/E11


def _take_from_top(g: "Game", count: int) -> tuple[int, ...]:
    """Remove `count` cards from the top of the table's card stack, highest of each unit first."""
    taken = []
    for _ in range(count):
        unit = g.table[-1]
        taken.append(unit[-1])
        if len(unit) == 1:
            g.table.pop()
            g.table_owners.pop()
        else:
            g.table[-1] = unit[:-1]
    return tuple(taken)


def _take_top_run(g: "Game") -> tuple[int, ...]:
    """R43 top_run: the top card and each card directly below it continuing a run in its suit."""
    stack = [c for unit in g.table for c in unit]
    values = g.values
    count = 1
    while count < len(stack):
        above, below = stack[-count], stack[-count - 1]
        if SUIT_OF[below] != SUIT_OF[above] or values[below] != values[above] - 1:
            break
        count += 1
    return _take_from_top(g, count)


def fallback(g: "Game") -> Move:
    """R52, phase 2: pick up when responding; when leading, the lowest single non-trump card,
    or the lowest trump if he holds only trumps."""
    if g.table:
        # Under must_beat_if_able pick-up may be illegal; then the lowest beating unit.
        return g.legal_moves()[0]
    hand = g.sorted_hand(g.to_act)
    non_trump = [c for c in hand if SUIT_OF[c] != g.trump_suit]
    return play((non_trump or hand)[0])
