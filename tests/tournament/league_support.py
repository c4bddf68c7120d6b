"""A league of the bundled bots as its organiser runs it (issue 43): its config, the command run
as a process (to be killed, or watched while the config changes), and what its results file
holds, read with plain SQL so that the tests do not trust the code they check."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable

from tests.load_support import GENEROUS_LIMITS
from tests.tournament.test_run import marker_processes
from tests.db_support import connected

REPO = Path(__file__).resolve().parents[2]
BUNDLED = ["heuristic_bot", "random_bot", "c_bot", "js_bot", "shell_bot", "zmq_bot"]


def league_config(folder: Path, bots: list[str] = BUNDLED, *, workers: int = 2, extra: str = "") -> Path:
    """A league at tables of 3, one deal a table (6 games), generous limits (no load faults)."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "league.toml"
    listed = ", ".join(f'"{bot}"' for bot in bots)
    config.write_text(f'name = "league"\nseed = 43\nschedule = "league"\ntable_size = 3\ndeals = 1\n'
                      f'workers = {workers}\nbots = [{listed}]\n{extra}' + GENEROUS_LIMITS)
    return config


class LeagueProcess:
    """`arena tournament run CONFIG ARGS...` in a process group of its own, its bots and workers
    marked so that none may be left behind."""

    def __init__(self, config: Path, *args: str) -> None:
        self.config, self.database = config, config.with_suffix(".sqlite")
        self.marker = uuid.uuid4().hex
        env = {**os.environ, "ARENA_TEST_MARKER": self.marker}
        # Into a file, not a pipe: a long run's lines would fill a pipe nobody reads until its end.
        self.output = config.parent / f"run-{self.marker}.out"
        with self.output.open("wb") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", str(config), *args],
                                         cwd=config.parent, env=env, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)

        self.seen: dict[int, bytes] = {}  # every process it started that was seen: pid -> its start time

    def look_at_processes(self) -> None:
        """Note the processes under it now: its workers, and its bots, which a sandbox starts in a
        session of their own with an environment of their own (no marker reaches them)."""
        self.seen.update(_tree(self.proc.pid))

    def said(self) -> str:
        """What it said so far, on one line."""
        return " ".join(self.output.read_text(errors="replace").split())

    def wait_for(self, condition: Callable[[sqlite3.Connection], bool], timeout_s: float = 60.0) -> None:
        """Until `condition` holds of the results file (read-only), or the run ends, or time is up."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and self.proc.poll() is None:
            self.look_at_processes()
            if self.database.exists():
                try:
                    with connected(self.database, read_only=True, timeout_s=1) as db:
                        if condition(db):
                            return
                except sqlite3.Error:
                    pass  # the file or its league table not made yet
            time.sleep(0.02)

    def finish(self, timeout_s: float = 120.0) -> str:
        """Its output on one line, once it ended (killed with its group if it outlasts `timeout_s`)."""
        try:
            self.proc.wait(timeout=timeout_s)
        finally:
            self.kill()
        return self.said()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.look_at_processes()
            os.killpg(self.proc.pid, 9)
            self.proc.wait()

    def left_behind(self, wait_s: float = 15.0) -> list[int]:
        """The processes it started still alive after `wait_s` (its workers and bots die with it):
        those that carry its marker, and those seen under it while it ran."""
        def alive() -> list[int]:
            seen = [pid for pid, started in self.seen.items() if _started(pid) == started]
            return sorted(set(marker_processes(self.marker)) | set(seen))

        deadline = time.monotonic() + wait_s
        while alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        return alive()


def _started(pid: int) -> bytes | None:
    """A live process's start time (None: gone, or a zombie), so that a reused pid is not taken for it."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] in (b"Z", b"X") else fields[19]


def _tree(pid: int) -> dict[int, bytes]:
    """The live processes under `pid`, each with its start time."""
    found: dict[int, bytes] = {}
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            pids = [int(child) for child in children.read_text().split()]
        except OSError:
            continue
        for child in pids:
            started = _started(child)
            if started is not None:
                found[child] = started
                found.update(_tree(child))
    return found


def count_games(db: sqlite3.Connection) -> int:
    return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]


def tables(database: Path) -> dict[int, tuple[tuple[str, ...], str, str]]:
    """The league's tables: number -> (bots, status, reason)."""
    with connected(database) as db:
        return {number: (tuple(bots.split(",")), status, reason) for number, bots, status, reason
                in db.execute("SELECT number, bots, status, reason FROM league_tables ORDER BY number")}


def games(database: Path) -> list[tuple[int, str, int, int, str, int]]:
    """Every stored game in stored order: (id, key, table, seating, bots by seat, seed)."""
    with connected(database) as db:
        return db.execute("SELECT id, key, table_no, seating, bots, seed FROM games ORDER BY id").fetchall()


def superseded(database: Path) -> list[tuple[int, str, int, int, str, int]]:
    """The games kept out of the standings (a bot resubmitted or withdrawn), as `games` gives them."""
    with connected(database) as db:
        return db.execute("SELECT game_id, key, table_no, seating, bots, seed FROM superseded_games ORDER BY id").fetchall()


def assert_whole_tables(database: Path, games_per_table: int = 6) -> None:
    """Every game, in the standings or superseded since, belongs to a table the league chose and
    seats its bots; every played table has each of its seatings once, all with the same cards (one
    deal: one seed); none is doubled (a league plays no table again: a key is stored once)."""
    chosen, stored = tables(database), games(database) + superseded(database)
    assert len({key for _, key, *_ in stored}) == len(stored)
    by_table: dict[int, list[tuple[int, str, int]]] = {}
    for _, _, table, seating, bots, seed in stored:
        assert table in chosen, f"game of table {table}, which the league never chose"
        assert sorted(bots.split(",")) == sorted(chosen[table][0]), (table, bots, chosen[table])
        by_table.setdefault(table, []).append((seating, bots, seed))
    for number, (bots, status, _) in chosen.items():
        played = by_table.get(number, [])
        if status == "played":
            assert sorted(s for s, _, _ in played) == list(range(games_per_table)), (number, played)
            assert len({seed for _, _, seed in played}) == 1, (number, played)
            assert len({order for _, order, _ in played}) == games_per_table, (number, played)
        else:
            assert len(played) < games_per_table, (number, status, played)
