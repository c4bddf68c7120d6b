"""What the guard counts of a bot's processes in /proc (arena/sandbox/guard.py): their children,
their threads, and the bytes of a folder it may write in. Stdlib only."""

from __future__ import annotations

import os


def children(pid: int) -> set[int]:
    """The child processes of `pid` (of its main thread), none when it is gone."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return {int(child) for child in f.read().split()}
    except (OSError, ValueError):
        return set()


def bytes_in(folder: str) -> int:
    """What the files under `folder` hold (a bot's socket folder: sockets, and nothing else)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue  # gone since it was listed
    return total


def threads_of(pids: set[int]) -> int:
    """Processes and threads of `pids`: what the `processes` limit counts (pids.max does too)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"Threads:"):
                        total += int(line.split()[1])
                        break
        except (OSError, ValueError, IndexError):
            total += 1  # gone, or unreadable: still one
    return total


__all__ = ["children", "bytes_in", "threads_of"]
