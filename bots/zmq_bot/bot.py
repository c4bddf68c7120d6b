#!/usr/bin/env python3
"""zmq_bot: a random legal-move Skitgubbe bot over ZeroMQ (Python + pyzmq, no arena import).

The bot binds a ROUTER socket; the arena connects one DEALER per conversation (one seat of one
match). Every protocol line is one single-frame message without the newline. Each conversation,
keyed by the DEALER's routing id, has its own handshake and its own game state.

Two ways to run it:

  (a) arena-started (bot.toml): the arena picks the endpoint and passes it as `--endpoint` (and in
      $ARENA_ZMQ_ENDPOINT). One arena conversation per process: the bot exits 0 after `quit`
      once no other conversation is open, or when the arena closes its stdin.

          python bot.py --endpoint ipc:///tmp/x/bot.sock

  (b) a service, until killed, serving many conversations at once (see README.md):

          python bot.py --serve tcp://127.0.0.1:5555
          python bot.py --serve tcp://0.0.0.0:5555 \\
              --curve-server-secret keys/server.key_secret --curve-allow-dir keys/clients

      With CurveZMQ the server key pair comes from a pyzmq certificate file
      (zmq.auth.create_certificates) and only the client public keys found in the allow
      folder may connect (a ZAP authenticator checks every handshake).

Moves are reproducible: each game's are drawn from its number and seat (and --seed N or
$BOT_SEED, which changes them). --exit-on-quit forces (a)'s exit.
"""

from __future__ import annotations

import argparse
import os
import random
import stat
import sys
import threading

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator

NAME, VERSION, AUTHOR = "zmq_bot", "1.0", "skitgubbe-arena"
ENDPOINT_ENV = "ARENA_ZMQ_ENDPOINT"


def log(text: str) -> None:
    print(f"zmq_bot: {text}", file=sys.stderr, flush=True)


class Conversation:
    """One DEALER peer: its own handshake, rule options and random generator."""

    def __init__(self, seed: str | None, number: int) -> None:
        self.seed = seed or ""
        self.rng = random.Random(f"{self.seed}:{number}")
        self.greeted = False
        self.options: dict[str, str] = {}

    def handle(self, line: str) -> str | None:
        """The answer to one arena line, or None."""
        tokens = line.rstrip("\r\n").split(" ")
        kind = tokens[0]
        if kind == "hello":
            self.greeted = True
            return f"hello name={NAME} version={VERSION} author={AUTHOR}"
        if kind in ("match", "game"):
            for token in tokens[1:]:
                key, sep, value = token.partition("=")
                if sep:
                    self.options[key] = value
            if kind == "game":
                # A fresh, reproducible stream for this game and seat: the same game is played
                # the same way whatever came before, so a resumed tournament equals an uninterrupted one.
                self.rng.seed(f"{self.seed}/{tokens[1] if len(tokens) > 1 else ''}/{self.options.get('seat', '')}")
            return None
        if kind == "request":
            try:
                request_id, count = tokens[1], int(tokens[2])
            except (IndexError, ValueError):
                log(f"malformed request: {line!r}")
                return None
            moves = tokens[3:3 + count]
            if not moves:
                log(f"request {request_id} has no moves")
                return None
            return f"move {request_id} {self.rng.choice(moves)}"
        return None  # event, fault, gameover, matchover, unknown: ignored; quit: see serve()


