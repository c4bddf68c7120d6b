"""Transcripts: seed, rules, dealer and every move, in a plain text form that replays exactly.

Text form, one item per line (what the results store keeps):

    skitgubbe-transcript 1
    seed 12345
    dealer 2
    rule ace_high true            (only options that differ from the defaults)
    moves draw Kd chance 4h,5h pickup ...
    forfeit 1 timeout             (only when R53 ended the game)
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.game.errors import ParseError
from arena.game.moves import Move, format_move, parse_move
from arena.game.rules import Rules

HEADER = "skitgubbe-transcript 1"


@dataclass(frozen=True, slots=True)
class Transcript:
    rules: Rules
    seed: int
    dealer: int
    moves: tuple[Move, ...]
    forfeited_seat: int | None = None
    forfeit_reason: str = ""

    def to_text(self) -> str:
        lines = [HEADER, f"seed {self.seed}", f"dealer {self.dealer}"]
        for name, value in sorted(self.rules.changed_options().items()):
            text = str(value).lower() if isinstance(value, bool) else str(value)
            lines.append(f"rule {name} {text}")
        lines.append("moves " + " ".join(format_move(m) for m in self.moves))
        if self.forfeited_seat is not None:
            reason = " ".join(self.forfeit_reason.split()) or "-"
            lines.append(f"forfeit {self.forfeited_seat} {reason}")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> "Transcript":
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines or lines[0].strip() != HEADER:
            raise ParseError(f"not a transcript: the first line must be {HEADER!r}")
        seed = dealer = None
        options: dict[str, str] = {}
        moves: tuple[Move, ...] = ()
        forfeited, reason = None, ""
        for number, line in enumerate(lines[1:], start=2):
            key, _, rest = line.strip().partition(" ")
            try:
                if key == "seed":
                    seed = int(rest)
                elif key == "dealer":
                    dealer = int(rest)
                elif key == "rule":
                    name, _, value = rest.partition(" ")
                    options[name] = value
                elif key == "moves":
                    moves = tuple(parse_move(tok) for tok in rest.split())
                elif key == "forfeit":
                    seat, _, why = rest.partition(" ")
                    forfeited, reason = int(seat), ("" if why == "-" else why)
                else:
                    raise ParseError(f"unknown item {key!r}")
            except (ValueError, ParseError) as exc:
                raise ParseError(f"transcript line {number}: {exc}") from None
        if seed is None or dealer is None:
            raise ParseError("transcript lacks its seed or dealer line")
        return cls(Rules.from_options(options), seed, dealer, moves, forfeited, reason)
