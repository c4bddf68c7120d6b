"""Replays of stored games for `arena replay`: as the referee saw it, or as one seat saw it; and
each public event in words (`describe_event`, which `arena play --show` prints too).

The transcript is replayed move by move with the engine. The referee's view shows
every starting hand, every public event and, for draws, the card drawn. A seat's view
shows only what that seat may know (R8-R10): its own hand whenever it changes (read
from `game.view(seat)`, so the engine's own hiding rules apply) and the public events;
never another seat's hand, never a card another seat drew.
"""

from __future__ import annotations

from typing import Sequence

from arena.game import Event, EventKind, Game, pretty_card
from arena.play.records import FaultKind
from arena.wording import count


def _cards(cards: Sequence[int]) -> str:
    return " ".join(pretty_card(c) for c in cards) if cards else "(none)"


def _label(names: Sequence[str], seat: int) -> str:
    return f"seat {seat} ({names[seat]})"


def replay_lines(row, seat: int | None = None, number: int | None = None) -> list[str]:
    """Text lines of one stored game (`GameRow`); `seat` None for the referee's view; `number`
    the tournament game number, as the bots were told it."""
    names = list(row.bots)
    if seat is not None and not 0 <= seat < len(names):
        raise ValueError(f"seat must be 0 to {len(names) - 1}, not {seat}")
    replay = _Replay(row, names, seat)
    replay.header(number)
    replay.moves()
    replay.ending()
    return replay.lines


class _Replay:
    """One stored game replayed with the engine, its lines written as it goes: every hand and
    drawn card for the referee's view (`seat` None), a seat's own hand for that seat's."""

    def __init__(self, row, names: list[str], seat: int | None) -> None:
        self.row, self.names, self.seat = row, names, seat
        transcript = row.transcript
        self.game = Game.new(transcript.rules, transcript.seed, transcript.dealer)
        self.lines: list[str] = []
        self.shown = 0  # events already written
        self.hand: tuple[int, ...] | list[int] = () if seat is None else self.game.view(seat).hand
        self.hands = [set(h) for h in self.game.hands] if seat is None else []

    def header(self, number: int | None) -> None:
        names, game, transcript, lines = self.names, self.game, self.row.transcript, self.lines
        view_name = "referee's view" if self.seat is None else f"as seen by {_label(names, self.seat)}"
        lines += [
            (f"game {number} ({self.row.key})" if number is not None else f"game {self.row.key}") + f", {view_name}",
            "seats: " + ", ".join(f"{s} {name}" for s, name in enumerate(names)),
            f"seed {transcript.seed}, dealer seat {transcript.dealer} ({names[transcript.dealer]})",
        ]
        options = transcript.rules.changed_options()
        if options:
            lines.append("rules: " + ", ".join(f"{k}={v}" for k, v in sorted(options.items())))
        if self.seat is not None:
            lines.append(f"your hand: {_cards(self.hand)}")
            return
        lines.append("starting hands:")
        lines.extend(f"  {_label(names, s)}: {_cards(game.sorted_hand(s))}" for s in range(len(names)))
        if game.stock:
            lines.append(f"  stock ({len(game.stock)} cards), top first: {_cards(game.stock[::-1])}")
        if game.set_aside:
            lines.append(f"  set aside: {_cards(game.set_aside)}")

    def emit(self, number: str = "") -> None:
        """The events since the last call; the first carries `number` (the move's), the rest line up."""
        game, seat = self.game, self.seat
        new = game.events[self.shown:]
        self.shown = len(game.events)
        for event in new:
            self.lines.append(f"{number:>{_NUMBER_WIDTH}}" + describe_event(event, self.names))
            number = ""
            if seat is None and event.kind in (EventKind.DRAW, EventKind.TRUMP) and event.seat is not None:
                gained = set(game.hands[event.seat]) - self.hands[event.seat]
                if event.kind is EventKind.TRUMP and game.trump_card is not None:
                    self.lines.append(f"    (the trump card is {pretty_card(game.trump_card)})")
                elif gained:
                    self.lines.append(f"    (drew {_cards(sorted(gained))})")
        if seat is None:
            self.hands = [set(h) for h in game.hands]
        elif game.view(seat).hand != self.hand:
            self.hand = game.view(seat).hand
            self.lines.append(f"  your hand: {_cards(self.hand)}")

    def moves(self) -> None:
        """Every move, each fault where the arena moved for the bot, and a forfeit at the end."""
        transcript, names = self.row.transcript, self.names
        # A fault's `move` is the index of the move the arena made in the bot's place: shown there,
        # numbered as the moves are (from 1), so that "fault ... at move 117" can be found.
        faults_at: dict[int, list[dict]] = {}
        for fault in self.row.faults:
            faults_at.setdefault(fault["move"], []).append(fault)
        self.emit()
        for index, move in enumerate(transcript.moves):
            for fault in faults_at.pop(index, ()):
                self.lines.append(_fault_note(fault, names, moved_for=True))
            self.game.apply(move)
            self.emit(f"{index + 1}. ")
        for index in sorted(faults_at):  # the last fault of a forfeited game, past the last move
            self.lines.extend(_fault_note(fault, names, moved_for=False) for fault in faults_at[index])
        if transcript.forfeited_seat is not None:
            self.lines.append(f"{_label(names, transcript.forfeited_seat)} forfeits: "
                              f"{transcript.forfeit_reason or 'fault'}")
            self.game.forfeit(transcript.forfeited_seat, transcript.forfeit_reason)
            self.emit()

    def ending(self) -> None:
        """The result, the points, and the faults of the game."""
        names, lines, outcome = self.names, self.lines, self.game.outcome
        if outcome is None:
            lines.append("the transcript ends before the game does")
            return
        lines.append("result: " + " > ".join(names[s] for s in outcome.finishing_order)
                     + f" ({outcome.reason.value}); skitgubbe: {names[outcome.skitgubbe]}")
        if self.row.points:
            lines.append("points: " + ", ".join(f"{names[s]} {p}" for s, p in enumerate(self.row.points)))
        made_for: dict[int, list[int]] = {}  # seat -> the moves the arena made for it once it was gone
        for fault in self.row.faults:
            if fault["kind"] == DEAD:
                made_for.setdefault(fault["seat"], []).append(fault["move"] + 1)
            else:
                lines.append(f"fault: {_label(names, fault['seat'])} {fault['kind']} at move {fault['move'] + 1}: "
                             f"{fault['detail']}")
        for gone, numbers in sorted(made_for.items()):
            lines.append(f"the arena made {count(len(numbers), 'move')} for {_label(names, gone)} after it was gone "
                         f"(moves {numbers[0]} to {numbers[-1]}; not counted as faults)")


