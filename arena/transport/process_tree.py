"""A bot's whole process tree: find every process it started (its session, its group, its
descendants, and whatever carries its token) and kill them all. Shared by the transports and
by build steps, which are torn down as a bot is."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Any

# Every bot gets this variable with a per-process token. Children inherit it, so a
# grandchild that escaped with setsid() and was re-parented to init is still found by
# reading /proc/<pid>/environ (only a process that exec()s with a scrubbed env escapes).
TOKEN_ENV = "ARENA_BOT_TOKEN"


def _read_stat(pid: str) -> tuple[bytes, int, int, int] | None:
    """(state, ppid, pgrp, session) from /proc/<pid>/stat, or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # comm may contain spaces and parens: the fields start after the LAST ')'.
    rest = data[data.rindex(b")") + 2 :].split(None, 5)
    return rest[0], int(rest[1]), int(rest[2]), int(rest[3])


def pid_alive(pid: int) -> bool:
    """True if pid exists and is not a zombie (zombies hold no resources but a slot)."""
    st = _read_stat(str(pid))
    return st is not None and st[0] not in (b"Z", b"X")


def tree_members(popen: subprocess.Popen[Any], token: str) -> set[int]:
    """Live (non-zombie) pids started from `popen`: its session, its group, its descendants,
    and anything carrying `token` in its environment (setsid'd grandchildren re-parented to init).
    Bots and build steps alike: a process they leave behind holds resources and pipes."""
    me = os.getpid()
    root = popen.pid
    root_alive = popen.poll() is None  # also reaps, so a zombie root is not "alive"
    found: set[int] = set()
    children: dict[int, list[int]] = {}
    token_entry = f"{TOKEN_ENV}={token}".encode()
    try:
        names = os.listdir("/proc")
    except OSError:  # no procfs (not Linux): fall back to the process group alone
        names = []
    for name in names:
        if not name.isdigit():
            continue
        st = _read_stat(name)
        if st is None or st[0] in (b"Z", b"X"):
            continue
        pid = int(name)
        if pid == me:
            continue
        state, ppid, pgrp, sid = st
        children.setdefault(ppid, []).append(pid)
        if sid == root or pgrp == root:
            found.add(pid)
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if token_entry in f.read():
                    found.add(pid)
        except OSError:
            pass  # other users' processes, or already gone
    if root_alive:
        seen = {root}
        stack = [root]
        while stack:
            for c in children.get(stack.pop(), ()):
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        found |= seen  # root included: returncode None means not yet reaped
    found.discard(me)
    return found


def signal_tree(popen: subprocess.Popen[Any], sig: int, pids: set[int]) -> None:
    """Send `sig` to `pids` and to the process group of `popen` (which outlives its leader)."""
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass
    try:
        os.killpg(popen.pid, sig)
    except OSError:
        pass


def kill_tree(popen: subprocess.Popen[Any], token: str) -> None:
    """SIGKILL everything `tree_members` finds until nothing is left, then reap `popen`."""
    for _ in range(50):  # repeat: a process may fork between the scan and the kill
        popen.poll()
        pids = tree_members(popen, token)
        if not pids:
            break
        signal_tree(popen, signal.SIGKILL, pids)
        time.sleep(0.005)
    try:
        popen.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        pass
