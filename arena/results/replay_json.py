"""A stored game as one JSON object (`arena replay --format json`, and the data of its replay page):
the options, the seed, the deal, the engine and protocol versions, the bots and their versions,
and every move as the protocol writes it, with its player, its think time, how many legal moves
the player had and, for the referee's fallback moves, `"by_referee": true`; the faults with their
kind, text and, where the run kept it, the tail of the bot's stderr; and how the game ended.

The deal is the one the seed gives (R7), written out card by card: a reader (the page's own
JavaScript) replays the moves from it without the arena's shuffle. The counts of legal moves come
from replaying the game with the rules package here, so games stored before think times were kept
(schema version 3) have them too; their think times are null.
"""

from __future__ import annotations

from typing import Any

from arena import __version__
from arena.game import Game, Move, format_card, format_move
from arena.game.moves import MoveKind
from arena.results.rows import GameRow

FORMAT = "skitgubbe-replay"
FORMAT_VERSION = 1
_DRAW_STEPS = (MoveKind.DRAW, MoveKind.CHANCE)  # a fallback turn's first step (referee.DRAW_STEPS)


def _cards(cards) -> list[str]:
    return [format_card(c) for c in cards]


def game_replay(row: GameRow, number: int | None = None, *, tournament: str = "", superseded: str = "",
                table_choice: dict[str, Any] | None = None) -> dict[str, Any]:
    """The game of `row` (with its transcript) as a JSON-ready dict. `number`: its tournament game
    number; `superseded`: why it is out of the standings, if it is; `table_choice`: a league's game,
    why its table was chosen (results/league_view.py's `choice_dict`), else null."""
    transcript = row.transcript
    rules = transcript.rules
    dealt = Game(rules, transcript.seed, transcript.dealer)
    dealt.deal()  # the cards as dealt, before the first trick's duel or a draw made for its leader (R13, R16)
    extra = row.extra or {}
    versions = extra.get("versions") or {}
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": {"number": number, "key": row.key, "tournament": tournament, "table": row.table, "deal": row.deal,
                 "seating": row.seating, "finished_at": row.finished_at, "superseded": superseded or None,
                 "table_choice": table_choice},
        "engine": {"arena": extra.get("arena"), "protocol": extra.get("protocol"), "written_by": __version__},
        "time_limits": extra.get("time_limits"),
        "rules": rules.to_options(),
        "changed_rules": rules.changed_options(),
        "seed": transcript.seed,
        "dealer": transcript.dealer,
        "bots": [{"seat": seat, "name": name, "version": str(versions.get(name, "")) or None}
                 for seat, name in enumerate(row.bots)],
        "deal": {"hands": [_cards(hand) for hand in dealt.hands], "stock": _cards(dealt.stock[::-1]),
                 "set_aside": _cards(dealt.set_aside)},
        "moves": _moves(row),
        "faults": [_fault(fault) for fault in row.faults],
        "outcome": _outcome(row),
    }


_TEXT: dict[Move, str] = {}  # each move's text, written once (a tournament's pages write millions of moves)


def _moves(row: GameRow) -> list[dict[str, Any]]:
    """Each move with its seat, text, think time (ms, null where none was kept or none came) and the
    number of legal moves then; `"by_referee": true` on the moves the referee made for a faulting
    bot (R52), the key left out on the others (the most), which keeps a long game's page small."""
    transcript = row.transcript
    moves = transcript.moves
    think = row.move_think_s or (None,) * len(moves)
    faulted: set[tuple[int, int]] = {(f["move"], f["seat"]) for f in row.faults}
    game = Game.new(transcript.rules, transcript.seed, transcript.dealer)
    legal_moves, apply, texts = game.legal_moves, game.apply, _TEXT
    out = []
    second_step = False  # the card of a fallback turn whose first step was a draw
    for index, move in enumerate(moves):
        seat = game.to_act
        by_referee = second_step or (index, seat) in faulted
        taken = think[index]
        text = texts.get(move)
        if text is None:
            text = texts[move] = format_move(move)
        entry = {"seat": seat, "move": text, "legal": len(legal_moves()),
                 "think_ms": None if taken is None else round(taken * 1000, 2)}
        out.append(entry)
        apply(move)
        if by_referee:
            entry["by_referee"] = True
            second_step = (not second_step and move.kind in _DRAW_STEPS and game.to_act == seat and game.outcome is None)
    return out


def _fault(fault: dict) -> dict[str, Any]:
    return {"seat": fault["seat"], "kind": fault["kind"], "detail": fault["detail"], "move": fault["move"],
            "stderr": fault.get("stderr")}


def _outcome(row: GameRow) -> dict[str, Any]:
    transcript = row.transcript
    return {"order": list(row.finishing_order), "skitgubbe": row.skitgubbe, "reason": row.reason,
            "points": list(row.points), "forfeited_seat": transcript.forfeited_seat,
            "forfeit_reason": transcript.forfeit_reason or None}
