"""The live tournament display: leaderboard and progress, refreshed while games are committed.

The progress line is always on screen: the board above it gives up rows ("+N more") when the
terminal is too short for both, since a board cropped by the terminal took the progress with it;
in 80 columns, or too few lines for the bordered table's every bot, it is the compact table, a line
a bot. The board ranks as every report does, by points per game (games beside it): on totals, a
bot whose tables came first would lead while the run goes on, or when it is stopped. Its
standings and ratings are the results object's (arena/tournament/results.py), the same numbers as
`arena standings` gives for the same stored games."""

from __future__ import annotations

import time

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from arena.report.league import next_table_line
from arena.report.standings import leaderboard_renderable
from arena.results.sprt import SprtState
from arena.results.standings import Completeness, Standings
from arena.tournament.results import TournamentResults

# Standings are recomputed from the database at most this often, and never more often than ten
# times their own cost: on a file out of the OS cache, or a slow disk, the display slows down
# instead of the run (benchmarks/standings.py times a refresh).
REFRESH_EVERY_S = 1.0
REFRESH_COST_FACTOR = 10.0


def test_line(state) -> str:
    """The SPRT's standing on the live board: the LLR against its two bounds, and the games read."""
    s = state.settings
    if state.decided:
        return f"SPRT: {state.sentence()}"
    return (f"SPRT {state.challenger} vs {state.baseline}: LLR {state.llr_text()} (H0 at {s.lower:.2f}, H1 at "
            f"{s.upper:.2f}) after {state.deal_sets} deal sets, {state.games:,} games")


def clock(seconds: float) -> str:
    """1:02, or 1:02:03 past an hour."""
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def progress_text(done: int, total: int, played_now: int, elapsed_s: float, stops_early: bool = False,
                  void: int = 0, ended: bool = False, open_ended: bool = False) -> str:
    """ "1,234/6,000 games, 41 games/s, 1:02 elapsed, about 1:56 left" (the rate of this run's games),
    with ", 12 void" after the count while this run has games it could not play; no time left
    once the run has `ended` (stopped, or ended with games void). A league (`open_ended`) has no
    total to reach: "1,234 games" counts what is stored, and no time is said to be left."""
    rate = played_now / elapsed_s if elapsed_s > 0 else 0.0
    counted = f"{done:,} games" if open_ended else f"{done:,}/{total:,} games"
    parts = [counted + (f", {void:,} void" if void else ""),
             f"{rate:.0f} games/s" if rate >= 10 else f"{rate:.1f} games/s", f"{clock(elapsed_s)} elapsed"]
    if done < total and rate > 0 and not ended and not open_ended:
        left = clock((total - done) / rate)
        parts.append(f"at most {left} left" if stops_early else f"about {left} left")
    return ", ".join(parts)


class _Screen:
    """The board and, under it, the progress line: the board shrinks to leave the progress room."""

    def __init__(self, board: "LiveBoard") -> None:
        self.board = board

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # Read once: the display's thread draws while the run's thread ends the board, and a frame
        # half final (the final board's title in a frame cut to the screen) was a second final board.
        final = self.board.final
        footer = self.board.footer(options.max_width, ended=final)
        room = (options.height or console.height) - len(console.render_lines(footer, options, pad=False))
        if final:
            room = 10**6  # the last board stays on screen whole, scrolling as any output does
        for line in self._fitted(console, options, room, final)[:max(room, 0)]:
            yield from line
            yield Segment.line()
        yield footer

    def _fitted(self, console: Console, options: ConsoleOptions, room: int, final: bool) -> list[list[Segment]]:
        """The board's lines with as many bots as fit in `room` lines: every bot in the bordered
        table if they fit, else in the compact table (a line a bot, fewer lines around them), as
        many as fit, found by a binary search. Dropping as many bots as there were lines too many
        left a board of bots that each took two lines half empty ("+7 more" and 5 empty rows);
        dropping them one by one, rendering each time, four times a second, cost a large field
        most of the organiser's time."""
        standings = self.board.standings
        bots = len(standings.bots) if standings is not None else 0
        lines = console.render_lines(self.board.body(bots, final=final), options, pad=False)
        if len(lines) <= room:
            return lines
        # Cropped if too long:
        fitting = console.render_lines(self.board.body(0, compact=True, final=final), options, pad=False)
        low, high = 1, bots
        while low <= high:
            limit = (low + high) // 2
            tried = console.render_lines(self.board.body(limit, compact=True, final=final), options, pad=False)
            if len(tried) <= room:
                fitting, low = tried, limit + 1
            else:
                high = limit - 1
        return fitting


