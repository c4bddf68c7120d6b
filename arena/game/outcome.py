"""How a game ended: finishing order, the skitgubbe, and why (R49-R51, R53)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class EndReason(str, Enum):
    NORMAL = "normal"  # R49: exactly one player still holds cards
    CAPPED = "capped"  # R51: the phase-2 action cap was reached
    FORFEIT = "forfeit"  # R53: a bot fault under fault_policy = forfeit


@dataclass(frozen=True, slots=True)
class Outcome:
    """``finishing_order`` lists seats first-out first; its last seat is the skitgubbe (R50)."""

    finishing_order: tuple[int, ...]
    reason: EndReason
    forfeited_seat: int | None = None
    forfeit_reason: str = ""
    went_out: int = 0  # how many really went out (the rest were ranked by R51 or R53)

    @property
    def skitgubbe(self) -> int:
        return self.finishing_order[-1]

    @property
    def first_out(self) -> int:
        return self.finishing_order[0]

    def place_of(self, seat: int) -> int:
        """1 for the first out, n for the skitgubbe."""
        return self.finishing_order.index(seat) + 1


def rank_remaining(out_order: list[int], remaining: list[int], card_counts: list[int], due: int, n: int) -> tuple[int, ...]:
    """Finishing order when play stops early (R51, R53).

    Those already out keep their order; the rest follow by fewest cards, ties going to
    the tied player reached first clockwise from ``due`` (the player due to act), who
    counts as finishing ahead.
    """
    def key(seat: int) -> tuple[int, int]:
        return (card_counts[seat], (seat - due) % n)

    return tuple(out_order) + tuple(sorted(remaining, key=key))
