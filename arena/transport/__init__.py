"""Transports: how protocol lines travel between the referee and a bot.

`PipeTransport` (stdin/stdout subprocess) and `ZmqTransport` (ZeroMQ DEALER -> bot ROUTER) behind the
`Transport` interface (`base`), with the bot processes they start (`bot_process`), those processes'
whole trees (`process_tree`) and the registry that closes every live transport at exit
(`live_transports`). It knows nothing of what the lines say: it may import only `arena.wording`,
and pyzmq in its `zmq*.py` files. `ZmqTransport` is imported lazily so pipe-only users do not pay
for importing pyzmq.
"""

from __future__ import annotations

from typing import Any

from arena.transport.base import (
    MAX_BUFFERED_LINE_BYTES,
    BadMessage,
    BotExited,
    BotTimeout,
    BotUnreachable,
    LineTooLong,
    ServiceOut,
    Transport,
    TransportError,
    Unplayable,
)
from arena.transport.pipe import PipeTransport
from arena.transport.live_transports import close_all

__all__ = [
    "MAX_BUFFERED_LINE_BYTES", "BadMessage", "BotExited", "BotTimeout", "BotUnreachable", "LineTooLong",
    "ServiceOut", "Transport", "TransportError", "Unplayable", "PipeTransport", "ZmqTransport", "generate_keypair",
    "close_all",
]


def __getattr__(name: str) -> Any:
    if name == "ZmqTransport":
        from arena.transport.zmq import ZmqTransport

        return ZmqTransport
    if name == "generate_keypair":
        from arena.transport.zmq_keys import generate_keypair

        return generate_keypair
    raise AttributeError(name)
