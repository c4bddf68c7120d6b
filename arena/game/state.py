"""The game object: deal (R5-R7), whose turn, legal moves, applying moves, faults, the end.

A `Game` is mutable, like python-chess's Board: copying a whole state per move
would cost the engine its speed goal. Everything else (rules, moves, views,
outcomes, transcripts) is a frozen value, and the same (rules, seed, dealer,
moves) always gives the same game.
"""

from __future__ import annotations

import random

from arena.game import phase1, phase2
from arena.game.cards import sort_key_for, values_for
from arena.game.errors import IllegalMove
from arena.game.events import Event, EventKind
from arena.game.moves import Move, MoveKind, play
from arena.game.outcome import EndReason, Outcome, rank_remaining
from arena.game.rules import Rules
from arena.game.transcript import Transcript
from arena.game.view import SeatView, build_view


class Game:
    """One game of Skitgubbe. Create with `Game.new`; drive with `legal_moves` and `apply`."""

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

    @classmethod
    def new(cls, rules: Rules, seed: int, dealer: int = 0) -> "Game":
        """Deal a new game. The cards depend on the seed alone (R7); `dealer` fixes the seats."""
        game = cls(rules, seed, dealer)
        deck = list(range(52))
        random.Random(seed).shuffle(deck)  # R7: a uniform permutation from the seeded RNG
        removed = rules.two_player_removed_cards
        game.set_aside, deck = tuple(deck[:removed]), deck[removed:]  # R5: set aside unseen
        n = game.n
        for i in range(3 * n):  # R7: one at a time, clockwise from the dealer's left
            game.hands[(dealer + 1 + i) % n].append(deck[i])
        game.stock = deck[3 * n:][::-1]
        phase1.start(game)
        return game

    # ---- queries -----------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def in_phase1(self) -> bool:
        return self.phase == 1

    def sorted_hand(self, seat: int) -> list[int]:
        """The seat's hand in the stable order: low to high by R2, then suit c < d < h < s."""
        return sorted(self.hands[seat], key=sort_key_for(self.values).__getitem__)

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to act, without duplicates, in the documented order:
        phase 1 `draw, chance` or the hand cards low to high (then `chance` under draw_timing=after);
        phase 2 `pickup` first when legal, then units grouped by suit (c, d, h, s), within a suit
        by low card (R2), then by length."""
        if self.outcome is not None:
            return []
        if self._legal_cache is None:
            self._legal_cache = phase1.legal(self) if self.phase == 1 else phase2.legal(self)
        return self._legal_cache

    def why_illegal(self, move: Move) -> str | None:
        """None if the move is legal now, else the reason with the rule it breaks."""
        if self.outcome is not None:
            return "the game is over (R49)"
        move = self._normalise(move)
        if move in self.legal_moves():
            return None
        return phase1.why_illegal(self, move) if self.phase == 1 else phase2.why_illegal(self, move)

    # ---- changes -----------------------------------------------------------------------------

    def apply(self, move: Move) -> None:
        """Apply a legal move of the player to act; IllegalMove (citing the rule) otherwise."""
        legal = self._legal_cache
        if legal is None:
            legal = self.legal_moves()
        if move not in legal:
            move = self._normalise(move)
            if self.outcome is not None or move not in legal:
                raise IllegalMove(self.why_illegal(move) or "not legal now")
        self._legal_cache = None
        self.moves.append(move)
        if self.phase == 1:
            phase1.apply(self, move)
        else:
            phase2.apply(self, move)

    def _normalise(self, move: Move) -> Move:
        # A run may be written in any order; it is kept low to high, as R33 reads its top card.
        if move.kind is MoveKind.PLAY and len(move.cards) > 1:
            values = self.values
            ordered = tuple(sorted(move.cards, key=lambda c: (values[c], c)))
            if ordered != move.cards:
                return play(*ordered)
        return move

    def fallback_move(self) -> Move:
        """R52: what the referee plays for a faulting player under fault_policy = fallback."""
        return phase1.fallback(self) if self.phase == 1 else phase2.fallback(self)

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

    def start_phase2(self) -> None:
        phase2.start(self)

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


def replay(transcript: Transcript) -> Game:
    """Rebuild a game from its transcript; raises IllegalMove if a move does not fit."""
    game = Game.new(transcript.rules, transcript.seed, transcript.dealer)
    for move in transcript.moves:
        game.apply(move)
    if transcript.forfeited_seat is not None:
        game.forfeit(transcript.forfeited_seat, transcript.forfeit_reason)
    return game