def serve(endpoint: str, *, exit_on_quit: bool, seed: str | None = None,
          curve_server_secret: str | None = None, curve_allow_dir: str | None = None) -> int:
    ctx = zmq.Context()
    auth = None
    sock = ctx.socket(zmq.ROUTER)
    sock.linger = 1000  # let the last answers leave before the process exits
    if curve_server_secret:
        if not zmq.has("curve"):
            log("this libzmq has no CurveZMQ support")
            return 2
        if not curve_allow_dir or not os.path.isdir(curve_allow_dir):
            log(f"--curve-allow-dir must be a folder of client public keys, not {curve_allow_dir!r}")
            return 2
        public, secret = zmq.auth.load_certificate(curve_server_secret)
        if secret is None:
            log(f"{curve_server_secret} holds no secret key (use the *.key_secret file)")
            return 2
        auth = ThreadAuthenticator(ctx)
        auth.start()
        auth.configure_curve(domain="*", location=curve_allow_dir)  # only the listed client keys
        sock.curve_publickey, sock.curve_secretkey = public, secret
        sock.curve_server = True
    elif not _is_local(endpoint):
        log(f"warning: {endpoint} is reachable from other hosts without CurveZMQ; "
            "the arena will refuse it (use --curve-server-secret)")
    sock.bind(endpoint)
    log(f"listening on {sock.getsockopt_string(zmq.LAST_ENDPOINT)}"
        + (" (CurveZMQ)" if curve_server_secret else ""))
    conversations: dict[bytes, Conversation] = {}
    started = 0
    try:
        while True:
            frames = sock.recv_multipart()
            if len(frames) < 2:
                continue
            peer, payload = frames[0], frames[-1]
            line = payload.decode("utf-8", errors="replace")
            conv = conversations.get(peer)
            if conv is None:
                started += 1
                conv = conversations[peer] = Conversation(seed, started)
            if line.split(" ", 1)[0].rstrip("\r\n") == "quit":
                del conversations[peer]
                if exit_on_quit and not conversations:
                    return 0
                continue
            reply = conv.handle(line)
            if reply is not None:
                sock.send_multipart([peer, reply.encode("utf-8")])
    except KeyboardInterrupt:
        return 0
    finally:
        sock.close()
        if auth is not None:
            auth.stop()
        ctx.term()


def _is_local(endpoint: str) -> bool:
    scheme, _, rest = endpoint.partition("://")
    if scheme in ("ipc", "inproc"):
        return True
    host = rest.rsplit(":", 1)[0].strip("[]")
    return host in ("localhost", "::1") or host.startswith("127.")


def _exit_when_stdin_closes() -> None:
    """Arena-started bots: the arena closes our stdin at teardown; leave then, even without quit."""
    try:
        if not stat.S_ISFIFO(os.fstat(0).st_mode):
            return  # a terminal or /dev/null: nothing to watch
    except OSError:
        return

    def watch() -> None:
        try:
            while os.read(0, 65536):
                pass
        except OSError:
            pass
        os._exit(0)

    threading.Thread(target=watch, name="stdin-watch", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Random legal-move Skitgubbe bot over ZeroMQ (ROUTER).")
    parser.add_argument("--endpoint", help="arena-started: the endpoint to bind (default $ARENA_ZMQ_ENDPOINT)")
    parser.add_argument("--serve", metavar="ENDPOINT", help="run as a service on ENDPOINT until killed")
    parser.add_argument("--exit-on-quit", action="store_true", help="exit after quit (default with --endpoint)")
    parser.add_argument("--curve-server-secret", metavar="FILE", help="server certificate (*.key_secret)")
    parser.add_argument("--curve-allow-dir", metavar="DIR", help="folder of allowed client public keys")
    parser.add_argument("--seed", default=os.environ.get("BOT_SEED"), help="random seed (default $BOT_SEED)")
    args = parser.parse_args(argv)
    if args.serve and args.endpoint:
        parser.error("give --serve (a service) or --endpoint (arena-started), not both")
    if args.curve_server_secret and not args.curve_allow_dir:
        parser.error("--curve-server-secret needs --curve-allow-dir")
    if args.serve:
        endpoint, exit_on_quit = args.serve, args.exit_on_quit
    else:
        endpoint = args.endpoint or os.environ.get(ENDPOINT_ENV)
        if not endpoint:
            parser.error(f"no endpoint: give --endpoint, --serve, or set ${ENDPOINT_ENV}")
        exit_on_quit = True
        _exit_when_stdin_closes()
    return serve(endpoint, exit_on_quit=exit_on_quit, seed=args.seed,
                 curve_server_secret=args.curve_server_secret, curve_allow_dir=args.curve_allow_dir)


if __name__ == "__main__":
    sys.exit(main())
