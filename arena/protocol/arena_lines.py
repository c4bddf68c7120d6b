"""The lines the arena sends (protocol.md sections 3-10): `format_*` builds each one (without the
newline), and `parse_message` reads any of them back into a typed value, so every message
round-trips (tests, `arena bot check`)."""

from __future__ import annotations

from typing import Sequence
from urllib.parse import unquote

from arena.game.errors import GameError, ParseError
from arena.game.events import Event, EventKind
from arena.game.moves import Move, parse_move
from arena.game.outcome import EndReason, Outcome
from arena.game.rules import Rules
from arena.game.view import SeatView
from arena.protocol.messages import (PROTOCOL_VERSION, ArenaHello, Fault, GameOver, GameStart, MatchOver, MatchStart,
                                     Message, Quit, Request)
from arena.protocol.text import (ProtocolError, escape, need_field, one_line, parse_card_list, parse_fields,
                                 parse_int, parse_seats, parse_signed)
from arena.protocol.request_writer import move_text
from arena.protocol.view import format_view_fields, parse_view_fields


def _opt_text(value: object) -> str:  # §4: rule option values
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


# §4: a line announces only the options in force. `num_players` and `games` have fields of their own.
_OWN_FIELDS = ("num_players", "games")
# The options of a match, not of a game: how the match ends and who deals next. A `game` line never
# has them; a `match` line only where they act (`match_options_in_force`).
MATCH_OPTIONS = ("next_dealer", "max_games", "target_points")


def match_options_in_force(games: int | None, dealers_given: bool) -> tuple[str, ...]:
    """§4: the match options a match runs by. `max_games` and `target_points` end a match of no fixed
    length only; `next_dealer` picks each game's dealer unless a schedule gives them
    (`dealers_given`: a tournament's tables, a duplicate match)."""
    ends = ("max_games", "target_points") if games is None else ()
    return ends if dealers_given else ("next_dealer", *ends)


def _options(rules: Rules, match_options: tuple[str, ...] = ()) -> str:
    opts = rules.to_options()
    if rules.target_points is None:
        opts["target_points"] = "-"  # §4: "-" = the default 5 * (players - 1)
    skip = _OWN_FIELDS + tuple(k for k in MATCH_OPTIONS if k not in match_options)
    return " ".join(f"{k}={_opt_text(v)}" for k, v in opts.items() if k not in skip)


def _rules(fields: dict[str, str], extra: dict[str, object], where: str) -> Rules:
    known = Rules.__dataclass_fields__
    opts: dict[str, object] = {k: v for k, v in fields.items() if k in known and v != "-"}
    opts.update(extra)
    try:
        return Rules.from_options(opts)
    except GameError as e:
        raise ProtocolError(f"{where}: {e}") from None


# ---- arena -> bot: formatting --------------------------------------------------------------------


def format_hello(arena_version: str) -> str:  # §3
    return f"hello protocol={PROTOCOL_VERSION} arena={escape(arena_version) or '-'}"


def format_match_start(rules: Rules, games: int | None, *, dealers_given: bool = False) -> str:  # §4
    """`games`: the match's length if fixed (None: until the scoring ends it); `dealers_given`: each
    game's dealer comes from a schedule, not from `next_dealer`."""
    count = "-" if games is None else str(games)
    in_force = match_options_in_force(games, dealers_given)
    return f"match players={rules.num_players} games={count} {_options(rules, in_force)}"


def format_game_start(number: int, seat: int, dealer: int, rules: Rules) -> str:  # §4
    # The options of the game's play: the match's own (its length, who deals next) are the match line's.
    return f"game {number} seat={seat} players={rules.num_players} dealer={dealer} {_options(rules)}"


def format_request(request_id: int, view: SeatView, legal: Sequence[Move]) -> str:  # §6
    # The referee writes its requests with RequestWriter (request_writer.py), which keeps texts
    # across a game; this is the plain form of the same line, for tests and `arena bot check`.
    return " ".join(("request", str(request_id), str(len(legal)), *map(move_text, legal), format_view_fields(view)))


def format_event(event: Event) -> str:  # §8
    return "event " + event.text()


def format_fault(request_id: int, kind: str, text: str) -> str:  # §9
    # The text is never absent (§9, appendix C): a bot that reads it to the end of the line finds one.
    return f"fault {request_id} {kind} {one_line(text) or 'no detail'}"


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
