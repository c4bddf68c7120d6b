"""Phase 2 (R29-R51): trump, units and runs, beating, picking up, tricks, going out, the cap.

Functions here mutate a `GameState` (arena/game/state.py); `apply` assumes the move is legal.
"""

from __future__ import annotations

from arena.game.cards import SUIT_OF, VALUE_ACE_LOW
from arena.game.events import Event, EventKind
from arena.game.moves import PICKUP, RUNS_FROM, SINGLE_PLAYS, Move, MoveKind, play, run_move
from arena.game.outcome import EndReason
from arena.game.rules import Phase2FirstLeader, Pickup, SequenceResponse, ZeroCardStart
from arena.game.state import GameState


def start(g: GameState) -> None:
    """R28-R31: build phase-2 hands, turn up the trump card, put out empty-handed players."""
    n = g.n
    for seat in range(n):
        g.hands[seat].extend(g.won[seat])  # R28
        if g.rules.public_won_piles:
            g.known[seat].update(g.won[seat])
    holder, trump_card = g.trump_holder, g.trump_card
    assert holder is not None and trump_card is not None  # turned up at the deal (R7)
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


def next_in(g: GameState, seat: int) -> int:
    """The next player clockwise after seat who is not out (R32)."""
    n, out = g.n, g.out
    s = (seat + 1) % n
    while out[s]:
        s = (s + 1) % n
    return s


def _begin_lead(g: GameState, seat: int) -> None:
    # A player still in with no cards (zero_card_start = must_pick_up) cannot lead:
    # the lead passes clockwise to the next player who holds cards.
    for _ in range(g.n):
        if g.hands[seat]:
            break
        seat = next_in(g, seat)
    g.to_act = seat
    g.trick_size = g.in_count  # R45: fixed at the lead, the leader included
    g.events.append(Event(EventKind.LEAD, seat, count=g.trick_size))


def _go_out(g: GameState, seat: int) -> None:
    g.out[seat] = True
    g.in_count -= 1
    g.out_order.append(seat)
    g.events.append(Event(EventKind.OUT, seat))


# ---- units ---------------------------------------------------------------------------------

def _units(cards: list[int], values: tuple[int, ...], allow_sequences: bool) -> list[Move]:
    """Every unit (R34) made of one suit's cards: by low card (R2), then by length.

    Runs are consecutive values (R3) of one suit; `cards` must all be of one suit.
    """
    if values is VALUE_ACE_LOW:
        return _units_ace_low(cards, allow_sequences)
    if len(cards) > 1:
        cards.sort(key=values.__getitem__)
    if not allow_sequences:
        return [SINGLE_PLAYS[c] for c in cards]
    out = []
    count = len(cards)
    for i in range(count):
        c = cards[i]
        out.append(SINGLE_PLAYS[c])
        prev = values[c]
        j = i + 1
        while j < count and values[cards[j]] == prev + 1:
            prev += 1
            j += 1
            out.append(run_move(tuple(cards[i:j])))
    return out


def _units_ace_low(cards: list[int], allow_sequences: bool) -> list[Move]:
    """The same units as `_units`, for ace low, where card-code order is suit then rank:
    one sort and one pass over the cards, even across suits, with prebuilt run moves."""
    cards.sort()
    if not allow_sequences:
        return [SINGLE_PLAYS[c] for c in cards]
    out = []
    count = len(cards)
    for i in range(count):
        c = cards[i]
        row = RUNS_FROM[c]
        out.append(row[1])
        k, longest = 1, min(len(row) - 1, count - i)
        while k < longest and cards[i + k] == c + k:
            k += 1
            out.append(row[k])
    return out


def top_card(g: GameState) -> int:
    """R33: the highest-ranked card of the most recent unit."""
    return g.table[-1][-1]  # units are stored low to high


def legal(g: GameState) -> list[Move]:
    """Documented order: `pickup` first when legal, then units by suit (c, d, h, s),
    within a suit by low card (R2) and then by length."""
    seat = g.to_act
    assert seat is not None  # Game.legal_moves/apply call this only while a seat is to act
    hand, values, rules = g.hands[seat], g.values, g.rules
    seq = rules.allow_sequences
    if not g.table:  # R35: lead any unit
        if values is VALUE_ACE_LOW:
            return _units_ace_low(list(hand), seq)
        suits: list[list[int]] = [[], [], [], []]
        for c in hand:
            suits[SUIT_OF[c]].append(c)
        moves = []
        for cards in suits:
            if cards:
                moves.extend(_units(cards, values, seq))
        return moves
    top = g.table[-1][-1]
    top_suit, top_value, trump = SUIT_OF[top], values[top], g.trump_suit
    assert trump is not None  # named when phase 2 began (R29)
    # R38(a): a same-suit unit beats when its low card ranks above the top card, so only
    # same-suit cards above the top card can be part of one.
    above = [c for c in hand if SUIT_OF[c] == top_suit and values[c] > top_value]
    beating = _units(above, values, seq) if above else []
    if top_suit != trump:  # R38(b), with R39's restriction
        trumps = [c for c in hand if SUIT_OF[c] == trump]
        if trumps and not (rules.trump_only_if_void and any(SUIT_OF[c] == top_suit for c in hand)):
            trump_units = _units(trumps, values, seq)
            beating = trump_units + beating if trump < top_suit else beating + trump_units
    if rules.sequence_response is SequenceResponse.SAME_LENGTH and len(g.table[-1]) > 1:
        k = len(g.table[-1])
        beating = [m for m in beating if len(m.cards) == k]  # R40
    if rules.must_beat_if_able and beating:  # R36
        return beating
    beating.insert(0, PICKUP)
    return beating


def why_illegal(g: GameState, move: Move) -> str:
    """A reason citing the rule, for a move not in the legal list."""
    seat, values = g.acting, g.values
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


def apply(g: GameState, move: Move) -> None:
    seat = g.to_act
    assert seat is not None  # Game.legal_moves/apply call this only while a seat is to act
    g.phase2_actions += 1  # R51: every play and every pick-up counts one
    if move.kind is MoveKind.PICKUP:
        _pickup(g, seat)
    else:
        _play_unit(g, seat, move.cards)
    if g.outcome is None and g.phase2_actions >= g.rules.max_phase2_actions:
        g.finish(EndReason.CAPPED)


def _play_unit(g: GameState, seat: int, cards: tuple[int, ...]) -> None:
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


def _pickup(g: GameState, seat: int) -> None:
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


def _take_from_top(g: GameState, count: int) -> tuple[int, ...]:
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


def _take_top_run(g: GameState) -> tuple[int, ...]:
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


def fallback(g: GameState, legal: list[Move]) -> Move:
    """R52, phase 2: pick up when responding; when leading, the lowest single non-trump card,
    or the lowest trump if he holds only trumps. `legal`: the legal moves now, in their order."""
    if g.table:
        # Under must_beat_if_able pick-up may be illegal; then the lowest beating unit.
        return legal[0]
    hand = g.sorted_hand(g.acting)
    non_trump = [c for c in hand if SUIT_OF[c] != g.trump_suit]
    return play((non_trump or hand)[0])
