"""Test-only pipe bot: echoes lines; a few command lines trigger faults."""

import os
import sys
import time

out = sys.stdout.buffer


def write(data: bytes) -> None:
    out.write(data)
    out.flush()


for raw in sys.stdin.buffer:
    line = raw.rstrip(b"\n").decode()
    cmd, _, arg = line.partition(" ")
    if cmd == "exit":
        sys.exit(int(arg))
    elif cmd == "crash":
        os.abort()
    elif cmd == "silent":
        continue
    elif cmd == "crlf":
        write(arg.encode() + b"\r\n")
    elif cmd == "cr":  # classic Mac line ends: \r alone
        write(arg.encode() + b"\r")
    elif cmd == "nolf":
        write(arg.encode())
    elif cmd == "stderr":
        sys.stderr.buffer.write(b"e" * int(arg))
        sys.stderr.flush()
        write(b"done\n")
    elif cmd == "spew":  # N bytes without any newline, then hang around
        chunk = b"x" * 65536
        for _ in range(int(arg) // len(chunk)):
            write(chunk)
        time.sleep(60)
    elif cmd == "long":
        write(b"y" * int(arg) + b"\n")
    elif cmd == "badutf8":
        write(b"\xff\xfe ok\n")
    elif cmd == "two":
        write(b"first\nsecond\n")
    else:
        write(b"echo " + line.encode() + b"\n")
