"""A test bot that says what it sees of the machine (docs/sandbox.md, "What a bot sees of the
machine"), as one JSON line on stderr ("view: {...}"), at its hello; then plays the first legal move."""

import ctypes
import json
import os
import socket
import sys


class _Sysinfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3), ("totalram", ctypes.c_ulong),
                ("freeram", ctypes.c_ulong), ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong), ("procs", ctypes.c_ushort),
                ("pad", ctypes.c_ushort), ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_f", ctypes.c_char * 8)]


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as exc:
        return f"unreadable: {type(exc).__name__}"


def seen():
    info = _Sysinfo()
    ctypes.CDLL(None).sysinfo(ctypes.byref(info))
    mounts = [line.split()[3:5] for line in read("/proc/self/mountinfo").splitlines()]
    return {"cwd": os.getcwd(), "hostname": socket.gethostname(), "mounts": mounts,
            "proc_sys": sorted(os.listdir("/proc/sys")), "meminfo": read("/proc/meminfo").splitlines()[:1],
            "loadavg": read("/proc/loadavg").strip(), "file_nr": read("/proc/sys/fs/file-nr"),
            "sysinfo": [info.totalram * info.mem_unit, info.procs, list(info.loads)], "argv": sys.argv,
            "users": read("/etc/passwd").splitlines()}


def main():
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "hello":
            print("view: " + json.dumps(seen()), file=sys.stderr, flush=True)
            print("hello name=view_probe", flush=True)
        elif words[0] == "request":
            print(f"move {words[1]} {words[3]}", flush=True)
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main()
