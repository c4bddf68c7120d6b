"""The live tournament display: leaderboard and progress, refreshed while games are committed."""

from __future__ import annotations

import time

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from rich.text import Text

from arena.report.standings import leaderboard_renderable
from arena.results.ratings import rated_standings

# Standings are recomputed from the database at most this often, and never more often than ten
# times their own cost: on a very large database (about 1 s at a million games, 4 s with the
# file out of the OS cache: benchmarks/standings.py) the display slows down instead of the run.
REFRESH_EVERY_S = 1.0
REFRESH_COST_FACTOR = 10.0


def test_line(state) -> str:
    """The SPRT's standing on the live board: the LLR against its two bounds, and the games read."""
    s = state.settings
    if state.decided:
        return state.sentence()
    return (f"SPRT {state.challenger} vs {state.baseline}: LLR {state.llr:.2f} (H0 at {s.lower:.2f}, H1 at "
            f"{s.upper:.2f}) after {state.deal_sets} deal sets, {state.games:,} games")


class LiveBoard:
    """Context manager; `update` is the tournament runner's progress callback."""

    def __init__(self, config, store, console: Console, test_status=None) -> None:
        """`test_status`: for an SPRT run, a callable giving the test's state (arena/results/sprt.py)."""
        self.config, self.store, self.console = config, store, console
        self.test_status = test_status
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("games"), TimeRemainingColumn(), console=console,
        )
        self.task = self.progress.add_task(escape(config.name), total=None)  # shown through markup
        self._last_refresh = 0.0
        self._interval_s = REFRESH_EVERY_S
        self._refresh_board()
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
        if now - self._last_refresh >= self._interval_s or progress.done == progress.total:
            self._refresh_board()
            self.live.update(self._group())

    def _refresh_board(self) -> None:
        started = time.monotonic()
        standings = rated_standings(self.store, self.config)
        self._board = leaderboard_renderable(standings, f"{self.config.name}: standings")
        if self.test_status is not None:
            self._board = Group(self._board, Text(test_line(self.test_status()), style="bold"))
        self._last_refresh = time.monotonic()
        self._interval_s = max(REFRESH_EVERY_S, REFRESH_COST_FACTOR * (self._last_refresh - started))
