"""The referee's request and event lines of one game, written without redoing work (issue 22).

`RequestWriter` writes exactly the bytes of `format_request(id, game.view(seat), legal)` and of
`format_event` (protocol.md sections 6 and 8), but reads the game's state directly instead of
building a `SeatView` per request, and does not write again what has not changed: the fields
fixed for a game or a phase are written once, and a seat's hand, a seat's known cards, the won
piles and every card list on the table keep their text while they hold. What a seat may see is
still decided by `arena.game.view.build_view` (R8-R10): each field below mirrors its line there,
and tests/protocol/test_request_writer.py holds the two equal, request by request, over random
games under every option that changes the view.

One writer serves one game, whose state it reads and never changes.
"""

from __future__ import annotations

from typing import Sequence

from arena.game.cards import sort_key_for
from arena.game.events import Event, EventKind
from arena.game.moves import Move
from arena.game.state import GameState
from arena.protocol.text import CARD_TEXT
from arena.protocol.view import NUMBER_TEXT, card_list_text, seat_text

_SEAT_CARD: tuple[tuple[str, ...], ...] = tuple(tuple(f"{s}:{CARD_TEXT[c]}" for c in range(52)) for s in range(16))
_EVENT_WORD = {kind: kind.value for kind in EventKind}  # an enum's .value is a slow lookup
# view.py's number texts as dicts, whose bound lookups are plain C calls for map(): a game has
# 2 to 5 seats (Rules) and a hand or pile 0 to 52 cards.
_SEAT_TEXT: dict[int | None, str] = {None: "-"} | dict(enumerate(NUMBER_TEXT))
_NUMBER_TEXT = dict(enumerate(NUMBER_TEXT)).__getitem__


class _MoveTexts(dict):
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
        dealer = game.dealer
        # The fields of section 6 in their order, as one template per phase; what cannot change
        # in the phase (the game's seats and options, the other phase's blanked fields) is
        # written into the template once.
        self._phase1 = [
            f"phase=1 seat={s} players={n} dealer={dealer} hand=%s hands=%s stock=%d trumpholder=%s trump=- "
            f"duel=%s %s leader=%s opponent=%s trick=%s drawn=%d table=%s tricksize=0 discard=%s out=%s "
            f"known=%s actions=%d maxactions={game.rules.max_phase2_actions} round=%s"
            for s in range(n)]
        self._phase2 = [
            f"phase=2 seat={s} players={n} dealer={dealer} hand=%s hands=%s stock=%d trumpholder=%s trump=%s "
            f"duel=%s won=- wonsizes={'/'.join(['0'] * n)} leader=- opponent=- trick=- drawn=0 table=%s "
            f"tricksize=%d discard=%s out=%s known=%s actions=%d maxactions={game.rules.max_phase2_actions} round=-"
            for s in range(n)]
        self._lists: dict[tuple[int, ...], str] = {}  # a card list in its own order -> its text
        self._seat_lists: dict[tuple, str] = {}  # (separator, *seats or sizes) -> "1,2" / "3/3/3"
        self._discard_cards: list[int] = []
        self._discard_text = "-"
        # The text each costly field was last written with, and the value it was written from.
        self._hands: list[tuple[list[int], str]] = [([-1], "")] * n
        self._known_sets: list[set[int]] = [set() for _ in range(n)]
        self._known_texts = ["-"] * n
        self._known_text = "/".join(["-"] * n)
        self._won: list[list[int]] = []
        self._won_text = ""
        self._duel: list = [None]
        self._duel_text = ""

    def request(self, request_id: int | str, legal: Sequence[Move]) -> str:
        """The `request` line for the seat to act (section 6), byte for byte `format_request`'s."""
        texts = " ".join(map(_MOVE_TEXT.__getitem__, legal))
        return f"request {request_id} {len(legal)} {texts} {self._view_fields()}"

    def _view_fields(self) -> str:
        g = self._game
        seat = g.to_act
        if g.duel != self._duel:
            self._duel = list(g.duel)
            self._duel_text = ",".join([_SEAT_CARD[s][c] for s, c in g.duel]) or "-"
        seats = _SEAT_TEXT
        known = self._known()  # first: a hand is often exactly its known cards, written there
        if g.phase == 1:
            trick = g.trick
            return self._phase1[seat] % (
                self._hand(seat),
                "/".join(map(_NUMBER_TEXT, map(len, g.hands))),
                len(g.stock),
                seats[g.trump_holder],  # R9: who holds the trump card is public, the card is not
                self._duel_text,
                self._won_fields(),
                seats[g.leader],
                seats[g.opponent],
                ",".join([_SEAT_CARD[s][c] + ":c" if blind else _SEAT_CARD[s][c] for s, c, blind in trick])
                if trick else "-",
                g.drawn,
                self._table() if g.table else "-",
                self._discard(),
                self._sizes(g.out_order, ",") if g.out_order else "-",
                known,
                g.phase2_actions,
                self._sizes(g.round_seats, ",") if g.round_seats else "-",
            )
        return self._phase2[seat] % (
            self._hand(seat),
            "/".join(map(_NUMBER_TEXT, map(len, g.hands))),
            len(g.stock),
            seats[g.trump_holder],
            "-" if g.trump_card is None else CARD_TEXT[g.trump_card],
            self._duel_text,
            self._table() if g.table else "-",
            g.trick_size,
            self._discard(),
            self._sizes(g.out_order, ",") if g.out_order else "-",
            known,
            g.phase2_actions,
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

    def _sorted_cards(self, cards) -> str:
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

    def _won_fields(self) -> str:
        """`won=` and `wonsizes=`, in phase 1 (build_view blanks them in phase 2)."""
        won = self._game.won
        if won != self._won:
            self._won = [pile.copy() for pile in won]
            piles = "/".join([self._cards(p) for p in won]) if self._public_won else "-"
            self._won_text = f"won={piles} wonsizes={self._sizes(map(len, won), '/')}"
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

    def _sizes(self, numbers, sep: str) -> str:
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


class _EventLines(dict):
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
