"""The lexical pieces of protocol lines (protocol.md sections 2 and 5): the error, escaping of free
text, whole numbers, `key=value` fields, card and seat lists. The rest of the codec builds on them."""

from __future__ import annotations

from typing import Sequence

from arena.game.cards import format_card

CARD_TEXT: tuple[str, ...] = tuple(format_card(c) for c in range(52))
_CARD_OF = {t: i for i, t in enumerate(CARD_TEXT)}


class ProtocolError(Exception):
    """A line that does not follow protocol.md; the message says what and which token."""


def escape(text: str) -> str:
    """Free text as one token (sections 3, 10): % space CR LF TAB become %25 %20 %0D %0A %09."""
    return (text.replace("%", "%25").replace(" ", "%20").replace("\r", "%0D")
            .replace("\n", "%0A").replace("\t", "%09"))


def one_line(text: str) -> str:
    """Free text to the end of a line (section 9): % CR LF become %25 %0D %0A."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def parse_int(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise ProtocolError(f"{what} must be a whole number like 7, got {text[:40]!r}")
    if len(text) > 18:  # section 2: ids and counts fit in 64 bits, so C and awk bots can hold them
        raise ProtocolError(f"{what} has {len(text)} digits; at most 18 are allowed, got {text[:40]!r}")
    return int(text)


def parse_signed(text: str, what: str) -> int:
    if text.startswith("-") and len(text) > 1:
        return -parse_int(text[1:], what)
    return parse_int(text, what)


def parse_fields(tokens: Sequence[str], where: str) -> dict[str, str]:
    """key=value tokens (section 2); a later duplicate key wins; a token without '=' is an error."""
    out: dict[str, str] = {}
    for tok in tokens:
        key, sep, value = tok.partition("=")
        if not sep or not key:
            raise ProtocolError(f"{where}: expected key=value, got {tok[:40]!r}")
        out[key] = value
    return out


def need_field(fields: dict[str, str], key: str, where: str) -> str:
    if key not in fields:
        raise ProtocolError(f"{where}: field {key}= is missing")
    return fields[key]


def parse_card_list(text: str, where: str) -> tuple[int, ...]:
    """Exactly the card lists the arena sends (section 5): canonical cards, or "-"."""
    if text == "-":
        return ()
    cards = []
    for part in text.split(","):
        try:
            cards.append(_CARD_OF[part])
        except KeyError:
            raise ProtocolError(f"{where}: not a card: {part[:40]!r}") from None
    return tuple(cards)


def parse_seats(text: str, where: str) -> tuple[int, ...]:
    return () if text == "-" else tuple(parse_int(p, where) for p in text.split(","))
