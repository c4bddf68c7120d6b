"""The seat view as `key=value` fields of a `request` line (protocol.md section 6, "The view").

`format_view_fields` is on the per-move hot path: it only indexes precomputed strings and joins
lists (no regex, no f-string per card). `parse_view_fields` is the exact inverse (used by tests
and `arena bot check`).
"""

from __future__ import annotations

from typing import Callable

from arena.game.cards import parse_card
from arena.game.errors import ParseError
from arena.game.view import SeatView
from arena.protocol.text import CARD_TEXT, ProtocolError

NUMBER_TEXT: tuple[str, ...] = tuple(str(i) for i in range(64))  # seats and small counts
_NO_KNOWN: tuple[str, ...] = tuple("/".join(["-"] * n) for n in range(64))  # known= with nothing known

ViewFieldError = ProtocolError  # a view field that does not parse


def _n(i: int) -> str:
    return NUMBER_TEXT[i] if 0 <= i < 64 else str(i)


_CARD_TEXT_OF = dict(enumerate(CARD_TEXT)).__getitem__  # for map(): a dict's is a plain C call


def card_list_text(cards) -> str:  # section 5: comma list, "-" when empty
    if not cards:
        return "-"
    if len(cards) == 1:
        return CARD_TEXT[cards[0]]
    return ",".join(map(_CARD_TEXT_OF, cards))


def seat_text(s: int | None) -> str:
    """A seat, or "-" for none (section 6)."""
    return "-" if s is None else _n(s)


def format_view_fields(v: SeatView) -> str:
    """Every view field of section 6, in the documented order, joined by single spaces."""
    won = v.won_piles
    duel = v.duel
    trick = v.trick
    table = v.table
    known = v.known  # usually nothing is known: a precomputed "-/-/-" saves a third of the field work
    return " ".join((
        "phase=" + _n(v.phase),
        "seat=" + _n(v.seat),
        "players=" + _n(v.num_players),
        "dealer=" + _n(v.dealer),
        "hand=" + card_list_text(v.hand),
        "hands=" + "/".join([_n(k) for k in v.hand_sizes]),
        "stock=" + _n(v.stock_size),
        "trumpholder=" + seat_text(v.trump_holder),
        "trump=" + ("-" if v.trump_card is None else CARD_TEXT[v.trump_card]),
        "duel=" + (",".join([_n(s) + ":" + CARD_TEXT[c] for s, c in duel]) if duel else "-"),
        "won=" + ("-" if won is None else "/".join([card_list_text(p) for p in won])),
        "wonsizes=" + "/".join([_n(k) for k in v.won_sizes]),
        "leader=" + seat_text(v.leader),
        "opponent=" + seat_text(v.opponent),
        "trick=" + (",".join([_n(s) + ":" + CARD_TEXT[c] + (":c" if blind else "") for s, c, blind in trick])
                    if trick else "-"),
        "drawn=" + ("1" if v.drawn else "0"),
        "table=" + ("/".join([_n(s) + ":" + card_list_text(u) for s, u in table]) if table else "-"),
        "tricksize=" + _n(v.trick_size),
        "discard=" + card_list_text(v.discard),
        "out=" + (",".join([_n(s) for s in v.out]) if v.out else "-"),
        "known=" + ("/".join([card_list_text(k) for k in known]) if any(known) else _NO_KNOWN[len(known)]),
        "actions=" + _n(v.phase2_actions),
        "maxactions=" + _n(v.max_phase2_actions),
        # Last, though it belongs with the phase-1 fields: bots that read fields by position
        # (against section 2's advice) keep working.
        "round=" + (",".join([_n(s) for s in v.round_seats]) if v.round_seats else "-"),
    ))


# ---- parsing (not on the hot path) ---------------------------------------------------------------

def _int(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 18:
        raise ViewFieldError(f"expected a whole number, got {text!r}")
    return int(text)


def _seat_or_none(text: str) -> int | None:
    return None if text == "-" else _int(text)


def _card(text: str) -> int:
    try:
        return parse_card(text)
    except ParseError as e:
        raise ViewFieldError(str(e)) from None


def _card_list(text: str) -> tuple[int, ...]:
    return () if text == "-" else tuple(_card(p) for p in text.split(","))


def _ints_slash(text: str) -> tuple[int, ...]:
    return tuple(_int(p) for p in text.split("/"))


def _seat_list(text: str) -> tuple[int, ...]:
    return () if text == "-" else tuple(_int(p) for p in text.split(","))


def _seat_items(text: str, item_sep: str, parse_value: Callable[[str], object], expected: str) -> tuple:
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


def _duel(text: str) -> tuple[tuple[int, int], ...]:
    return _seat_items(text, ",", _card, "seat:card")


def _trick(text: str) -> tuple[tuple[int, int, bool], ...]:
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


def _table(text: str) -> tuple[tuple[int, tuple[int, ...]], ...]:
    return _seat_items(text, "/", _card_list, "seat:cards")


def _won(text: str) -> tuple[tuple[int, ...], ...] | None:
    return None if text == "-" else tuple(_card_list(p) for p in text.split("/"))


def _bool01(text: str) -> bool:
    if text not in ("0", "1"):
        raise ViewFieldError(f"expected 0 or 1, got {text!r}")
    return text == "1"


# field name on the wire -> (SeatView attribute, parser)
VIEW_FIELDS: dict[str, tuple[str, Callable[[str], object]]] = {
    "phase": ("phase", _int),
    "seat": ("seat", _int),
    "players": ("num_players", _int),
    "dealer": ("dealer", _int),
    "hand": ("hand", _card_list),
    "hands": ("hand_sizes", _ints_slash),
    "stock": ("stock_size", _int),
    "trumpholder": ("trump_holder", _seat_or_none),
    "trump": ("trump_card", lambda t: None if t == "-" else _card(t)),
    "duel": ("duel", _duel),
    "won": ("won_piles", _won),
    "wonsizes": ("won_sizes", _ints_slash),
    "leader": ("leader", _seat_or_none),
    "opponent": ("opponent", _seat_or_none),
    "trick": ("trick", _trick),
    "drawn": ("drawn", _bool01),
    "table": ("table", _table),
    "tricksize": ("trick_size", _int),
    "discard": ("discard", _card_list),
    "out": ("out", _seat_list),
    "known": ("known", lambda t: tuple(_card_list(p) for p in t.split("/"))),
    "actions": ("phase2_actions", _int),
    "maxactions": ("max_phase2_actions", _int),
    "round": ("round_seats", _seat_list),
}


def parse_view_fields(fields: dict[str, str]) -> SeatView:
    """Build the SeatView of a request from its fields; unknown fields are ignored (section 2).

    ``to_act`` is not sent: a request always goes to the seat to act, so it equals ``seat``.
    """
    values: dict[str, object] = {}
    for key, (attr, parse) in VIEW_FIELDS.items():
        if key not in fields:
            raise ViewFieldError(f"view field {key}= is missing")
        try:
            values[attr] = parse(fields[key])
        except ViewFieldError as e:
            raise ViewFieldError(f"view field {key}={fields[key]}: {e}") from None
    values["to_act"] = values["seat"]
    return SeatView(**values)  # type: ignore[arg-type]
