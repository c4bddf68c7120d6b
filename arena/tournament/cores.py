"""A core of this machine for one table at a time, whoever plays it.

A table's referee and its bots share one pinned core: their turns hand over to each other all the
time, and on one core each hand-over is a cheap wake-up rather than a move between cores. The
local pool knows its workers and gives each its own core; Dask workers (several processes, or
several threads in one, per machine) do not know each other, so a table claims a free core with
a lock file per core that every arena process of the user on the machine sees. A lock ends with
its process, SIGKILL included, so a dead worker never keeps a core. benchmarks/cluster.py:
unpinned Dask workers reached about 0.80 of the pinned local pool's games/s; pinned, the same."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator

from arena.submission.workspace import cache_dir


def _locks_dir():
    return cache_dir().parent / "cores"


@contextlib.contextmanager
def claimed_core() -> Iterator[int | None]:
    """A core no other table on this machine holds, held until the block ends; None when every
    core is taken (more worker threads than cores) or pinning is not available here. The calling
    thread's own affinity is put back on exit (a Dask worker thread goes on to other tasks)."""
    if not hasattr(os, "sched_getaffinity"):
        yield None
        return
    before = os.sched_getaffinity(0)
    try:
        _locks_dir().mkdir(parents=True, exist_ok=True)
    except OSError:
        yield None
        return
    for cpu in sorted(before):
        fd = os.open(_locks_dir() / f"cpu{cpu}", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another table has it
            os.close(fd)
            continue
        try:
            yield cpu
        finally:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, before)
            os.close(fd)  # the lock goes with it
        return
    yield None


__all__ = ["claimed_core"]
