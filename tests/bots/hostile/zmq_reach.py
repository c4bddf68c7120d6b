"""A ZeroMQ bot that tries to reach past the arena: `zmq_reach.py ENDPOINT JSON`, where JSON lists
host ports to connect to ("connect") and to take ("bind"), as a bot on tcp that steals a service's
seat would; or, for a bot on ipc, a host socket to put its own endpoint's name on as a link
("link_to", instead of binding) and megabytes to write into its socket's folder ("fill_mb").
Each attempt is said on stderr as `zmq_reach: WHAT PORT: blocked (why)` or `LEAKED`. Plays the
first legal move; one conversation; exits after `quit`."""

import json
import socket
import sys
import time

import zmq

endpoint, targets = sys.argv[1], json.loads(sys.argv[2])


def say(what, port, leaked, detail):
    sys.stderr.write(f"zmq_reach: {what} {port}: {'LEAKED' if leaked else 'blocked'} ({detail})\n")
    sys.stderr.flush()


for port in targets.get("connect", []):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        say("connect", port, True, "connected")
    except OSError as exc:
        say("connect", port, False, type(exc).__name__)
held = []
for port in targets.get("bind", []):
    try:
        listener = socket.socket()
        listener.bind(("127.0.0.1", port))
        listener.listen(1)
        held.append(listener)
        sys.stderr.write(f"zmq_reach: bound {port}\n")  # its own loopback's, or the host's: the test knocks
    except OSError as exc:
        say("bind", port, False, type(exc).__name__)
sys.stderr.flush()
if endpoint.startswith("ipc://") and "fill_mb" in targets:
    folder = endpoint[len("ipc://"):].rsplit("/", 1)[0]
    try:
        with open(f"{folder}/filler", "wb") as f:
            for _ in range(targets["fill_mb"]):
                f.write(b"x" * (1 << 20))
                f.flush()
        sys.stderr.write(f"zmq_reach: wrote {targets['fill_mb']} MB into {folder}\n")
    except OSError as exc:
        sys.stderr.write(f"zmq_reach: fill stopped ({exc})\n")
if "link_to" in targets:
    import os

    os.symlink(targets["link_to"], endpoint[len("ipc://"):])
    sys.stderr.write("zmq_reach: put a link where its socket goes\n")
    sys.stderr.flush()
    time.sleep(5)
    sys.exit(0)
router = zmq.Context().socket(zmq.ROUTER)
router.bind(endpoint)
deadline = time.time() + 120
while time.time() < deadline:
    if not router.poll(1000):
        continue
    peer, data = router.recv_multipart()
    words = data.decode().split()
    if words[0] == "hello":
        router.send_multipart([peer, b"hello name=hostile_zmq_reach"])
    elif words[0] == "request":
        if words[1] == "1":  # the test looks for the bound port from the host meanwhile
            time.sleep(targets.get("wait", 0))
        router.send_multipart([peer, f"move {words[1]} {words[3]}".encode()])
    elif words[0] == "quit":
        break
