"""Cards: their int codes, text forms and the orders of R1-R3 and R52.

A card is an int 0..51: ``suit * 13 + rank - 1`` with rank 1 (ace) .. 13 (king).
Plain ints rather than objects keep the engine's hot paths (legal moves, beating
tests) cheap; the text form (``Kd``, ``Th``, ``As``) is what people and bots see.
"""

from __future__ import annotations

from enum import IntEnum

from arena.game.errors import ParseError


class Suit(IntEnum):
    """The four suits, in the order R52 uses to break ties ("lowest" card): c < d < h < s."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3


SUIT_LETTERS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_LETTERS = "A23456789TJQK"  # index = rank - 1
ALL_CARDS: tuple[int, ...] = tuple(range(52))

Card = int  # documentation alias: a card code 0..51

# Precomputed per-card facts; list indexing is the fastest lookup Python has.
SUIT_OF: tuple[int, ...] = tuple(c // 13 for c in ALL_CARDS)
RANK_OF: tuple[int, ...] = tuple(c % 13 + 1 for c in ALL_CARDS)
# R2: value used for every comparison. Ace low (default): A=1 .. K=13. Ace high: 2=2 .. K=13, A=14.
VALUE_ACE_LOW: tuple[int, ...] = RANK_OF
VALUE_ACE_HIGH: tuple[int, ...] = tuple(14 if r == 1 else r for r in RANK_OF)


def card(rank: int, suit: Suit | int) -> Card:
    """The code of a card from rank 1..13 (1 = ace) and suit."""
    return int(suit) * 13 + rank - 1


def values_for(ace_high: bool) -> tuple[int, ...]:
    """The per-card comparison values under R2 for the given ace option."""
    return VALUE_ACE_HIGH if ace_high else VALUE_ACE_LOW


def format_card(c: Card) -> str:
    """Text form: rank letter then suit letter, e.g. ``Kd``, ``Th`` (ten), ``As``."""
    return RANK_LETTERS[c % 13] + SUIT_LETTERS[c // 13]


def pretty_card(c: Card) -> str:
    """Human form with a suit symbol, e.g. ``K♦``, ``10♥``."""
    rank = RANK_LETTERS[c % 13]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[c // 13]


_PARSE: dict[str, Card] = {}
for _c in ALL_CARDS:
    _text = format_card(_c)
    # Any case of rank and suit (protocol.md section 5): Kd KD kd kD, and 10 for T.
    for _rank in {_text[0], _text[0].lower()} | ({"10"} if _text[0] == "T" else set()):
        for _suit in (_text[1], _text[1].upper()):
            _PARSE[_rank + _suit] = _c


def parse_card(text: str) -> Card:
    """Parse ``Kd``/``KD``/``kd``/``10d``/``Td``; raise ParseError naming the bad text."""
    try:
        return _PARSE[text]
    except KeyError:
        raise ParseError(
            f"not a card: {text!r} (expected rank A 2-9 T J Q K then suit c d h s, e.g. Kd, Th, As)"
        ) from None


def format_cards(cards: list[Card] | tuple[Card, ...]) -> str:
    """Comma-separated text form; ``-`` for no cards (so the token is never empty)."""
    return ",".join(format_card(c) for c in cards) if cards else "-"


def parse_cards(text: str) -> tuple[Card, ...]:
    """Inverse of format_cards."""
    if text == "-":
        return ()
    return tuple(parse_card(part) for part in text.split(","))


# Sort keys of the stable card order (R2 value, then suit c < d < h < s), one per ace option;
# `sorted(cards, key=SORT_KEY_LOW.__getitem__)` runs the key in C, unlike a lambda.
SORT_KEY_LOW: tuple[int, ...] = tuple(VALUE_ACE_LOW[c] * 4 + c // 13 for c in ALL_CARDS)
SORT_KEY_HIGH: tuple[int, ...] = tuple(VALUE_ACE_HIGH[c] * 4 + c // 13 for c in ALL_CARDS)


def sort_key_for(values: tuple[int, ...]) -> tuple[int, ...]:
    return SORT_KEY_HIGH if values is VALUE_ACE_HIGH else SORT_KEY_LOW
