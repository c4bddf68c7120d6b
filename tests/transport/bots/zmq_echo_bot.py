"""Test-only ZeroMQ bot: binds a ROUTER and echoes, one counter per conversation.

Usage: zmq_echo_bot.py [ENDPOINT] [--curve SERVER_SECRET_CERT --allow CLIENT_KEYS_DIR]
ENDPOINT defaults to $ARENA_ZMQ_ENDPOINT. Reply to line L is "<n> L" where n counts the
messages of that conversation (DEALER routing id). "crash" exits with code 3, "silent"
gives no reply, "big N" replies with N bytes. Exits when stdin reaches EOF (the arena closed it).

`serve()` is the reusable bot-side loop (it does not import arena).
"""

import os
import sys
import threading
from collections.abc import Callable

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator


def serve(endpoint: str, handle: Callable[[bytes, str], str | None],
          curve_secret_cert: str | None = None, allow_dir: str | None = None) -> None:
    """Bind a ROUTER; for each message call handle(conversation_id, line) and send the
    returned line (if any) back to that conversation."""
    ctx = zmq.Context()
    auth = None
    sock = ctx.socket(zmq.ROUTER)
    sock.linger = 0
    if curve_secret_cert:
        auth = ThreadAuthenticator(ctx)
        auth.start()
        auth.configure_curve(domain="*", location=allow_dir)  # only listed client keys
        public, secret = zmq.auth.load_certificate(curve_secret_cert)
        sock.curve_secretkey, sock.curve_publickey = secret, public
        sock.curve_server = True
    sock.bind(endpoint)
    while True:
        frames = sock.recv_multipart()
        reply = handle(frames[0], frames[-1].decode("utf-8", errors="replace"))
        if reply is not None:
            sock.send_multipart([frames[0], reply.encode("utf-8")])


def _exit_on_stdin_eof() -> None:
    try:
        while sys.stdin.buffer.read(65536):
            pass
    except OSError:
        pass
    os._exit(0)


def main() -> None:
    args = sys.argv[1:]
    curve = allow = None
    if "--curve" in args:
        i = args.index("--curve")
        curve = args[i + 1]
        del args[i : i + 2]
    if "--allow" in args:
        i = args.index("--allow")
        allow = args[i + 1]
        del args[i : i + 2]
    endpoint = args[0] if args else os.environ["ARENA_ZMQ_ENDPOINT"]
    threading.Thread(target=_exit_on_stdin_eof, daemon=True).start()
    counts: dict[bytes, int] = {}

    def handle(conv: bytes, line: str) -> str | None:
        if line == "crash":
            sys.stderr.write("RuntimeError: asked to crash\n")
            sys.stderr.flush()
            os._exit(3)
        if line == "silent":
            return None
        if line.startswith("big "):
            return "x" * int(line.split()[1])
        counts[conv] = counts.get(conv, 0) + 1
        return f"{counts[conv]} {line}"

    print(f"listening on {endpoint}", file=sys.stderr, flush=True)
    serve(endpoint, handle, curve, allow)


if __name__ == "__main__":
    main()
