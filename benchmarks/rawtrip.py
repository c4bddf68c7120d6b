"""Round-trip floor: one short line to an echo process and back, in µs per round trip.

Compares raw pipes / raw ZeroMQ ipc with PipeTransport / ZmqTransport over the same echo
child, so the transports' own overhead is visible. Usage: python benchmarks/rawtrip.py [N]
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import zmq

from arena.transport import PipeTransport
from arena.transport.zmq import ZmqTransport

PIPE_ECHO = r"""
import os
while True:
    b = os.read(0, 65536)
    if not b:
        break
    os.write(1, b)
"""
ZMQ_ECHO = r"""
import os, sys, threading, zmq
threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()
s = zmq.Context().socket(zmq.ROUTER)
s.bind(os.environ["ARENA_ZMQ_ENDPOINT"])
while True:
    s.send_multipart(s.recv_multipart())
"""


def report(name: str, n: int, seconds: float) -> None:
    print(f"{name:<22} {seconds / n * 1e6:8.1f} µs/round trip  ({n} trips)")


def raw_pipe(n: int) -> None:
    p = subprocess.Popen([sys.executable, "-c", PIPE_ECHO], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    wfd, rfd = p.stdin.fileno(), p.stdout.fileno()  # type: ignore[union-attr]
    msg = b"PLAY Kd\n"
    for _ in range(100):
        os.write(wfd, msg)
        os.read(rfd, 65536)
    t0 = time.perf_counter()
    for _ in range(n):
        os.write(wfd, msg)
        os.read(rfd, 65536)
    report("raw pipe", n, time.perf_counter() - t0)
    p.stdin.close()  # type: ignore[union-attr]
    p.wait()


def pipe_transport(n: int) -> None:
    t = PipeTransport.start([sys.executable, "-c", PIPE_ECHO])
    for _ in range(100):
        t.send("PLAY Kd")
        t.receive(5.0)
    t0 = time.perf_counter()
    for _ in range(n):
        t.send("PLAY Kd")
        t.receive(5.0)
    report("PipeTransport", n, time.perf_counter() - t0)
    t.close()


def raw_zmq(n: int) -> None:
    d = f"/tmp/rawtrip-{os.getpid()}.sock"
    env = {**os.environ, "ARENA_ZMQ_ENDPOINT": f"ipc://{d}"}
    p = subprocess.Popen([sys.executable, "-c", ZMQ_ECHO], env=env, stdin=subprocess.PIPE)
    s = zmq.Context.instance().socket(zmq.DEALER)
    s.linger = 0
    s.connect(f"ipc://{d}")
    for _ in range(100):
        s.send(b"PLAY Kd")
        s.recv()
    t0 = time.perf_counter()
    for _ in range(n):
        s.send(b"PLAY Kd")
        s.recv()
    report("raw zmq ipc", n, time.perf_counter() - t0)
    s.close()
    p.stdin.close()  # type: ignore[union-attr]
    p.wait()
    os.unlink(d)


def zmq_transport(n: int) -> None:
    t = ZmqTransport.start([sys.executable, "-c", ZMQ_ECHO], endpoint_kind="ipc")
    for _ in range(100):
        t.send("PLAY Kd")
        t.receive(10.0)
    t0 = time.perf_counter()
    for _ in range(n):
        t.send("PLAY Kd")
        t.receive(5.0)
    report("ZmqTransport ipc", n, time.perf_counter() - t0)
    t.close()


if __name__ == "__main__":
    trips = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    for bench in (raw_pipe, pipe_transport, raw_zmq, zmq_transport):
        bench(trips)
