"""How the bots of a match sit from game to game (`arena play --seats`): a choice of its own, so
that the command line can offer it without loading the match layer."""

from __future__ import annotations

from enum import Enum


class Seats(str, Enum):
    """--seats: how the bots sit from game to game."""

    ROTATE = "rotate"  # each moves one seat on each game, so each plays every seat
    FIXED = "fixed"  # each keeps the seat it is named at


__all__ = ["Seats"]
