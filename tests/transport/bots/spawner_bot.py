"""Test-only hostile bot: leaves grandchildren that hold stdout open.

argv: PIDFILE MODE. Grandchildren: one plain, one in a new process group (setpgid),
one double-forked into a new session (setsid), all ignoring SIGTERM. Their pids go to
PIDFILE (one per line). MODE "exit": the bot exits right after saying "ready";
MODE "stay": it keeps running.
"""

import os
import signal
import sys
import time

pidfile, mode = sys.argv[1], sys.argv[2]


def linger() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(60)
    os._exit(0)


pids = []
for how in ("plain", "setpgid"):
    pid = os.fork()
    if pid == 0:
        if how == "setpgid":
            os.setpgid(0, 0)
        linger()
    pids.append(pid)

# setsid escape: fork, setsid, fork again; report the grandchild pid over a pipe
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.setsid()
    gpid = os.fork()
    if gpid == 0:
        linger()
    os.write(w, f"{gpid}\n".encode())
    os._exit(0)
os.waitpid(pid, 0)
pids.append(int(os.read(r, 100).decode().strip()))

with open(pidfile, "w") as f:
    f.write("\n".join(map(str, pids)) + "\n")
sys.stdout.write("ready\n")
sys.stdout.flush()
if mode == "exit":
    os._exit(0)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(60)
