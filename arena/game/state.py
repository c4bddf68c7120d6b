"""A game's data: the deal (R5-R7), hands, piles, the trick or table, whose turn, and its end.

`GameState` holds everything a game in progress is, what can be read off it (a seat's view,
the transcript) and how it ends (R49, R51, R53). It knows nothing of the phases: their rules
are functions over it (arena/game/phase1.py, phase2.py), and `Game` (arena/game/engine.py)
picks the phase in play for each move. So the phases import this module, never the other
way round.

The state is mutable, like python-chess's Board: copying a whole state per move would cost
the engine its speed goal. Everything else (rules, moves, views, outcomes, transcripts) is a
frozen value, and the same (rules, seed, dealer, moves) always gives the same game.
"""

from __future__ import annotations

import random
from typing import Iterable

from arena.game.cards import Card, sort_key_for, values_for
from arena.game.errors import GameOver
from arena.game.events import Event, EventKind
from arena.game.moves import Move
from arena.game.outcome import EndReason, Outcome, rank_remaining
from arena.game.rules import Rules
from arena.game.transcript import Transcript
from arena.game.view import SeatView


class GameState:
    """The data of one game of Skitgubbe; `deal` fills in the cards."""

    def __init__(self, rules: Rules, seed: int, dealer: int) -> None:
        n = rules.num_players
        if not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat from 0 to {n - 1}, not {dealer}")
        self.rules, self.seed, self.dealer, self.n = rules, seed, dealer, n
        self.values = values_for(rules.ace_high)
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.won: list[list[int]] = [[] for _ in range(n)]
        self.known: list[set[int]] = [set() for _ in range(n)]  # publicly known cards in each hand
        self.stock: list[int] = []  # the top card is the last element
        self.set_aside: tuple[int, ...] = ()
        self.trump_card: int | None = None
        self.trump_holder: int | None = None
        self.trump_suit: int | None = None
        self.phase = 1
        self.to_act: int | None = None
        self.events: list[Event] = []
        self.moves: list[Move] = []
        self.outcome: Outcome | None = None
        # phase 1
        self.leader = 0
        self.opponent: int | None = 0  # None under phase1_mode = all
        self.trick: list[tuple[int, int, bool]] = []  # (seat, card, blind) for every round of the trick
        self.round_seats: list[int] = []  # who plays the current round, in order (R15, R21)
        self.round: list[int] = []  # the cards played in it so far, in the same order
        self.drawn = False
        self.duel: list[tuple[int, int]] = []
        self.last_trick_winner: int | None = None
        # phase 2
        self.table: list[tuple[int, ...]] = []  # units, oldest first, each low to high
        self.table_owners: list[int] = []
        self.trick_size = 0
        self.discard: list[int] = []
        self.out = [False] * n
        self.pending = [False] * n  # zero_card_start = must_pick_up: in, but must pick up first
        self.out_order: list[int] = []
        self.in_count = n
        self.phase2_actions = 0
        self._legal_cache: list[Move] | None = None

    def deal(self) -> None:
        """Deal the cards: they depend on the seed alone (R7); the dealer fixes the seats."""
        deck = list(range(52))
        random.Random(self.seed).shuffle(deck)  # R7: a uniform permutation from the seeded RNG
        removed = self.rules.two_player_removed_cards
        self.set_aside, deck = tuple(deck[:removed]), deck[removed:]  # R5: set aside unseen
        n, dealer = self.n, self.dealer
        for i in range(3 * n):  # R7: one at a time, clockwise from the dealer's left
            self.hands[(dealer + 1 + i) % n].append(deck[i])
        self.stock = deck[3 * n:][::-1]

    # ---- queries -----------------------------------------------------------------------------

    @property
    def acting(self) -> int:
        """The seat to act now; GameOver when no seat is (the game is over)."""
        seat = self.to_act
        if seat is None:
            raise GameOver("no seat is to act: the game is over")
        return seat

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def in_phase1(self) -> bool:
        return self.phase == 1

    def sorted_hand(self, seat: int) -> list[int]:
        """The seat's hand in the stable order: low to high by R2, then suit c < d < h < s."""
        return sorted(self.hands[seat], key=sort_key_for(self.values).__getitem__)

    # ---- the end -----------------------------------------------------------------------------

    def forfeit(self, seat: int, reason: str = "") -> None:
        """R53: make `seat` the skitgubbe now; the others are placed by cards held (R51 tie-break)."""
        if self.outcome is not None:
            return
        counts = [len(self.hands[s]) + len(self.won[s]) * (self.phase == 1) for s in range(self.n)]
        if self.phase == 1 and self.trump_holder is not None:
            counts[self.trump_holder] += 1
        remaining = [s for s in range(self.n) if not self.out[s] and s != seat]
        # Ties go clockwise from the player due to act (R51), who is the offender for a fault in
        # play but not for a bot missing from the game's start (forfeited before the first move).
        due = self.to_act if self.to_act is not None else seat
        order = rank_remaining(self.out_order, remaining, counts, due, self.n) + (seat,)
        self._end(Outcome(order, EndReason.FORFEIT, seat, reason, len(self.out_order)))

    def finish(self, reason: EndReason) -> None:
        """End by R49 (one player left) or R51 (the cap)."""
        remaining = [s for s in range(self.n) if not self.out[s]]
        if reason is EndReason.NORMAL:
            order = tuple(self.out_order) + tuple(remaining)
        else:
            due = self.to_act if self.to_act is not None else remaining[0]
            counts = [len(h) for h in self.hands]
            order = rank_remaining(self.out_order, remaining, counts, due, self.n)
        self._end(Outcome(order, reason, went_out=len(self.out_order)))

    def _end(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self.to_act = None
        self._legal_cache = None
        self.events.append(Event(EventKind.END, outcome.skitgubbe, ()))

    @property
    def transcript(self) -> Transcript:
        """Seed, rules, dealer and every move: enough to replay this game exactly."""
        forfeit = self.outcome.forfeited_seat if self.outcome else None
        reason = self.outcome.forfeit_reason if self.outcome else ""
        return Transcript(self.rules, self.seed, self.dealer, tuple(self.moves), forfeit, reason)

    def view(self, seat: int) -> SeatView:
        """What `seat` may know under R8-R10, and nothing more."""
        return build_view(self, seat)


def build_view(g: GameState, seat: int) -> SeatView:
    """What `seat` may know now (R8-R10); its fields are view.py's SeatView."""
    n = g.n
    key = sort_key_for(g.values).__getitem__

    def ordered(cards: Iterable[Card]) -> tuple[Card, ...]:
        return tuple(sorted(cards, key=key)) if cards else ()

    phase = 3 if g.outcome is not None else g.phase
    in_phase1 = g.phase == 1
    public_won = g.rules.public_won_piles
    # map/tuple run in C: this is built once per decision request, so it is on the hot path.
    return SeatView(
        seat,
        n,
        g.dealer,
        phase,
        g.to_act,
        ordered(g.hands[seat]),
        tuple(map(len, g.hands)),
        len(g.stock),
        g.trump_holder,
        None if in_phase1 else g.trump_card,
        tuple(g.duel),
        tuple(map(tuple, g.won)) if (public_won and in_phase1) else None,
        tuple(map(len, g.won)) if in_phase1 else (0,) * n,
        g.leader if in_phase1 else None,
        g.opponent if in_phase1 else None,
        tuple(g.trick) if in_phase1 else (),
        g.drawn if in_phase1 else False,
        tuple(g.round_seats) if in_phase1 else (),
        tuple(zip(g.table_owners, g.table)),
        0 if in_phase1 else g.trick_size,
        tuple(g.discard),
        tuple(g.out_order),
        tuple(map(ordered, g.known)),
        g.phase2_actions,
        g.rules.max_phase2_actions,
    )
