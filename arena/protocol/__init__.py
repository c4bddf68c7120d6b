"""The protocol codec: every line between the arena and a bot, formatted and parsed as protocol.md
says ("§n" in its modules cites that file's sections). It owns the text of the protocol and
nothing else: it may import the rules (`arena.game`) and the root's `arena.wording`, never the
transport that carries the lines or the referee that decides what to send.

Its public names are gathered here, as `arena.game` gathers the engine's, so that callers write
`protocol.format_request(...)` whichever of its files holds the function: `text` (tokens, numbers,
escaping), `view` (the seat view's fields), `messages` (constants and typed messages),
`arena_lines` (what the arena sends, and reading it back), `bot_lines` (what a bot sends).
"""

from arena.protocol.arena_lines import (
    MATCH_OPTIONS,
    format_event,
    format_fault,
    format_game_over,
    format_game_start,
    format_hello,
    format_match_over,
    format_match_start,
    format_quit,
    format_request,
    parse_message,
)
from arena.protocol.bot_lines import parse_bot_hello, parse_move_reply
from arena.protocol.messages import (
    FAULT_KINDS,
    MAX_BOT_LINE_BYTES,
    NAME_MAX,
    PROTOCOL_VERSION,
    VALUE_MAX,
    ArenaHello,
    BotHello,
    Fault,
    GameOver,
    GameStart,
    MatchOver,
    MatchStart,
    Message,
    MoveReply,
    Quit,
    Request,
)
from arena.protocol.text import ProtocolError
from arena.protocol.view import format_view_fields, parse_view_fields

__all__ = [
    "FAULT_KINDS", "MAX_BOT_LINE_BYTES", "NAME_MAX", "PROTOCOL_VERSION", "VALUE_MAX", "ArenaHello", "BotHello",
    "Fault", "GameOver", "GameStart", "MatchOver", "MatchStart", "Message", "MoveReply", "ProtocolError", "Quit",
    "MATCH_OPTIONS", "Request", "format_event", "format_fault", "format_game_over", "format_game_start", "format_hello",
    "format_match_over", "format_match_start", "format_quit", "format_request", "format_view_fields",
    "parse_bot_hello", "parse_message", "parse_move_reply", "parse_view_fields",
]
