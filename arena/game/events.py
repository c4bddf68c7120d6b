"""Public events: what every seat sees happen (R10), in order, as the game is played.

The referee forwards them to bots that track the game; `arena play --show` and
replays render them. An event never carries a card that R8-R9 keep hidden: a draw
says who drew, not what.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from arena.game.cards import Card, format_cards


class EventKind(str, Enum):
    DUEL = "duel"  # R13: seat shows card (one event per card compared)
    DRAW = "draw"  # R16: seat drew the top stock card (hidden)
    TRUMP = "trump"  # R16/R26: seat took the last stock card into the trump slot (hidden)
    PLAY = "play"  # R16: seat played card from hand in phase 1
    CHANCE = "chance"  # R16: seat turned up the top stock card and played it
    STUNSA = "stunsa"  # R21: the top ranks tie; the tied players play another round (the same pair under `pair`)
    TAKE = "take"  # R20/R22: seat takes cards (the whole trick) into his won pile
    VOID = "void"  # R22: each card of the trick goes back to the won pile of whoever played it
    PHASE2 = "phase2"  # R29-R30: the trump card (cards) is turned up and joins seat's hand
    OUT = "out"  # R31/R48: seat is out
    UNIT = "unit"  # R34/R41: seat plays cards (one card or a run) in phase 2
    PICKUP = "pickup"  # R42-R43: seat picks up cards
    DISCARD = "discard"  # R46: a complete trick (cards) leaves play
    LEAD = "lead"  # seat is to lead a new phase-2 trick of size count (R45)
    END = "end"  # the game is over


class Event(NamedTuple):
    """One public happening. ``seat`` is None for table-wide events; ``count`` is the trick size for LEAD.

    A NamedTuple (immutable, and cheap to build: the engine makes one or two per move).
    """

    kind: EventKind
    seat: int | None = None
    cards: tuple[Card, ...] = ()
    count: int = 0  # type: ignore[assignment]  # a field named as tuple.count: the protocol's word for it

    def text(self) -> str:
        """Plain tokens: kind, then seat (or -), then cards (or -), e.g. ``take 1 4h,6d``."""
        seat = "-" if self.seat is None else str(self.seat)
        tail = f" {self.count}" if self.kind is EventKind.LEAD else ""
        return f"{self.kind.value} {seat} {format_cards(self.cards)}{tail}"
