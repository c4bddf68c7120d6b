"""A seat's view: exactly what one seat may know under R8-R10, so a bot without memory can play well.

Hidden, always: other seats' hands (except cards publicly known to be there), the
stock order, the set-aside cards (R5) and the trump card before phase 2 (R9),
even from its holder.

`GameState.view` builds one (state.py's `build_view`). What each field is called on the wire, in which order, and how it is written is the protocol's
(arena/protocol/view.py's VIEW_FIELDS, protocol.md section 6), not this module's.
"""

from __future__ import annotations

from typing import NamedTuple

from arena.game.cards import Card


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
