"""A seat's view: exactly what one seat may know under R8-R10, so a bot without memory can play well.

Hidden, always: other seats' hands (except cards publicly known to be there), the
stock order, the set-aside cards (R5) and the trump card before phase 2 (R9),
even from its holder.
"""

from __future__ import annotations

from typing import NamedTuple

from arena.game.cards import Card, sort_key_for


class SeatView(NamedTuple):
    """Immutable. A NamedTuple, not a frozen dataclass: one is built per decision request, and a
    frozen dataclass's __init__ (one object.__setattr__ per field) cost half of building the view."""

    seat: int
    num_players: int
    dealer: int
    phase: int  # 1, 2, or 3 when the game is over
    to_act: int | None
    hand: tuple[Card, ...]  # R8: own hand, low to high
    hand_sizes: tuple[int, ...]  # R10
    stock_size: int
    trump_holder: int | None  # who took the last stock card (public), even before phase 2
    trump_card: Card | None  # R9: only from phase 2 on
    duel: tuple[tuple[int, Card], ...]  # R13: (seat, card) shown in the duel
    won_piles: tuple[tuple[Card, ...], ...] | None  # R10: contents, or None when public_won_piles = false
    won_sizes: tuple[int, ...]
    # phase 1
    leader: int | None
    opponent: int | None
    trick: tuple[tuple[int, Card, bool], ...]  # (seat, card, blind) for every round of the trick
    drawn: bool  # draw_timing = before: the source step is done this turn
    round_seats: tuple[int, ...]  # who plays the current round, in order (R15, R21; A1-A3 under `all`)
    # phase 2
    table: tuple[tuple[int, tuple[Card, ...]], ...]  # (seat, unit), oldest first
    trick_size: int
    discard: tuple[Card, ...]
    out: tuple[int, ...]  # seats in the order they went out
    known: tuple[tuple[Card, ...], ...]  # per seat: cards publicly known to be in that hand (R10, R44)
    phase2_actions: int
    max_phase2_actions: int

    @property
    def trump_suit(self) -> int | None:
        return None if self.trump_card is None else self.trump_card // 13


def build_view(g, seat: int) -> SeatView:
    n = g.n
    key = sort_key_for(g.values).__getitem__

    def ordered(cards) -> tuple[Card, ...]:
        return tuple(sorted(cards, key=key)) if cards else ()

    phase = 3 if g.outcome is not None else g.phase
    in_phase1 = g.phase == 1
    public_won = g.rules.public_won_piles
    # map/tuple run in C: this is built once per decision request, so it is on the hot path.
    return SeatView(
        seat,
        n,
        g.dealer,
        phase,
        g.to_act,
        ordered(g.hands[seat]),
        tuple(map(len, g.hands)),
        len(g.stock),
        g.trump_holder,
        None if in_phase1 else g.trump_card,
        tuple(g.duel),
        tuple(map(tuple, g.won)) if (public_won and in_phase1) else None,
        tuple(map(len, g.won)) if in_phase1 else (0,) * n,
        g.leader if in_phase1 else None,
        g.opponent if in_phase1 else None,
        tuple(g.trick) if in_phase1 else (),
        g.drawn if in_phase1 else False,
        tuple(g.round_seats) if in_phase1 else (),
        tuple(zip(g.table_owners, g.table)),
        0 if in_phase1 else g.trick_size,
        tuple(g.discard),
        tuple(g.out_order),
        tuple(map(ordered, g.known)),
        g.phase2_actions,
        g.rules.max_phase2_actions,
    )
