"""Tests' own reads and writes of a results file, each connection closed as its block ends.

`with sqlite3.connect(path) as db` only commits: the connection stays open until the garbage
collector finds it (its statement cache refers back to it). An open connection in the test's
process keeps SQLite's shared index of the log (the -shm file) mapped, and after a writer is
killed mid-commit such a process goes on reading that index, one commit behind the log, while
a fresh process reads the whole log: the same file then read differently from one line to the
next, as a kill test saw.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def connected(path: str | Path, *, read_only: bool = False, timeout_s: float = 5.0) -> Iterator[sqlite3.Connection]:
    """A connection to `path` for one block: committed if the block ends well, and closed."""
    db = (sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout_s) if read_only
          else sqlite3.connect(path, timeout=timeout_s))
    try:
        with db:
            yield db
    finally:
        db.close()
