"""The rules of Skitgubbe (rules.md R1-R57): pure, deterministic, no I/O.

Nothing here reads files, clocks, the network or the global random generator;
a deal comes from the seed passed in. Every other layer builds on this package; it
imports nothing else of the project, and only the standard library. Its public
names are gathered here: the engine (`Game`, its state and the two phases), cards,
moves, rules, views, events, outcomes, transcripts and scoring.
"""

from arena.game.cards import (
    Card,
    Suit,
    format_card,
    format_cards,
    parse_card,
    parse_cards,
    pretty_card,
)
from arena.game.errors import GameError, IllegalMove, ParseError, RulesError
from arena.game.events import Event, EventKind
from arena.game.moves import CHANCE, DRAW, PICKUP, Move, MoveKind, format_move, parse_move, play
from arena.game.outcome import EndReason, Outcome
from arena.game.rules import Rules
from arena.game.scoring import MatchScore, game_points
from arena.game.engine import Game, replay
from arena.game.transcript import Transcript
from arena.game.view import SeatView

__all__ = [
    "CHANCE", "DRAW", "PICKUP", "Card", "EndReason", "Event", "EventKind", "Game", "GameError",
    "IllegalMove", "MatchScore", "Move", "MoveKind", "Outcome", "ParseError", "Rules", "RulesError",
    "SeatView", "Suit", "Transcript", "format_card", "format_cards", "format_move", "game_points",
    "parse_card", "parse_cards", "parse_move", "play", "pretty_card", "replay",
]
