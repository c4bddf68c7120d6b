"""The referee's request and event lines of one game, written without redoing work.

`RequestWriter` writes exactly the bytes of `format_request(id, game.view(seat), legal)` and of
`format_event` (protocol.md sections 6 and 8), but reads the game's state directly instead of
building a `SeatView` per request, and does not write again what has not changed: the fields
fixed for a game or a phase are written once, and a seat's hand, a seat's known cards, the won
piles and every card list on the table keep their text while they hold. Its templates are built
from view.py's `VIEW_FIELDS`, the fields' one table; what a seat may see is still decided by
`arena.game.state.build_view` (R8-R10): each value written below mirrors its line there, and
tests/protocol/test_request_writer.py holds the two equal, request by request, over random games
under every option that changes the view.

One writer serves one game, whose state it reads and never changes.
"""

from __future__ import annotations

from typing import Any, Collection, Iterable, Sequence

from arena.game.cards import sort_key_for
from arena.game.events import Event, EventKind
from arena.game.moves import Move
from arena.game.state import GameState
from arena.protocol.text import CARD_TEXT
from arena.protocol.view import NUMBER_TEXT, VIEW_FIELDS, card_list_text, seat_text

_SEAT_CARD: tuple[tuple[str, ...], ...] = tuple(tuple(f"{s}:{CARD_TEXT[c]}" for c in range(52)) for s in range(16))
_EVENT_WORD = {kind: kind.value for kind in EventKind}  # an enum's .value is a slow lookup
# view.py's number texts as dicts, whose bound lookups are plain C calls for map(): a game has
# 2 to 5 seats (Rules) and a hand or pile 0 to 52 cards.
_SEAT_TEXT: dict[int | None, str] = {None: "-"} | dict(enumerate(NUMBER_TEXT))
_NUMBER_TEXT = dict(enumerate(NUMBER_TEXT)).__getitem__


def _view_template(fixed: dict[str, str]) -> str:
    """Section 6's fields in VIEW_FIELDS' order: the `fixed` ones with their text, every other one
    with its `%` placeholder, filled on each request in that order."""
    assert set(fixed) <= {field.name for field in VIEW_FIELDS}, f"not a view field: {sorted(fixed)}"
    return " ".join([f"{field.name}={fixed.get(field.name, field.slot)}" for field in VIEW_FIELDS])


# What cannot change in a phase is written into its template once, at import: the phase, the
# fields build_view blanks in it (R9: no trump card in phase 1; phase 2 blanks phase 1's), and, as
# `{name}` slots that a writer fills when it is made, what is fixed for a game.
_FIXED_FOR_GAME = {name: "{" + name + "}" for name in ("seat", "players", "dealer", "maxactions")}
_PHASE1_TEMPLATE = _view_template({**_FIXED_FOR_GAME, "phase": "1", "trump": "-", "tricksize": "0"})
_PHASE2_TEMPLATE = _view_template({
    **_FIXED_FOR_GAME, "phase": "2", "won": "-", "wonsizes": "{wonsizes}", "leader": "-", "opponent": "-",
    "trick": "-", "drawn": "0", "round": "-"})


class _MoveTexts(dict[Move, str]):
    """Every move written so far, by move (52 cards, a few hundred runs, 3 words); a move not yet
    written is written on its first lookup, so that `map` can look them up without a Python loop."""

    def __missing__(self, move: Move) -> str:
        text = self[move] = card_list_text(move.cards) if move.cards else move.kind.value
        return text


_MOVE_TEXT = _MoveTexts()


def move_text(move: Move) -> str:
    """The one-token text of a move (section 6's move list), kept once written."""
    return _MOVE_TEXT[move]


