"""The protocol's constants and its messages as typed values (protocol.md sections 2-10): what
`parse_message` returns for each line the arena sends, and what a bot's lines parse to."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from arena.game.events import Event
from arena.game.moves import Move
from arena.game.outcome import Outcome
from arena.game.rules import Rules
from arena.game.view import SeatView

PROTOCOL_VERSION = 1
# §2: the longest line a bot may send (no newline), given to its transport as the limit; the
# transport's own MAX_BUFFERED_LINE_BYTES, higher, only bounds the arena's memory.
MAX_BOT_LINE_BYTES = 8192
NAME_MAX = 32
# §3 and appendix B: a bot's name, in its hello and its manifest alike. A name is a folder's name too
# (`bot add` writes bots/NAME): never ".", "..", or hidden, so never first a dot.
# \Z, not $: `$` also matches before a final newline, so "x\n" passed every `.match` of a name.
NAME_RE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,%d}\Z" % (NAME_MAX - 1))
NAME_RULE = f"1 to {NAME_MAX} of the characters A-Z a-z 0-9 _ . -, not first a dot"
VALUE_MAX = 64  # §3: version= and author= values
FAULT_KINDS = ("timeout", "illegal", "malformed", "overlong", "stale", "exited")  # §9


@dataclass(frozen=True, slots=True)
class BotHello:  # §3
    name: str
    version: str = ""
    author: str = ""


@dataclass(frozen=True, slots=True)
class MoveReply:  # §7
    request_id: int
    move: Move


# ---- typed arena -> bot messages (what parse_message returns) -----------------------------------

@dataclass(frozen=True, slots=True)
class ArenaHello:  # §3
    protocol: int
    arena: str


@dataclass(frozen=True, slots=True)
class MatchStart:  # §4; rules.games is the match's game count, or the default when games is None
    players: int
    games: int | None
    rules: Rules


@dataclass(frozen=True, slots=True)
class GameStart:  # §4
    number: int
    seat: int
    dealer: int
    rules: Rules


@dataclass(frozen=True, slots=True)
class Request:  # §6
    request_id: int
    legal: tuple[Move, ...]
    view: SeatView


@dataclass(frozen=True, slots=True)
class Fault:  # §9
    request_id: int
    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class GameOver:  # §10
    number: int
    outcome: Outcome
    points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchOver:  # §10
    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Quit:  # §10
    pass


Message = Union[ArenaHello, MatchStart, GameStart, Request, Event, Fault, GameOver, MatchOver, Quit]
