"""Transports: how protocol lines travel between the referee and a bot.

`PipeTransport` (stdin/stdout subprocess) and `ZmqTransport` (ZeroMQ DEALER -> bot ROUTER).
`ZmqTransport` is imported lazily so pipe-only users do not pay for importing pyzmq.
"""

from __future__ import annotations

from typing import Any

from arena.transport.base import (
    MAX_LINE_BYTES,
    BadMessage,
    BotExited,
    BotTimeout,
    BotUnreachable,
    LineTooLong,
    Transport,
    TransportError,
)
from arena.transport.pipe import PipeTransport
from arena.transport.procs import close_all

__all__ = [
    "MAX_LINE_BYTES", "BadMessage", "BotExited", "BotTimeout", "BotUnreachable", "LineTooLong",
    "Transport", "TransportError", "PipeTransport", "ZmqTransport", "generate_keypair",
    "close_all",
]


def __getattr__(name: str) -> Any:
    if name in ("ZmqTransport", "generate_keypair"):
        from arena.transport import zmq as _zmq

        return getattr(_zmq, name)
    raise AttributeError(name)
