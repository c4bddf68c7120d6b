"""A seat's view: exactly what one seat may know under R8-R10, so a bot without memory can play well.

Hidden, always: other seats' hands (except cards publicly known to be there), the
stock order, the set-aside cards (R5) and the trump card before phase 2 (R9),
even from its holder.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.game.cards import Card


@dataclass(frozen=True, slots=True)
class SeatView:
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
    values = g.values

    def ordered(cards) -> tuple[Card, ...]:
        return tuple(sorted(cards, key=lambda c: values[c] * 4 + c // 13))

    phase = 3 if g.outcome is not None else g.phase
    in_phase1 = g.phase == 1
    public_won = g.rules.public_won_piles
    return SeatView(
        seat=seat,
        num_players=n,
        dealer=g.dealer,
        phase=phase,
        to_act=g.to_act,
        hand=ordered(g.hands[seat]),
        hand_sizes=tuple(len(h) for h in g.hands),
        stock_size=len(g.stock),
        trump_holder=g.trump_holder,
        trump_card=None if in_phase1 else g.trump_card,
        duel=tuple(g.duel),
        won_piles=tuple(tuple(w) for w in g.won) if (public_won and in_phase1) else None,
        won_sizes=tuple(len(w) for w in g.won) if in_phase1 else (0,) * n,
        leader=g.leader if in_phase1 else None,
        opponent=g.opponent if in_phase1 else None,
        trick=tuple(g.trick) if in_phase1 else (),
        drawn=g.drawn if in_phase1 else False,
        table=tuple(zip(g.table_owners, g.table)),
        trick_size=g.trick_size if not in_phase1 else 0,
        discard=tuple(g.discard),
        out=tuple(g.out_order),
        known=tuple(ordered(k) for k in g.known),
        phase2_actions=g.phase2_actions,
        max_phase2_actions=g.rules.max_phase2_actions,
    )
