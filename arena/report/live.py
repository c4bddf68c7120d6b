"""The live tournament display: leaderboard and progress, refreshed while games are committed.

The progress line is always on screen: the board above it gives up rows ("+N more") when the
terminal is too short for both, since a board cropped by the terminal took the progress with it.
While the run goes on, the board ranks by points per game (games beside it): a bot whose tables
came first would otherwise lead on totals. The last board, at the end, ranks as the reports do."""

from __future__ import annotations

import dataclasses
import time

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from arena.report.standings import leaderboard_renderable
from arena.results.ratings import rated_standings
from arena.results.sprt import SprtState
from arena.results.standings import Completeness, Standings

# Standings are recomputed from the database at most this often, and never more often than ten
# times their own cost: on a very large database (about 1 s at a million games, 4 s with the
# file out of the OS cache: benchmarks/standings.py) the display slows down instead of the run.
REFRESH_EVERY_S = 1.0
REFRESH_COST_FACTOR = 10.0


def test_line(state) -> str:
    """The SPRT's standing on the live board: the LLR against its two bounds, and the games read."""
    s = state.settings
    if state.decided:
        return f"SPRT: {state.sentence()}"
    return (f"SPRT {state.challenger} vs {state.baseline}: LLR {state.llr:.2f} (H0 at {s.lower:.2f}, H1 at "
            f"{s.upper:.2f}) after {state.deal_sets} deal sets, {state.games:,} games")


def clock(seconds: float) -> str:
    """1:02, or 1:02:03 past an hour."""
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def progress_text(done: int, total: int, played_now: int, elapsed_s: float, stops_early: bool = False,
                  void: int = 0, ended: bool = False) -> str:
    """ "1,234/6,000 games, 41 games/s, 1:02 elapsed, about 1:56 left" (the rate of this run's games),
    with ", 12 void" after the count while this run has games it could not play; no time left
    once the run has `ended` (stopped, or ended with games void)."""
    rate = played_now / elapsed_s if elapsed_s > 0 else 0.0
    parts = [f"{done:,}/{total:,} games" + (f", {void:,} void" if void else ""),
             f"{rate:.0f} games/s" if rate >= 10 else f"{rate:.1f} games/s", f"{clock(elapsed_s)} elapsed"]
    if done < total and rate > 0 and not ended:
        left = clock((total - done) / rate)
        parts.append(f"at most {left} left" if stops_early else f"about {left} left")
    return ", ".join(parts)


class _Screen:
    """The board and, under it, the progress line: the board shrinks to leave the progress room."""

    def __init__(self, board: "LiveBoard") -> None:
        self.board = board

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        footer = self.board.footer(options.max_width)
        room = (options.height or console.height) - len(console.render_lines(footer, options, pad=False))
        if self.board.final:
            room = 10**6  # the last board stays on screen whole, scrolling as any output does
        standings = self.board.standings
        limit = len(standings.bots) if standings is not None else 0
        while True:
            body = self.board.body(limit)
            lines = console.render_lines(body, options, pad=False)
            if len(lines) <= room or limit == 0:
                break
            # A bot takes at least a line: drop as many as there are lines too many, then one by
            # one (a wrapped line per bot takes two). Rendering once per bot dropped, four times a
            # second, cost a short terminal with a large field most of the organiser's time.
            limit = max(0, min(limit - 1, limit - (len(lines) - room)))
        for line in lines[:max(room, 0)]:
            yield from line
            yield Segment.line()
        yield footer


class LiveBoard:
    """Context manager; `update` is the tournament runner's progress callback."""

    def __init__(self, config, store, console: Console, test_status=None, on_refresh=None) -> None:
        """`test_status`: for an SPRT run, a callable giving the test's state (arena/results/sprt.py);
        `on_refresh(final, progress line)`: called after each refresh of the board (the live HTML page)."""
        self.config, self.store, self.console = config, store, console
        self.test_status = test_status
        self.on_refresh = on_refresh
        self.standings: Standings | None = None
        self._test: SprtState | None = None
        self.final = False
        self._done, self._total, self._played, self._void = 0, 0, 0, 0
        self._started = time.monotonic()
        self._last_refresh = 0.0
        self._interval_s = REFRESH_EVERY_S
        self._refresh_board()
        self.live = Live(_Screen(self), console=console, refresh_per_second=4, transient=False)

    def body(self, limit: int):
        parts: list[RenderableType] = []
        if self.standings is not None:
            # No game count in the title mid-run: the progress line has the count, never behind.
            parts.append(leaderboard_renderable(self.standings, f"{self.config.name}: standings",
                                                limit=limit, game_count=self.final))
        if self._test is not None:
            parts.append(Text(test_line(self._test), style="bold", overflow="fold"))
        return Group(*parts)

    def progress_line(self) -> str:
        if not self._total:
            return "starting..."
        return progress_text(self._done, self._total, self._played, time.monotonic() - self._started,
                             stops_early=self.test_status is not None, void=self._void, ended=self.final)

    def footer(self, width: int) -> Table:
        """The progress line, on one line of `width`: the bar takes what the name and the words leave."""
        name = self.config.name if len(self.config.name) <= 24 else self.config.name[:23] + "…"
        words = self.progress_line()
        bar_width = width - len(name) - len(words) - 2
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        if bar_width >= 6:
            grid.add_column(width=min(bar_width, 40), no_wrap=True)
        grid.add_column(no_wrap=True, overflow="ellipsis")
        bar = [ProgressBar(total=max(self._total, 1), completed=self._done)] if bar_width >= 6 else []
        grid.add_row(Text(name, style="bold"), *bar, words)
        return grid

    def __enter__(self) -> "LiveBoard":
        self.live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.final = True
        self._refresh_board()
        self.live.refresh()
        self.live.__exit__(*exc)

    def update(self, progress) -> None:
        self._done, self._total, self._played = progress.done, progress.total, progress.played_now
        self._void = progress.void
        self._started = progress.started_at
        now = time.monotonic()
        if now - self._last_refresh >= self._interval_s or progress.done == progress.total:
            self._refresh_board()

    def _refresh_board(self) -> None:
        started = time.monotonic()
        # Mid-run, by points per game: the ranking that does not favour bots whose tables came first.
        by_points_per_game = True if not self.final else self.config.ranks_by_points_per_game
        standings = rated_standings(self.store, self.config, by_points_per_game=by_points_per_game)
        if self._total:  # the final board's title says when the tournament is not complete
            standings = dataclasses.replace(standings, completeness=Completeness(self._done, self._total, self._void))
        self._test = self.test_status() if self.test_status is not None else None
        self.standings = standings
        if self.on_refresh is not None:
            self.on_refresh(self.final, self.progress_line())
        self._last_refresh = time.monotonic()
        self._interval_s = max(REFRESH_EVERY_S, REFRESH_COST_FACTOR * (self._last_refresh - started))