_NUMBER_WIDTH = 5  # "117. "
DEAD = FaultKind.DEAD.value  # a move the arena made for a bot already gone


def _fault_note(fault: dict, names: Sequence[str], moved_for: bool) -> str:
    """A fault where it happened. `moved_for`: the arena's move in its place comes next (the
    fallback policy); under forfeit none does."""
    who = _label(names, fault["seat"])
    if fault["kind"] == DEAD:
        return f"{'':>{_NUMBER_WIDTH}}(the arena moves for {who}, gone)"
    then = " (the arena moves for it)" if moved_for else ""
    return f"{'':>{_NUMBER_WIDTH}}! fault: {who} {fault['kind']}: {fault['detail']}{then}"


def _card_words(cards: Sequence[int]) -> str:
    return " ".join(pretty_card(c) for c in cards)


def describe_event(event: Event, names: Sequence[str] | None = None) -> str:
    """A readable sentence for one public event (for --show and replays)."""
    who = "" if event.seat is None else (names[event.seat] if names else f"seat {event.seat}")
    kind = event.kind
    text = {
        EventKind.DUEL: f"{who} shows {_card_words(event.cards)} in the duel",
        EventKind.DRAW: f"{who} draws",
        EventKind.TRUMP: f"{who} takes the last stock card (the trump card, face down)",
        EventKind.PLAY: f"{who} plays {_card_words(event.cards)}",
        EventKind.CHANCE: f"{who} turns up {_card_words(event.cards)} from the stock",
        EventKind.STUNSA: "stunsa! the players tied for the top card play another round",
        EventKind.TAKE: f"{who} takes {_card_words(event.cards)}",
        EventKind.VOID: f"void trick: cards go back to who played them ({_card_words(event.cards)})",
        EventKind.PHASE2: f"phase 2: trump card {_card_words(event.cards)} joins {who}'s hand",
        EventKind.OUT: f"{who} is out",
        EventKind.UNIT: f"{who} plays {_card_words(event.cards)}",
        EventKind.PICKUP: f"{who} picks up {_card_words(event.cards)}",
        EventKind.DISCARD: f"trick complete, discarded: {_card_words(event.cards)}",
        EventKind.LEAD: f"{who} leads (trick of {event.count})",
        EventKind.END: f"game over: {who} is the skitgubbe",
    }
    return text[kind]
