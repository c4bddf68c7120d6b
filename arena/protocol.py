"""The bot protocol v1: format and parse every line (the contract is protocol.md; "§n" cites its sections).

Arena -> bot: `format_*` builds one line (without the newline); `parse_message` reads any of
them back into a typed value, so every message round-trips. Bot -> arena: `parse_bot_hello`
and `parse_move_reply` accept exactly the grammar of §3 and §7 and raise `ProtocolError`,
naming the offending token, for anything else. No other exception escapes a parser.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union
from urllib.parse import unquote

from arena.game.errors import GameError, ParseError
from arena.game.events import Event, EventKind
from arena.game.moves import CHANCE, DRAW, PICKUP, Move, MoveKind, parse_move, play
from arena.game.outcome import EndReason, Outcome
from arena.game.rules import Rules
from arena.game.view import SeatView
from arena.protocol_view import (  # noqa: F401  (ProtocolError is part of this module's API)
    CARD_TEXT,
    ProtocolError,
    escape,
    format_view_fields,
    need_field,
    one_line,
    parse_card_list,
    parse_fields,
    parse_int,
    parse_seats,
    parse_signed,
    parse_view_fields,
)

PROTOCOL_VERSION = 1
MAX_BOT_LINE_BYTES = 8192  # §2: the longest line a bot may send, without the newline
NAME_MAX = 32
VALUE_MAX = 64  # §3: version= and author= values
FAULT_KINDS = ("timeout", "illegal", "malformed", "overlong", "stale", "exited")  # §9
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


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

# ---- helpers ------------------------------------------------------------------------------------


def _opt_text(value: object) -> str:  # §4: rule option values
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def _options(rules: Rules, skip: tuple[str, ...]) -> str:
    opts = rules.to_options()
    if rules.target_points is None:
        opts["target_points"] = "-"  # §4: "-" = the default 5 * (players - 1)
    return " ".join(f"{k}={_opt_text(v)}" for k, v in opts.items() if k not in skip)


def _rules(fields: dict[str, str], extra: dict[str, object], where: str) -> Rules:
    known = Rules.__dataclass_fields__
    opts: dict[str, object] = {k: v for k, v in fields.items() if k in known and v != "-"}
    opts.update(extra)
    try:
        return Rules.from_options(opts)
    except GameError as e:
        raise ProtocolError(f"{where}: {e}") from None


def _split_bot_line(line: str, kind: str) -> list[str]:
    """§2: strip the line end; reject overlong, empty, or control characters; split on blanks."""
    if not isinstance(line, str):
        raise ProtocolError(f"{kind}: expected text, got {type(line).__name__}")
    if len(line) > MAX_BOT_LINE_BYTES // 4 and len(line.encode("utf-8", "surrogatepass")) > MAX_BOT_LINE_BYTES:
        raise ProtocolError(f"{kind}: line longer than {MAX_BOT_LINE_BYTES} bytes")
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    for ch in line:
        if ch < " " and ch != "\t" or ch == "\x7f":
            raise ProtocolError(f"{kind}: control character {ch!r} in the line")
    tokens = line.replace("\t", " ").split(" ")
    tokens = [t for t in tokens if t]
    if not tokens:
        raise ProtocolError(f"{kind}: empty line (expected '{kind} ...')")
    return tokens


# ---- arena -> bot: formatting --------------------------------------------------------------------


def format_hello(arena_version: str) -> str:  # §3
    return f"hello protocol={PROTOCOL_VERSION} arena={escape(arena_version) or '-'}"


def format_match_start(rules: Rules, games: int | None) -> str:  # §4
    count = "-" if games is None else str(games)
    return f"match players={rules.num_players} games={count} {_options(rules, ('num_players', 'games'))}"


def format_game_start(number: int, seat: int, dealer: int, rules: Rules) -> str:  # §4
    # Not `games`: the match line gives the match's length, which a tournament or `--games` sets.
    return (f"game {number} seat={seat} players={rules.num_players} dealer={dealer} "
            f"{_options(rules, ('num_players', 'games'))}")


_KIND_TEXT = {MoveKind.DRAW: "draw", MoveKind.CHANCE: "chance", MoveKind.PICKUP: "pickup"}
# Every one-card move and every word move, by its token (runs take the general parser).
_MOVE_TOKENS = {CARD_TEXT[c]: play(c) for c in range(52)} | {"draw": DRAW, "chance": CHANCE, "pickup": PICKUP}


def format_request(request_id: int, view: SeatView, legal: Sequence[Move]) -> str:  # §6 (hot path)
    card = CARD_TEXT
    words = _KIND_TEXT
    moves = []
    for m in legal:
        cs = m.cards
        if not cs:
            moves.append(words[m.kind])
        elif len(cs) == 1:
            moves.append(card[cs[0]])
        else:
            moves.append(",".join([card[c] for c in cs]))
    return " ".join(("request", str(request_id), str(len(moves)), *moves, format_view_fields(view)))


def format_event(event: Event) -> str:  # §8
    return "event " + event.text()


def format_fault(request_id: int, kind: str, text: str) -> str:  # §9
    return f"fault {request_id} {kind} {one_line(text)}" if text else f"fault {request_id} {kind}"


def format_game_over(number: int, outcome: Outcome, points: Sequence[int]) -> str:  # §10
    parts = [
        f"gameover {number} reason={outcome.reason.value}",
        "order=" + ",".join(map(str, outcome.finishing_order)),
        f"skitgubbe={outcome.skitgubbe}",
        "points=" + "/".join(map(str, points)),
        f"wentout={outcome.went_out}",
    ]
    if outcome.forfeited_seat is not None:
        parts.append(f"forfeit={outcome.forfeited_seat}")
    if outcome.forfeit_reason:
        parts.append("why=" + escape(outcome.forfeit_reason))
    return " ".join(parts)


def format_match_over(totals: Sequence[int], winners: Sequence[int]) -> str:  # §10
    return f"matchover totals={'/'.join(map(str, totals))} winners={','.join(map(str, winners)) or '-'}"


def format_quit() -> str:  # §10
    return "quit"


# ---- bot -> arena: parsing -----------------------------------------------------------------------


def _check_value(value: str, key: str) -> str:
    if not value or len(value) > VALUE_MAX:
        raise ProtocolError(f"hello: {key}= must be 1 to {VALUE_MAX} characters, got {len(value)}")
    return value


def parse_bot_hello(line: str) -> BotHello:  # §3
    tokens = _split_bot_line(line, "hello")
    if tokens[0] != "hello":
        shown = line.strip()
        shown = shown if len(shown) <= 80 else shown[:80] + "..."
        raise ProtocolError(f"expected the handshake 'hello name=<name> ...', got {shown!r}")
    fields = parse_fields(tokens[1:], "hello")
    if "name" not in fields:
        raise ProtocolError("hello: field name= is missing (e.g. 'hello name=mybot')")
    name = fields["name"]
    if not 1 <= len(name) <= NAME_MAX or not _NAME_CHARS.issuperset(name):
        raise ProtocolError(f"hello: bad name {name[:40]!r}: use 1 to {NAME_MAX} of the characters A-Z a-z 0-9 _ . -")
    if "protocol" in fields and fields["protocol"] != str(PROTOCOL_VERSION):
        raise ProtocolError(f"hello: protocol={fields['protocol'][:40]} is not supported; this arena speaks protocol={PROTOCOL_VERSION}")
    version = _check_value(fields["version"], "version") if "version" in fields else ""
    author = _check_value(fields["author"], "author") if "author" in fields else ""
    return BotHello(name, version, author)


def parse_move_reply(line: str) -> MoveReply:  # §7
    # Fast path for the common well-formed reply (hot: once per move); anything unusual
    # falls through to the careful path below, which names what is wrong.
    if line.isascii() and line.isprintable():
        parts = line.split(" ")
        if len(parts) == 3 and parts[0] == "move":
            rid, token = parts[1], parts[2]
            move = _MOVE_TOKENS.get(token)
            if move is not None and rid.isdigit() and len(rid) <= 18:
                return MoveReply(int(rid), move)
    tokens = _split_bot_line(line, "move")
    if tokens[0] != "move":
        raise ProtocolError(f"expected 'move <id> <move>', got a line starting {tokens[0][:40]!r}")
    if len(tokens) < 3:
        raise ProtocolError("move: expected 'move <id> <move>' (the request id and one move), got "
                            + ("nothing after 'move'" if len(tokens) == 1 else "no move after the id"))
    if len(tokens) > 3:
        raise ProtocolError(f"move: one move token expected after the id, got extra {tokens[3][:40]!r} "
                            "(write a run without spaces: 4h,5h,6h)")
    request_id = parse_int(tokens[1], "move: the request id (second token)")
    try:
        move = parse_move(tokens[2])
    except ParseError as e:
        raise ProtocolError(f"move: third token: {e}") from None
    return MoveReply(request_id, move)


# ---- arena -> bot: parsing (round trips, `arena bot check`) --------------------------------------

_EVENT_KINDS = {k.value: k for k in EventKind}


def parse_message(line: str) -> Message:
    """Any arena -> bot line as a typed value; ProtocolError if it is not one."""
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    tokens = line.split(" ")
    kind = tokens[0]
    try:
        if kind == "request":
            return _parse_request(tokens)
        if kind == "event":
            if len(tokens) < 4 or tokens[1] not in _EVENT_KINDS:
                raise ProtocolError(f"event: expected 'event <kind> <seat|-> <cards|->', got {line[:60]!r}")
            ek = _EVENT_KINDS[tokens[1]]
            seat = None if tokens[2] == "-" else parse_int(tokens[2], "event seat")
            count = parse_int(tokens[4], "event count") if ek is EventKind.LEAD and len(tokens) > 4 else 0
            return Event(ek, seat, parse_card_list(tokens[3], "event cards"), count)
        if kind == "hello":
            f = parse_fields(tokens[1:], "hello")
            return ArenaHello(parse_int(need_field(f, "protocol", "hello"), "hello protocol"), unquote(need_field(f, "arena", "hello")))
        if kind == "match":
            f = parse_fields(tokens[1:], "match")
            players = parse_int(need_field(f, "players", "match"), "match players")
            g = need_field(f, "games", "match")
            games = None if g == "-" else parse_int(g, "match games")
            extra: dict[str, object] = {"num_players": players}
            if games is not None:
                extra["games"] = games
            return MatchStart(players, games, _rules({k: v for k, v in f.items() if k != "games"}, extra, "match"))
        if kind == "game":
            if len(tokens) < 2:
                raise ProtocolError("game: the game number is missing")
            f = parse_fields(tokens[2:], "game")
            players = parse_int(need_field(f, "players", "game"), "game players")
            return GameStart(parse_int(tokens[1], "game number"), parse_int(need_field(f, "seat", "game"), "game seat"),
                             parse_int(need_field(f, "dealer", "game"), "game dealer"),
                             _rules(f, {"num_players": players}, "game"))
        if kind == "fault":
            if len(tokens) < 3:
                raise ProtocolError("fault: expected 'fault <id> <kind> <text>'")
            return Fault(parse_int(tokens[1], "fault id"), tokens[2], unquote(" ".join(tokens[3:])))
        if kind == "gameover":
            return _parse_game_over(tokens)
        if kind == "matchover":
            f = parse_fields(tokens[1:], "matchover")
            totals = tuple(parse_signed(p, "matchover totals") for p in need_field(f, "totals", "matchover").split("/"))
            return MatchOver(totals, parse_seats(need_field(f, "winners", "matchover"), "matchover winners"))
        if kind == "quit":
            return Quit()
    except GameError as e:
        raise ProtocolError(f"{kind}: {e}") from None
    raise ProtocolError(f"unknown message type {kind[:40]!r}")


def _parse_request(tokens: list[str]) -> Request:
    if len(tokens) < 3:
        raise ProtocolError("request: expected 'request <id> <count> <moves...> <fields...>'")
    request_id = parse_int(tokens[1], "request id")
    count = parse_int(tokens[2], "request move count")
    if len(tokens) < 3 + count:
        raise ProtocolError(f"request: announces {count} moves but has only {len(tokens) - 3} tokens after the count")
    try:
        legal = tuple(parse_move(t) for t in tokens[3:3 + count])
    except ParseError as e:
        raise ProtocolError(f"request: {e}") from None
    return Request(request_id, legal, parse_view_fields(parse_fields(tokens[3 + count:], "request")))


def _parse_game_over(tokens: list[str]) -> GameOver:
    if len(tokens) < 2:
        raise ProtocolError("gameover: the game number is missing")
    number = parse_int(tokens[1], "gameover number")
    f = parse_fields(tokens[2:], "gameover")
    try:
        reason = EndReason(need_field(f, "reason", "gameover"))
    except ValueError:
        raise ProtocolError(f"gameover: unknown reason={f['reason'][:40]!r}") from None
    order = parse_seats(need_field(f, "order", "gameover"), "gameover order")
    if not order:
        raise ProtocolError("gameover: order= is empty")
    forfeit = parse_int(f["forfeit"], "gameover forfeit") if "forfeit" in f else None
    outcome = Outcome(order, reason, forfeit, unquote(f.get("why", "")), parse_int(f.get("wentout", "0"), "gameover wentout"))
    points = tuple(parse_signed(p, "gameover points") for p in need_field(f, "points", "gameover").split("/"))
    return GameOver(number, outcome, points)
