"""A test bot granted the network that tries where it must not reach (docs/sandbox.md, "Network"):
`net_reach.py TARGETS`, TARGETS a JSON list of [host, port]. At its first request it connects to
each and says on stderr "net_reach: HOST:PORT reached" or "... blocked (why)", then plays the first
legal move of every request."""

import json
import socket
import sys

TARGETS = json.loads(sys.argv[1]) if len(sys.argv) > 1 else []


def reach():
    for host, port in TARGETS:
        try:
            socket.create_connection((host, port), timeout=2.0).close()
            said = "reached"
        except OSError as exc:
            said = f"blocked ({type(exc).__name__})"
        print(f"net_reach: {host}:{port} {said}", file=sys.stderr, flush=True)


def main():
    tried = False
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "hello":
            print("hello name=net_reach", flush=True)
        elif words[0] == "request":
            if not tried:
                tried = True
                reach()
            print(f"move {words[1]} {words[3]}", flush=True)
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main()
