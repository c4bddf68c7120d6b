"""The live tournament display: leaderboard and progress, refreshed while games are committed."""

from __future__ import annotations

import time

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from arena.report_standings import leaderboard_renderable
from arena.standings import compute_standings

# Standings are recomputed from the database; at most this often, so the display never slows the run.
REFRESH_EVERY_S = 1.0


class LiveBoard:
    """Context manager; `update` is the tournament runner's progress callback."""

    def __init__(self, config, store, console: Console) -> None:
        self.config, self.store, self.console = config, store, console
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("games"), TimeRemainingColumn(), console=console,
        )
        self.task = self.progress.add_task(config.name, total=None)
        self._last_refresh = 0.0
        self._board = leaderboard_renderable(compute_standings(store, list(config.bots)), f"{config.name}: standings")
        self.live = Live(self._group(), console=console, refresh_per_second=4, transient=False)

    def _group(self) -> Group:
        return Group(self._board, self.progress)

    def __enter__(self) -> "LiveBoard":
        self.live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._refresh_board()
        self.live.update(self._group(), refresh=True)
        self.live.__exit__(*exc)

    def update(self, progress) -> None:
        self.progress.update(self.task, total=progress.total, completed=progress.done)
        now = time.monotonic()
        if now - self._last_refresh >= REFRESH_EVERY_S or progress.done == progress.total:
            self._refresh_board()
            self.live.update(self._group())

    def _refresh_board(self) -> None:
        self._last_refresh = time.monotonic()
        self._board = leaderboard_renderable(compute_standings(self.store, list(self.config.bots)), f"{self.config.name}: standings")
