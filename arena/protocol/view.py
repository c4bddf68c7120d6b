"""The seat view as `key=value` fields of a `request` line (protocol.md section 6, "The view").

`VIEW_FIELDS` is the one table of those fields, in wire order: each field's key, the `SeatView`
attribute it carries, how its value is written and read back, and its placeholder in a `%`
template. `format_view_fields` and `parse_view_fields` (its exact inverse, for tests and
`arena bot check`) follow it, and so do the referee's templates (request_writer.py);
tests/protocol/test_view_fields.py holds protocol.md's table of section 6 to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from arena.game.cards import Card, parse_card
from arena.game.errors import ParseError
from arena.game.view import SeatView
from arena.protocol.text import CARD_TEXT, ProtocolError

NUMBER_TEXT: tuple[str, ...] = tuple(str(i) for i in range(64))  # seats and small counts
_NO_KNOWN: tuple[str, ...] = tuple("/".join(["-"] * n) for n in range(64))  # known= with nothing known

ViewFieldError = ProtocolError  # a view field that does not parse


@dataclass(frozen=True, slots=True)
class ViewField:
    """One `key=value` field of the view."""

    name: str  # the key on the wire
    attribute: str  # the SeatView attribute it carries
    format: Callable[[Any], str]  # the attribute's value -> the field's value text
    parse: Callable[[str], Any]  # the value text -> the attribute's value; ViewFieldError if it is not one
    slot: str = "%s"  # its placeholder in a `%` template: "%d" for a whole number (a flag's too)


# ---- writing (the lexical forms of section 5; a few lists of precomputed strings) ---------------

def _n(i: int) -> str:
    return NUMBER_TEXT[i] if 0 <= i < 64 else str(i)


_CARD_TEXT_OF = dict(enumerate(CARD_TEXT)).__getitem__  # for map(): a dict's is a plain C call


def card_list_text(cards: Sequence[Card]) -> str:  # section 5: comma list, "-" when empty
    if not cards:
        return "-"
    if len(cards) == 1:
        return CARD_TEXT[cards[0]]
    return ",".join(map(_CARD_TEXT_OF, cards))


def seat_text(s: int | None) -> str:
    """A seat, or "-" for none (section 6)."""
    return "-" if s is None else _n(s)


def _numbers_text(numbers: Sequence[int]) -> str:  # one per seat, so never empty
    return "/".join([_n(k) for k in numbers])


def _seats_text(seats: Sequence[int]) -> str:
    return ",".join([_n(s) for s in seats]) if seats else "-"


def _card_or_none_text(c: Card | None) -> str:
    return "-" if c is None else CARD_TEXT[c]


def _flag_text(flag: bool) -> str:
    return "1" if flag else "0"


def _duel_text(duel: Sequence[tuple[int, Card]]) -> str:
    return ",".join([_n(s) + ":" + CARD_TEXT[c] for s, c in duel]) if duel else "-"


def _won_text(won: Sequence[Sequence[Card]] | None) -> str:
    return "-" if won is None else "/".join([card_list_text(p) for p in won])


def _trick_text(trick: Sequence[tuple[int, Card, bool]]) -> str:
    if not trick:
        return "-"
    return ",".join([_n(s) + ":" + CARD_TEXT[c] + (":c" if blind else "") for s, c, blind in trick])


def _table_text(table: Sequence[tuple[int, Sequence[Card]]]) -> str:
    return "/".join([_n(s) + ":" + card_list_text(u) for s, u in table]) if table else "-"


def _known_text(known: Sequence[Sequence[Card]]) -> str:
    # Usually nothing is known: a precomputed "-/-/-" saves a third of the field work.
    return "/".join([card_list_text(k) for k in known]) if any(known) else _NO_KNOWN[len(known)]


# ---- reading -------------------------------------------------------------------------------------

def _int(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 18:
        raise ViewFieldError(f"expected a whole number, got {text!r}")
    return int(text)


def _seat_or_none(text: str) -> int | None:
    return None if text == "-" else _int(text)


def _card(text: str) -> Card:
    try:
        return parse_card(text)
    except ParseError as e:
        raise ViewFieldError(str(e)) from None


def _card_or_none(text: str) -> Card | None:
    return None if text == "-" else _card(text)


def _card_list(text: str) -> tuple[Card, ...]:
    return () if text == "-" else tuple(_card(p) for p in text.split(","))


def _ints_slash(text: str) -> tuple[int, ...]:
    return tuple(_int(p) for p in text.split("/"))


def _seat_list(text: str) -> tuple[int, ...]:
    return () if text == "-" else tuple(_int(p) for p in text.split(","))


def _seat_items(text: str, item_sep: str, parse_value: Callable[[str], Any], expected: str
                ) -> tuple[tuple[int, Any], ...]:
    """`seat:value` items joined by `item_sep`, or "-" for none."""
    if text == "-":
        return ()
    out = []
    for item in text.split(item_sep):
        seat, sep, value = item.partition(":")
        if not sep:
            raise ViewFieldError(f"expected {expected}, got {item!r}")
        out.append((_int(seat), parse_value(value)))
    return tuple(out)


def _duel(text: str) -> tuple[tuple[int, Card], ...]:
    return _seat_items(text, ",", _card, "seat:card")


def _trick(text: str) -> tuple[tuple[int, Card, bool], ...]:
    if text == "-":
        return ()
    out = []
    for item in text.split(","):
        parts = item.split(":")
        if len(parts) == 2 or (len(parts) == 3 and parts[2] == "c"):
            out.append((_int(parts[0]), _card(parts[1]), len(parts) == 3))
        else:
            raise ViewFieldError(f"expected seat:card or seat:card:c, got {item!r}")
    return tuple(out)


def _table(text: str) -> tuple[tuple[int, tuple[Card, ...]], ...]:
    return _seat_items(text, "/", _card_list, "seat:cards")


def _won(text: str) -> tuple[tuple[Card, ...], ...] | None:
    return None if text == "-" else tuple(_card_list(p) for p in text.split("/"))


def _known(text: str) -> tuple[tuple[Card, ...], ...]:
    return tuple(_card_list(p) for p in text.split("/"))


def _bool01(text: str) -> bool:
    if text not in ("0", "1"):
        raise ViewFieldError(f"expected 0 or 1, got {text!r}")
    return text == "1"


# ---- the table -----------------------------------------------------------------------------------

def _number(name: str, attribute: str) -> ViewField:
    return ViewField(name, attribute, _n, _int, "%d")


VIEW_FIELDS: tuple[ViewField, ...] = (
    _number("phase", "phase"),
    _number("seat", "seat"),
    _number("players", "num_players"),
    _number("dealer", "dealer"),
    ViewField("hand", "hand", card_list_text, _card_list),
    ViewField("hands", "hand_sizes", _numbers_text, _ints_slash),
    _number("stock", "stock_size"),
    ViewField("trumpholder", "trump_holder", seat_text, _seat_or_none),
    ViewField("trump", "trump_card", _card_or_none_text, _card_or_none),
    ViewField("duel", "duel", _duel_text, _duel),
    ViewField("won", "won_piles", _won_text, _won),
    ViewField("wonsizes", "won_sizes", _numbers_text, _ints_slash),
    ViewField("leader", "leader", seat_text, _seat_or_none),
    ViewField("opponent", "opponent", seat_text, _seat_or_none),
    ViewField("trick", "trick", _trick_text, _trick),
    ViewField("drawn", "drawn", _flag_text, _bool01, "%d"),
    ViewField("table", "table", _table_text, _table),
    _number("tricksize", "trick_size"),
    ViewField("discard", "discard", card_list_text, _card_list),
    ViewField("out", "out", _seats_text, _seat_list),
    ViewField("known", "known", _known_text, _known),
    _number("actions", "phase2_actions"),
    _number("maxactions", "max_phase2_actions"),
    # Last, though it belongs with the phase-1 fields: bots that read fields by position
    # (against section 2's advice) keep working.
    ViewField("round", "round_seats", _seats_text, _seat_list),
)

# (key=, the attribute's index in a SeatView, how it is written): a misspelt attribute fails here,
# at import, and a NamedTuple's index is cheaper than getattr.
_WRITERS: tuple[tuple[str, int, Callable[[Any], str]], ...] = tuple(
    (f.name + "=", SeatView._fields.index(f.attribute), f.format) for f in VIEW_FIELDS)


def format_view_fields(v: SeatView) -> str:
    """Every view field of section 6, in the documented order, joined by single spaces. (The
    referee writes its requests with RequestWriter instead, which keeps texts across a game.)"""
    return " ".join([key + write(v[index]) for key, index, write in _WRITERS])


def parse_view_fields(fields: dict[str, str]) -> SeatView:
    """Build the SeatView of a request from its fields; unknown fields are ignored (section 2).

    ``to_act`` is not sent: a request always goes to the seat to act, so it equals ``seat``.
    """
    values: dict[str, Any] = {}
    for field in VIEW_FIELDS:
        if field.name not in fields:
            raise ViewFieldError(f"view field {field.name}= is missing")
        text = fields[field.name]
        try:
            values[field.attribute] = field.parse(text)
        except ViewFieldError as e:
            raise ViewFieldError(f"view field {field.name}={text}: {e}") from None
    values["to_act"] = values["seat"]
    return SeatView(**values)
