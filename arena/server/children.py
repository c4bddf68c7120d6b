"""The server's child processes (the league's run, an upload's check): started in a session of
their own, so that stopping one ends every process it started, and told to stop by the kernel when
the server dies (PR_SET_PDEATHSIG: a server killed with SIGKILL leaves no league playing on that
nobody serves, and no second run that the next server's run would find holding the results)."""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1


def _die_with_parent(nice: int) -> Callable[[], None]:
    def prepare() -> None:  # pragma: no cover - runs in the child between fork and exec
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if nice:
            os.nice(nice)
    return prepare


def start_child(args: Sequence[str], log_path: Path, cwd: Path | None = None, nice: int = 0) -> subprocess.Popen:
    """`python -m ARGS` as a child of this process, its output appended to `log_path`; `nice`: its
    CPU priority lowered by that much (an upload's check gives way to the league's games)."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", *args], stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, cwd=cwd, start_new_session=True,
                                preexec_fn=_die_with_parent(nice))


def stop_child(child: subprocess.Popen | None, wait_s: float = 10.0) -> None:
    """SIGTERM to the child (it stops its own workers, games and bots, and says what it kept), then
    SIGKILL to its whole session after `wait_s`: nothing it started is left."""
    if child is None or child.poll() is not None:
        _kill_session(child)
        return
    for sig, wait in ((signal.SIGTERM, wait_s), (signal.SIGKILL, 5.0)):
        try:
            os.kill(child.pid, sig) if sig == signal.SIGTERM else os.killpg(child.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if child.poll() is not None:
                _kill_session(child)
                return
            time.sleep(0.05)
    log.warning("child %s did not end after SIGKILL", child.pid)


def _kill_session(child: subprocess.Popen | None) -> None:
    """Whatever of the child's session outlived it (a bot's process that ignored the stop)."""
    if child is None:
        return
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def tail(path: Path, limit: int = 4000) -> str:
    """The last `limit` characters of a child's log (for the organiser's page)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - limit))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


__all__ = ["start_child", "stop_child", "tail"]
