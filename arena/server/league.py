"""The league the server plays while it serves: `arena tournament run CONFIG --update` as a child
process (arena/server/children.py), so that the league is played exactly as from the command line
(its pools, isolation, void games and resume), and takes each bot the server enters (the config's
`bots` grows) and each new version (its folder replaced) between tables, as a running league does
(arena/tournament/league_watch.py). If the run ends (the config cannot be read, a worker died) it
is started again after a pause that grows; a frozen league whose final round robin is complete is
left ended. A server killed mid-league kills its run with it, and the next server's run resumes it.

And the live hub: every POLL_S the board is read (arena/server/reader.py: one query when nothing
changed) and each listener (a server-sent-events client) is told when a game was stored."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from arena.server.children import start_child, stop_child, tail
from arena.server.paths import ServerPaths
from arena.server.reader import Board, LeagueReader

log = logging.getLogger(__name__)

# A stored game reaches the live pages within this and a board's work (a refit, the page's part):
# under the 2 s asked. Each board costs tens of ms of a core the league plays on; a board for every
# game (20 a second here) took the league's games per minute down by half under load.
POLL_S = 1.0
RESTART_S = (2.0, 5.0, 15.0, 60.0)  # pauses before starting an ended run again, growing
# The league's run (its workers and bots with it) gives way to the server on a busy machine: a page
# is a fraction of a ms of a core, wanted at once; the league takes what the server leaves, as it
# would at equal priority. By the scheduler's weights (1024 for the server against 335 for each
# league process at nice 5, 110 at 10) a burst of the server's got about half a core against a busy
# league at 5 and most of one at 10. The upload checks run lower still (uploads.py CHECK_NICE).
LEAGUE_NICE = 10


@dataclass(frozen=True)
class LeagueStatus:
    running: bool
    pid: int | None
    restarts: int
    last_exit: int | None
    log_tail: str


class LeagueRunner:
    """Keeps the league's run going (see the module docstring)."""

    def __init__(self, paths: ServerPaths, play: bool = True) -> None:
        self.paths, self.play = paths, play
        self.child: subprocess.Popen | None = None
        self.restarts = 0
        self.last_exit: int | None = None
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        if self.play:
            self._task = asyncio.get_running_loop().create_task(self._keep_running())

    async def _keep_running(self) -> None:
        failures = 0
        while True:
            child = self.child = start_child(["arena", "tournament", "run", str(self.paths.config), "--update"],
                                             self.paths.league_log, nice=LEAGUE_NICE)
            started = time.monotonic()
            while child.poll() is None:
                await asyncio.sleep(0.5)
            self.last_exit = child.returncode
            if self.last_exit == 0 and _final_complete(self.paths.config):
                log.info("the league's final round robin is complete: its run is not started again")
                return
            failures = 0 if time.monotonic() - started > 120 else failures + 1
            self.restarts += 1
            await asyncio.sleep(RESTART_S[min(failures, len(RESTART_S) - 1)])

    def status(self) -> LeagueStatus:
        child = self.child
        running = child is not None and child.poll() is None
        return LeagueStatus(running, child.pid if running and child is not None else None, self.restarts,
                            self.last_exit, tail(self.paths.league_log))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        await asyncio.get_running_loop().run_in_executor(None, stop_child, self.child)


def _final_complete(config: Path) -> bool:
    from arena.tournament.config import load_config

    try:
        return load_config(config).frozen
    except Exception:  # noqa: BLE001 - a config that cannot be read: the run is tried again, which says why
        return False


class LiveHub:
    """Tells each listener when the board changed (a game stored)."""

    def __init__(self, reader: LeagueReader, on_first_board: Callable[[], None] | None = None) -> None:
        self.reader, self.on_first_board = reader, on_first_board
        self.board = Board(-1, note="no game yet")
        # The board as every live client is sent it, encoded once: with the chart now and then, and
        # always to a client that just connected (its first).
        self.event = self.first_event = _event(self.board, with_chart=True)
        self._changed = asyncio.Event()
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._poll())

    async def _poll(self) -> None:
        while True:
            try:
                board = await self.reader.run(self.reader.board)
            except Exception:  # noqa: BLE001 - a read that failed is logged and tried again
                log.exception("reading the league's board")
                board = self.board
            if board.last_game_id != self.board.last_game_id:
                if self.board.last_game_id == -1 and self.on_first_board is not None:
                    self.on_first_board()
                with_chart = board.chart_game != self.board.chart_game  # drawn again since the last event
                self.board = board
                self.first_event = _event(board, with_chart=True)
                self.event = self.first_event if with_chart else _event(board, with_chart=False)
                changed, self._changed = self._changed, asyncio.Event()
                changed.set()
            await asyncio.sleep(POLL_S)

    async def next_board(self, seen: int, timeout_s: float) -> Board | None:
        """The board once it is newer than `seen`, or None after `timeout_s` (a keep-alive)."""
        if self.board.last_game_id != seen:
            return self.board
        try:
            await asyncio.wait_for(self._changed.wait(), timeout_s)
        except asyncio.TimeoutError:
            return None
        return self.board

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


def freeze_objects_so_far() -> None:
    """`arena serve`'s, once its first board is made (every module a page needs imported, the
    results open): the objects so far are kept out of the collector's full passes (gc.freeze, as
    long-running servers do). One such pass scanned 120,000 objects and took 127 ms, every page
    waiting; after the freeze they scanned about 57,000 (on a busy machine still 107-180 ms: what
    it saves in time was not measured apart)."""
    import gc

    gc.collect()
    gc.freeze()


def _event(board: Board, with_chart: bool) -> bytes:
    """The board as a server-sent event, its bytes ready to write to each client as they are."""
    import json

    from sse_starlette.event import ServerSentEvent

    data = {"last_game_id": board.last_game_id, "html": board.html, "recent": list(board.recent[:10]),
            "queue": list(board.queue)}
    if with_chart:
        data["chart"] = board.chart
    return ServerSentEvent(json.dumps(data), event="board").encode()


__all__ = ["LeagueRunner", "LeagueStatus", "LiveHub", "POLL_S", "freeze_objects_so_far"]