class RequestWriter:
    """The `request` and `event` lines of one game, each field's text kept while it holds."""

    def __init__(self, game: GameState) -> None:
        self._game = game
        n = game.n
        sort_key = sort_key_for(game.values)
        # Sorting the cards' sort keys and reading each card's text back off its key puts cards
        # low to high by R2, then suit, as build_view's `ordered` does.
        # Bound `dict.__getitem__`s: for `map`, a dict's is a plain C call, a tuple's a slow wrapper.
        self._key_of = dict(enumerate(sort_key)).__getitem__
        self._text_of_key = {sort_key[c]: CARD_TEXT[c] for c in range(52)}.__getitem__
        self._public_won = game.rules.public_won_piles
        # One template per phase and seat, the game's fixed fields written in.
        fixed = {"players": n, "dealer": game.dealer, "maxactions": game.rules.max_phase2_actions,
                 "wonsizes": "/".join(["0"] * n)}
        self._phase1 = [_PHASE1_TEMPLATE.format(seat=s, **fixed) for s in range(n)]
        self._phase2 = [_PHASE2_TEMPLATE.format(seat=s, **fixed) for s in range(n)]
        self._lists: dict[tuple[int, ...], str] = {}  # a card list in its own order -> its text
        self._seat_lists: dict[tuple[Any, ...], str] = {}  # (separator, *seats or sizes) -> "1,2" / "3/3/3"
        self._discard_cards: list[int] = []
        self._discard_text = "-"
        # The text each costly field was last written with, and the value it was written from.
        self._hands: list[tuple[list[int], str]] = [([-1], "")] * n
        self._known_sets: list[set[int]] = [set() for _ in range(n)]
        self._known_texts = ["-"] * n
        self._known_text = "/".join(["-"] * n)
        self._won_piles: list[list[int]] = []
        self._won_text = ""
        self._won_sizes_text = ""
        self._duel: list[Any] = [None]  # never a duel: the first request writes it
        self._duel_text = ""

    def request(self, request_id: int | str, legal: Sequence[Move]) -> str:
        """The `request` line for the seat to act (section 6), byte for byte `format_request`'s."""
        texts = " ".join(map(_MOVE_TEXT.__getitem__, legal))
        return f"request {request_id} {len(legal)} {texts} {self._view_fields()}"

    def _view_fields(self) -> str:
        g = self._game
        seat = g.to_act
        assert seat is not None  # a request goes to the seat to act
        if g.duel != self._duel:
            self._duel = list(g.duel)
            self._duel_text = ",".join([_SEAT_CARD[s][c] for s, c in g.duel]) or "-"
        seats = _SEAT_TEXT
        known = self._known()  # first: a hand is often exactly its known cards, written there
        # The template's placeholders, in VIEW_FIELDS' order (the fields a phase fixes are left out).
        if g.phase == 1:
            trick = g.trick
            return self._phase1[seat] % (
                self._hand(seat),  # hand
                "/".join(map(_NUMBER_TEXT, map(len, g.hands))),  # hands
                len(g.stock),  # stock
                seats[g.trump_holder],  # trumpholder. R9: who holds the trump card is public, the card is not
                self._duel_text,  # duel
                self._won(),  # won
                self._won_sizes_text,  # wonsizes, brought up to date by _won() just before
                seats[g.leader],  # leader
                seats[g.opponent],  # opponent
                ",".join([_SEAT_CARD[s][c] + ":c" if blind else _SEAT_CARD[s][c] for s, c, blind in trick])
                if trick else "-",  # trick
                g.drawn,  # drawn
                self._table() if g.table else "-",  # table
                self._discard(),  # discard
                self._sizes(g.out_order, ",") if g.out_order else "-",  # out
                known,  # known
                g.phase2_actions,  # actions
                self._sizes(g.round_seats, ",") if g.round_seats else "-",  # round
            )
        return self._phase2[seat] % (
            self._hand(seat),  # hand
            "/".join(map(_NUMBER_TEXT, map(len, g.hands))),  # hands
            len(g.stock),  # stock
            seats[g.trump_holder],  # trumpholder
            "-" if g.trump_card is None else CARD_TEXT[g.trump_card],  # trump
            self._duel_text,  # duel
            self._table() if g.table else "-",  # table
            g.trick_size,  # tricksize
            self._discard(),  # discard
            self._sizes(g.out_order, ",") if g.out_order else "-",  # out
            known,  # known
            g.phase2_actions,  # actions
        )

    # ---- the fields that are costly to write, each kept while its value holds ----------------

    def _hand(self, seat: int) -> str:
        """R8: the seat's own hand, low to high. Called after `_known`: in phase 2 most hands are
        known to all, card for card (R44), and then the text is the one written for `known=`."""
        hand = self._game.hands[seat]
        last, text = self._hands[seat]
        if hand != last:
            known = self._game.known[seat]
            if len(known) == len(hand) and known.issuperset(hand):  # the same cards (none repeat)
                text = self._known_texts[seat]
            else:
                text = self._sorted_cards(hand)
            self._hands[seat] = (hand.copy(), text)
        return text

    def _sorted_cards(self, cards: Collection[int]) -> str:
        # map() over C methods keeps the loop out of the interpreter: the hands and the known
        # cards are the two longest lists written on every request.
        if not cards:
            return "-"
        return ",".join(map(self._text_of_key, sorted(map(self._key_of, cards))))

    def _known(self) -> str:
        """R10, R44: the cards publicly known to be in each hand, each seat's low to high."""
        known = self._game.known
        last = self._known_sets
        if known != last:
            texts = self._known_texts
            for s, cards in enumerate(known):
                if cards != last[s]:
                    last[s] = cards.copy()
                    texts[s] = self._sorted_cards(cards)
            self._known_text = "/".join(texts)
        return self._known_text

    def _won(self) -> str:
        """`won=`, in phase 1 (build_view blanks it in phase 2), and `wonsizes=` with it, in
        `_won_sizes_text`: both change only when a trick is won."""
        won = self._game.won
        if won != self._won_piles:
            self._won_piles = [pile.copy() for pile in won]
            self._won_text = "/".join([self._cards(p) for p in won]) if self._public_won else "-"
            self._won_sizes_text = self._sizes(map(len, won), "/")
        return self._won_text

    def _discard(self) -> str:
        """The discard pile (R46: each complete trick, face up to all). It changes only when a
        trick completes and grows to dozens of cards, so it is compared with the last one written
        rather than made a key and hashed on every request."""
        discard = self._game.discard
        if discard != self._discard_cards:
            self._discard_cards = discard.copy()
            self._discard_text = card_list_text(discard) if discard else "-"
        return self._discard_text

    def _table(self) -> str:
        g = self._game
        cards = self._cards
        return "/".join([f"{s}:{cards(unit)}" for s, unit in zip(g.table_owners, g.table)])

    def _cards(self, cards: Sequence[int]) -> str:
        """A card list in its own order (a pile, a unit, the discard), kept for the game."""
        if not cards:
            return "-"
        key = tuple(cards)
        text = self._lists.get(key)
        if text is None:
            text = self._lists[key] = card_list_text(key)
        return text

    def _sizes(self, numbers: Iterable[int], sep: str) -> str:
        """Seats or sizes joined by `sep` ("-" for none), kept for the game: the few sizes and
        seat lists of a game repeat (the hands' sizes, which seldom do, are written each time)."""
        key = (sep, *numbers)
        text = self._seat_lists.get(key)
        if text is None:
            text = self._seat_lists[key] = sep.join(map(str, key[1:])) or "-"
        return text

    # ---- events -----------------------------------------------------------------------------

    def event(self, event: Event) -> str:
        """The `event` line of a public event (section 8), byte for byte `format_event`'s."""
        return _EVENT_LINES[event]

    def events(self, events: Sequence[Event]) -> list[str]:
        """The `event` lines of `events`, in order (one lookup each, no Python loop)."""
        return list(map(_EVENT_LINES.__getitem__, events))


class _EventLines(dict[Event, str]):
    """The lines of events of at most one card, kept once written: draws, plays, leads, a few
    thousand kinds in all, met in every game. An event of more cards (a discarded trick, a
    pickup) is written on each lookup and not kept."""

    def __missing__(self, event: Event) -> str:
        kind, seat, cards, count = event
        line = f"event {_EVENT_WORD[kind]} {seat_text(seat)} {card_list_text(cards)}"
        if kind is EventKind.LEAD:
            line += f" {count}"
        if len(cards) <= 1:
            self[event] = line
        return line


_EVENT_LINES = _EventLines()