class LiveBoard:
    """Context manager; `update` is the tournament runner's progress callback."""

    def __init__(self, results: TournamentResults, console: Console, on_refresh=None) -> None:
        """`results`: the run's own (TournamentResults.on_store); `on_refresh(final, progress line)`:
        called after each refresh of the board (the live HTML page)."""
        self.results, self.config, self.console = results, results.config, console
        self.on_refresh = on_refresh
        self.standings: Standings | None = None
        self._test: SprtState | None = None
        self.final = False
        self._done, self._total, self._played, self._void = 0, 0, 0, 0
        self._done_less_stored: int | None = None  # the progress's count minus the store's: see _catch_up
        self._started = time.monotonic()
        self._last_refresh = 0.0
        self._interval_s = REFRESH_EVERY_S
        self._refresh_board()
        self.live = Live(_Screen(self), console=console, refresh_per_second=4, transient=False)

    def body(self, limit: int, compact: bool = False, final: bool | None = None):
        """The board with its first `limit` bots; `compact`: the compact table even where the
        bordered one fits the width (arena/report/standings.py); `final`: the run's last board
        (default: whether the board has ended)."""
        parts: list[RenderableType] = []
        if self.standings is not None:
            # No game count in the title mid-run: the progress line has the count, never behind.
            parts.append(leaderboard_renderable(self.standings, f"{self.config.name}: standings", limit=limit,
                                                game_count=self.final if final is None else final, compact=compact))
        if self._test is not None:
            # Wrapped at words, also on a soft-wrapping console (ours), whose live display crops a
            # long line: the test's standing was cut mid-sentence at 80 and 120 columns.
            parts.append(Text(test_line(self._test), style="bold", no_wrap=False, overflow="fold"))
        queued = None if self.standings is None or self.standings.league is None else next_table_line(self.standings.league)
        if queued is not None and not self.final:  # a league's next table, cut to one line
            parts.append(queued)
        return Group(*parts)

    def progress_line(self, ended: bool | None = None) -> str:
        if not self._total:
            return "starting..."
        return progress_text(self._done, self._total, self._played, time.monotonic() - self._started,
                             stops_early=bool(self.config.sprt), void=self._void,
                             ended=self.final if ended is None else ended,
                             open_ended=self.config.kind.open_ended and not self.config.frozen)

    def footer(self, width: int, ended: bool | None = None) -> Table:
        """The progress line, on one line of `width`: the bar takes what the name and the words leave."""
        name = self.config.name if len(self.config.name) <= 24 else self.config.name[:23] + "…"
        words = self.progress_line(ended)
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
        if exc[0] is not None:
            self._catch_up()
        self._refresh_board(final=True)
        # The live display's stop draws the final board, once: a refresh of ours before it drew it
        # twice, which every capture of the terminal (and a terminal short of lines) showed.
        self.live.__exit__(*exc)

    def update(self, progress) -> None:
        self._done, self._total, self._played = progress.done, progress.total, progress.played_now
        self._void = progress.void
        self._started = progress.started_at
        if self._done_less_stored is None:  # once: a count of the whole table is not free
            self._done_less_stored = self._stored_games(default=progress.done) - progress.done
        now = time.monotonic()
        if now - self._last_refresh >= self._interval_s or progress.done == progress.total:
            self._refresh_board()

    def _stored_games(self, default: int) -> int:
        stored = self.results.game_count()
        return default if stored is None else stored  # a file locked or damaged: the board keeps its count

    def _catch_up(self) -> None:
        """A stopped run's last count, from the store: a Ctrl-C landing in a game's commit (the
        longest step of the runner's loop, its fsync) is raised once the commit returns, before
        the game's progress call. The board said 1,359 games, the stop message 1,360 stored."""
        if self._done_less_stored is None:
            return  # stopped before the run's first progress: nothing to count from
        missed = self._stored_games(default=self._done + self._done_less_stored) - self._done_less_stored - self._done
        if missed > 0:
            self._done, self._played = self._done + missed, self._played + missed

    def _refresh_board(self, final: bool = False) -> None:
        started = time.monotonic()
        ended = final or self.final
        # The run's own count (the file's may be a game behind its progress), once it has one.
        # A league's is the results' own: it is never complete while it goes on.
        league = self.results.config.kind.open_ended
        done = Completeness(self._done, self._total, self._void) if self._total and not league else None
        standings = self.results.standings(head_to_head=False, completeness=done)
        self._test = standings.test
        self.standings = standings
        if self.on_refresh is not None:
            self.on_refresh(ended, self.progress_line(ended))
        # Only now the screen is the final one: the display's own refreshes (a thread) must not draw
        # it while the last standings and page are made, and its stop draw it again.
        self.final = ended
        self._last_refresh = time.monotonic()
        self._interval_s = max(REFRESH_EVERY_S, REFRESH_COST_FACTOR * (self._last_refresh - started))
