"""Which stored games a listing takes, as the words the CLI offers: here, light to import, so that
the CLI can name them as an option's choices without opening the results layer's heavier modules."""

from __future__ import annotations

from typing import Literal, get_args

# Games out of the standings (of a bot's earlier version, or of a bot withdrawn): `GameQuery.superseded`.
Superseded = Literal["exclude", "include", "only"]
SUPERSEDED_CHOICES: tuple[str, ...] = get_args(Superseded)

__all__ = ["SUPERSEDED_CHOICES", "Superseded"]
