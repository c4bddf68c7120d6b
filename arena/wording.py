"""Small helpers for the words of the arena's messages and reports."""

from __future__ import annotations


def count(number: int, noun: str) -> str:
    """'1 game', '2 games', '0 games': English plurals of the nouns we count (all take an s)."""
    return f"{number} {noun if number == 1 else noun + 's'}"
