"""Moves and their one-token text forms, the vocabulary of the bot protocol.

    draw          phase 1, step 1 (R16): take the top stock card, then play from hand
    chance        phase 1 (R16): turn up the top stock card and play it blind
    Kd            play one card: a phase-1 play from hand, or a phase-2 single card
    4h,5h,6h      phase 2: a run (R34), its cards in rising order
    pickup        phase 2 (R36, R42-R43): pick up from the table

Every move is a single space-free token, so a bot in C, shell or awk can read a
list of legal moves with a plain split on spaces.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from arena.game.cards import Card, format_card, parse_card
from arena.game.errors import ParseError


class MoveKind(str, Enum):
    DRAW = "draw"
    CHANCE = "chance"
    PLAY = "play"
    PICKUP = "pickup"


class Move(NamedTuple):
    """One decision of the player to act. ``cards`` is set only for PLAY (one card, or a run).

    A NamedTuple rather than a dataclass: an immutable value all the same, and its
    equality runs in C, which the legality check on every move leans on.
    """

    kind: MoveKind
    cards: tuple[Card, ...] = ()

    def __str__(self) -> str:
        return format_move(self)


DRAW = Move(MoveKind.DRAW)
CHANCE = Move(MoveKind.CHANCE)
PICKUP = Move(MoveKind.PICKUP)

# Interning keeps moves cheap to build on the hot path and lets `is`-free equality stay fast.
SINGLE_PLAYS: tuple[Move, ...] = tuple(Move(MoveKind.PLAY, (c,)) for c in range(52))


_RUNS: dict[tuple[Card, ...], Move] = {}  # at most a few hundred distinct runs exist


def run_move(cards: tuple[Card, ...]) -> Move:
    """The interned PLAY move of a run (cards low to high)."""
    move = _RUNS.get(cards)
    if move is None:
        move = _RUNS[cards] = Move(MoveKind.PLAY, cards)
    return move


# Under ace low a run is a block of consecutive card codes inside one suit, so every
# such run can be built once: RUNS_FROM[c][k] is the run of k cards starting at card c
# (RUNS_FROM[c][1] is the single card, and so is [0], which no caller asks for), up to the suit's king.
RUNS_FROM: tuple[tuple[Move, ...], ...] = tuple(
    (SINGLE_PLAYS[c],) + tuple(run_move(tuple(range(c, c + k))) if k > 1 else SINGLE_PLAYS[c]
                               for k in range(1, 13 - c % 13 + 1))
    for c in range(52)
)


def play(*cards: Card) -> Move:
    """A PLAY move of one card or a run (interned, so equal moves are usually the same object)."""
    if len(cards) == 1:
        return SINGLE_PLAYS[cards[0]]
    return run_move(cards) if cards else Move(MoveKind.PLAY, ())


def format_move(move: Move) -> str:
    """The one-token text form of a move."""
    if move.kind is MoveKind.PLAY:
        return ",".join(format_card(c) for c in move.cards)
    word: str = move.kind.value
    return word


_WORDS = {"draw": DRAW, "chance": CHANCE, "pickup": PICKUP}
# Tokens already parsed, as format_move writes them: a transcript (a replay, a game's page) repeats
# a few hundred such tokens thousands of times. Only these, so that a bot's many spellings of one
# move (kD, KD, 10d) never grow it, and at most _CANONICAL_MAX (a run's cards may come in any order).
_CANONICAL: dict[str, Move] = dict(_WORDS)
_CANONICAL_MAX = 4096


def parse_move(text: str) -> Move:
    """Parse a move token; ParseError says what was expected."""
    known = _CANONICAL.get(text)
    if known is not None:
        return known
    word = text.strip()
    found = _WORDS.get(word.lower())
    if found is not None:
        return found
    if not word or any(ch.isspace() for ch in word):
        raise ParseError(f"not a move: {text!r} (expected draw, chance, pickup, a card like Kd, or a run like 4h,5h,6h)")
    try:
        cards = tuple(parse_card(part) for part in word.split(","))
    except ParseError as exc:
        raise ParseError(f"not a move: {text!r}: {exc}") from None
    if len(set(cards)) != len(cards):
        raise ParseError(f"not a move: {text!r} names a card twice")
    move = play(*cards)
    if len(_CANONICAL) < _CANONICAL_MAX and format_move(move) == word:
        _CANONICAL[word] = move
    return move
