"""The relay that gives a sandboxed ZeroMQ bot on `tcp` its endpoint without the host's network
(docs/sandbox.md, Network): the bot runs in a network namespace of its own, where only its own
loopback exists, and binds tcp://127.0.0.1:PORT there; this relay, started inside the same
sandbox just before the bot, listens on a Unix socket in the bot's private ipc folder, which the
arena connects to, and joins each connection to the bot's port. ZeroMQ speaks the same bytes over
both, CurveZMQ included. The bot can reach the arena through it and nothing else.

It runs as the bot's own user, with the bot's limits, and counts as one of the sandbox's own
processes (arena/sandbox/guard.py), not the bot's.
"""

from __future__ import annotations

import shlex
import sys

# Run as `python -I -S -c RELAY_CODE SOCKET PORT`: the standard library only, one thread, a
# connection refused by a bot not bound yet closed at once (ZeroMQ connects again 20 ms later).
RELAY_CODE = """
import selectors, socket, sys
path, port = sys.argv[1], int(sys.argv[2])
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
listener.listen(8)
chooser = selectors.DefaultSelector()
chooser.register(listener, selectors.EVENT_READ)
peer = {}
while True:
    for key, _ in chooser.select():
        end = key.fileobj
        if end is listener:
            arena, _ = listener.accept()
            bot = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                bot.connect(("127.0.0.1", port))
            except OSError:
                arena.close()
                bot.close()
                continue
            peer[arena], peer[bot] = bot, arena
            chooser.register(arena, selectors.EVENT_READ)
            chooser.register(bot, selectors.EVENT_READ)
            continue
        other = peer.get(end)
        if other is None:
            continue
        try:
            data = end.recv(65536)
            if data:
                other.sendall(data)
                continue
        except OSError:
            pass
        for closing in (end, other):
            chooser.unregister(closing)
            peer.pop(closing, None)
            closing.close()
"""


def relay_prelude(socket_path: str, port: int) -> str:
    """The shell words that start the relay in the background, for the sandbox's shim."""
    words = [sys.executable, "-I", "-S", "-c", RELAY_CODE, socket_path, str(port)]
    return " ".join(shlex.quote(word) for word in words) + " &"


__all__ = ["RELAY_CODE", "relay_prelude"]
