"""The lines a bot sends (protocol.md sections 2, 3 and 7): `parse_bot_hello` and `parse_move_reply`
accept exactly their grammar and raise `ProtocolError`, naming the offending token, for anything
else. No other exception escapes them."""

from __future__ import annotations

from arena.game.errors import ParseError
from arena.game.moves import CHANCE, DRAW, PICKUP, Move, parse_move, play
from arena.protocol.messages import (MAX_BOT_LINE_BYTES, NAME_RE, NAME_RULE, PROTOCOL_VERSION, VALUE_MAX, BotHello,
                                     MoveReply)
from arena.protocol.text import CARD_TEXT, ProtocolError, parse_fields, parse_int

# Every one-card move and every word move, by its token (runs take the general parser).
_MOVE_TOKENS = {CARD_TEXT[c]: play(c) for c in range(52)} | {"draw": DRAW, "chance": CHANCE, "pickup": PICKUP}


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


def _lowercase(first: str) -> str:
    """§2: a message type is lowercase; the move token alone is read in any case."""
    return ": message types are lowercase (protocol.md section 2)" if first.lower() in ("move", "hello") else ""


def _check_value(value: str, key: str) -> str:
    if not value or len(value) > VALUE_MAX:
        raise ProtocolError(f"hello: {key}= must be 1 to {VALUE_MAX} characters, got {len(value)}")
    return value


def parse_bot_hello(line: str) -> BotHello:  # §3
    tokens = _split_bot_line(line, "hello")
    if tokens[0] != "hello":
        shown = line.strip()
        shown = shown if len(shown) <= 80 else shown[:80] + "..."
        raise ProtocolError(f"expected the handshake 'hello name=<name> ...', got {shown!r}{_lowercase(tokens[0])}")
    fields = parse_fields(tokens[1:], "hello")
    if "name" not in fields:
        raise ProtocolError("hello: field name= is missing (e.g. 'hello name=mybot')")
    name = fields["name"]
    if not NAME_RE.match(name):
        raise ProtocolError(f"hello: bad name {name[:40]!r}: use {NAME_RULE}")
    if "protocol" in fields and fields["protocol"] != str(PROTOCOL_VERSION):
        raise ProtocolError(f"hello: protocol={fields['protocol'][:40]} is not supported; this arena speaks protocol={PROTOCOL_VERSION}")
    version = _check_value(fields["version"], "version") if "version" in fields else ""
    author = _check_value(fields["author"], "author") if "author" in fields else ""
    return BotHello(name, version, author)


def quick_move(line: str, answer_prefix: str) -> Move | None:  # §7 (hot path: once per move)
    """The move of `line` if it is the plainest answer to a request: `answer_prefix` (`move <id> `,
    the request's id as text) then one card or word. None for anything else, which
    `parse_move_reply` then reads and, if it is no answer, says why; so this only saves the common
    case its work. A token with anything more in it (a space, a second token) is no key of
    `_MOVE_TOKENS`, so it falls through to the careful path."""
    if line.startswith(answer_prefix):
        return _MOVE_TOKENS.get(line[len(answer_prefix):])
    return None


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
        raise ProtocolError(f"expected 'move <id> <move>', got a line starting {tokens[0][:40]!r}{_lowercase(tokens[0])}")
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
