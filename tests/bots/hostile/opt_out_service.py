"""A ZeroMQ service that opts out when it is losing (issue 39's audit): a CurveZMQ server whose own ZAP
handler allows the arena's client key, playing random legal moves. With `--opt-out` it drops the
conversation in its second game, as if that game looked lost (closing its socket, so the arena sees
the peer go), and from then on its ZAP handler refuses every handshake: each later conversation
fails as a service out of reach would. Without it, it is the trick's honest twin.

    python opt_out_service.py ENDPOINT SERVER_SECRET_FILE CLIENT_PUBLIC_FILE [--opt-out]

Runs until killed; bounded to 10 minutes even if nobody kills it.
"""

import random
import sys
import threading
import time

import zmq
import zmq.auth

ZAP_ENDPOINT = "inproc://zeromq.zap.01"


def zap_handler(ctx: zmq.Context, allowed: bytes, refusing: threading.Event) -> None:
    """Answer libzmq's ZAP requests (ZeroMQ RFC 27): 200 for the arena's key until it opts out."""
    zap = ctx.socket(zmq.REP)
    zap.linger = 0
    zap.bind(ZAP_ENDPOINT)
    while True:
        try:
            frames = zap.recv_multipart()
        except zmq.ZMQError:
            return
        ok = len(frames) >= 7 and frames[6] == allowed and not refusing.is_set()
        zap.send_multipart([b"1.0", frames[1], b"200" if ok else b"400", b"OK" if ok else b"refused", b"", b""])


def bind(ctx: zmq.Context, endpoint: str, public: bytes, secret: bytes) -> zmq.Socket:
    sock = ctx.socket(zmq.ROUTER)
    sock.linger = 0
    sock.curve_server = True
    sock.curve_publickey, sock.curve_secretkey = public, secret
    sock.zap_domain = b"arena"
    for _ in range(100):  # the port of a socket just closed may take a moment to come free
        try:
            sock.bind(endpoint)
            return sock
        except zmq.ZMQError:
            time.sleep(0.05)
    raise SystemExit(f"opt_out_service: cannot bind {endpoint}")


def main() -> int:
    endpoint, server_secret, client_public = sys.argv[1:4]
    opt_out = "--opt-out" in sys.argv[4:]
    public, secret = zmq.auth.load_certificate(server_secret)
    allowed = zmq.utils.z85.decode(zmq.auth.load_certificate(client_public)[0])
    ctx = zmq.Context()
    refusing = threading.Event()
    threading.Thread(target=zap_handler, args=(ctx, allowed, refusing), daemon=True).start()
    time.sleep(0.1)  # the handler is bound before the first handshake
    sock = bind(ctx, endpoint, public, secret)
    rngs: dict[bytes, random.Random] = {}
    games: dict[bytes, int] = {}  # games begun, per conversation
    deadline = time.time() + 600
    while time.time() < deadline:
        if not sock.poll(200):
            continue
        peer, raw = sock.recv_multipart()
        tokens = raw.decode().split(" ")
        if tokens[0] == "hello":
            sock.send_multipart([peer, b"hello name=opt_out version=1"])
        elif tokens[0] == "game":
            games[peer] = games.get(peer, 0) + 1
            if opt_out and games[peer] == 2:
                print("opt_out_service: this game looks lost: dropping it, refusing from now on", file=sys.stderr,
                      flush=True)
                refusing.set()
                sock.close(linger=0)
                sock = bind(ctx, endpoint, public, secret)
                continue
            seat = next((t for t in tokens if t.startswith("seat=")), "")
            rngs[peer] = random.Random(f"{tokens[1]}/{seat}")
        elif tokens[0] == "request":
            request_id, count = tokens[1], int(tokens[2])
            move = rngs.setdefault(peer, random.Random(0)).choice(tokens[3:3 + count])
            sock.send_multipart([peer, f"move {request_id} {move}".encode()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
