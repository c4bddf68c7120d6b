"""The `Game`: the engine's verbs (deal, legal moves, apply, fallback) over a `GameState`.

Each verb hands the move to the rules of the phase in play (arena/game/phase1.py, phase2.py),
which are functions over the state; this module is the only one that knows both phases.
"""

from __future__ import annotations

from arena.game import phase1, phase2
from arena.game.errors import IllegalMove
from arena.game.moves import Move, MoveKind, play
from arena.game.rules import Rules
from arena.game.state import GameState
from arena.game.transcript import Transcript


class Game(GameState):
    """One game of Skitgubbe. Create with `Game.new`; drive with `legal_moves` and `apply`."""

    @classmethod
    def new(cls, rules: Rules, seed: int, dealer: int = 0) -> "Game":
        """Deal a new game. The cards depend on the seed alone (R7); `dealer` fixes the seats."""
        game = cls(rules, seed, dealer)
        game.deal()
        phase1.start(game)
        return game

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
        return phase1.fallback(self) if self.phase == 1 else phase2.fallback(self, self.legal_moves())


def replay(transcript: Transcript) -> Game:
    """Rebuild a game from its transcript; raises IllegalMove if a move does not fit."""
    game = Game.new(transcript.rules, transcript.seed, transcript.dealer)
    for move in transcript.moves:
        game.apply(move)
    if transcript.forfeited_seat is not None:
        game.forfeit(transcript.forfeited_seat, transcript.forfeit_reason)
    return game
