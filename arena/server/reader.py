"""What the league server reads of the league's results, through the one results object every view
reads (arena/tournament/results.py), on one thread of its own: SQLite connections stay with the
thread that opened them, and the pages' event loop never waits on a query.

The board (standings, queue, latest games) is worked out at most once a poll of the live hub
(arena/server/league.py), when a game was stored since, and shared by every reader and every live
client: a hundred readers cost nothing more, and no page waits on the results' thread for it. The results
are opened again when the config changes (a bot entered) or the results file appears (the league's
first game)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from arena.errors import ArenaError
from arena.results.rows import StoreError
from arena.tournament.results import TournamentResults

log = logging.getLogger(__name__)
T = TypeVar("T")
RECENT_GAMES = 20
# The ratings chart is a quarter of a board's work and two thirds of its bytes (22 of 36 KB for 15
# bots), and moves slowly: it is drawn again at most this often, the standings with every board.
CHART_EVERY_S = 30.0


@dataclass(frozen=True)
class Board:
    """The leaderboard as every reader sees it at one moment."""

    last_game_id: int
    standings: dict[str, Any] = field(default_factory=dict)  # `arena standings --format json`'s
    html: str = ""  # the standings part of the page (arena/report/html.py: standings_part)
    chart: str = ""  # the ratings chart under it (ratings_part)
    chart_points: int = 0  # the points of the ratings' history it was drawn from
    chart_game: int = -1  # the last game of the board it was drawn with: a newer one, a new chart
    queue: tuple[dict[str, Any], ...] = ()  # the league's next tables, each with why
    recent: tuple[dict[str, Any], ...] = ()  # the latest games, newest first
    csv: str = ""
    note: str = ""  # why there is no board yet ("no game yet"), else ""
    bots: tuple[str, ...] = ()  # the league's entries, as its results have them
    league: str = ""  # its name


class LeagueReader:
    """The league's results, read on one thread (see the module docstring)."""

    def __init__(self, config_path: Path) -> None:
        self.config_path = config_path
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-results")
        self._results: TournamentResults | None = None
        # What the results were opened for: the config's mtime and the results file's identity (its
        # device and inode, not its mtime, which moves as the league writes, at each checkpoint of
        # its log: no reason to open it again).
        self._opened_for: tuple[float, tuple[int, int] | None] | None = None
        self._database_of: tuple[float, Path] | None = None  # the config's mtime, the results file it names
        self._board = Board(-1, note="no game yet")
        self._chart_at = -math.inf  # when the board's chart was drawn (monotonic seconds)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` on the results' thread."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, work, *args)

    def close(self) -> None:
        def shut() -> None:
            if self._results is not None:
                self._results.close()
                self._results = None
        self._pool.submit(shut).result()
        self._pool.shutdown(wait=True)

    # ---- on the results' thread ---------------------------------------------------------------

    def results(self) -> TournamentResults | None:
        """The results as they stand (None before the league's first game is stored)."""
        config_mtime = _mtime(self.config_path)
        if self._database_of is None or self._database_of[0] != config_mtime:  # read the config only when it changed
            self._database_of = (config_mtime, self._database())
        stamp = (config_mtime, _file_id(self._database_of[1]))
        if self._results is not None and stamp == self._opened_for:
            return self._results
        earlier, self._results, self._opened_for = self._results, None, None
        try:
            self._results = TournamentResults.open(self.config_path)
            if earlier is not None:  # a bot entered: the ratings go on from their counts (a full refit held the GIL)
                self._results.keep_ratings_of(earlier)
            self._opened_for = stamp
        except (ArenaError, StoreError) as exc:
            log.debug("results of %s not open: %s", self.config_path, exc)
        finally:
            if earlier is not None:
                earlier.close()
        return self._results

    def _database(self) -> Path:
        from arena.tournament.config import load_config

        try:
            return load_config(self.config_path).database
        except ArenaError:
            return self.config_path.with_suffix(".sqlite")

    def board(self) -> Board:
        """The board, worked out again only when a game was stored since."""
        results = self.results()
        if results is None:
            return self._board
        try:
            last = results.last_game_id()
            if last == self._board.last_game_id:
                return self._board
            chart_due = time.monotonic() - self._chart_at >= CHART_EVERY_S or not self._board.chart_points
            self._board = _board(results, last, None if chart_due else self._board)
            if chart_due:
                self._chart_at = time.monotonic()
        except StoreError as exc:  # the file replaced under us: open it again next time
            log.warning("reading the league's results: %s", exc)
            self._opened_for = None
        return self._board


def _board(results: TournamentResults, last: int, keep_chart_of: Board | None) -> Board:
    """The board of the games stored up to `last`, with the ratings chart of `keep_chart_of` (None:
    drawn now)."""
    from arena.report import html
    from arena.report.export import to_csv, to_dict

    standings = results.standings(with_history=False)
    recent = tuple(line.as_dict() for line in results.newest_games(limit=RECENT_GAMES))
    table = html.standings_part(standings)
    if keep_chart_of is None:
        chart, points = html.ratings_part(standings), len(standings.ratings.history) if standings.ratings else 0
        chart_game = last
    else:
        chart, points, chart_game = keep_chart_of.chart, keep_chart_of.chart_points, keep_chart_of.chart_game
    return Board(last, to_dict(standings), table, chart, points, chart_game, _queue(results), recent,
                 to_csv(standings), bots=tuple(results.config.bots), league=results.config.name)


def _queue(results: TournamentResults) -> tuple[dict[str, Any], ...]:
    from arena.results.league_queue import QUEUED, league_tables

    return tuple({"table": t.number, "bots": list(t.bots), "reason": t.reason, "why": t.why}
                 for t in league_tables(results.store, QUEUED))


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return math.nan


__all__ = ["Board", "CHART_EVERY_S", "LeagueReader", "RECENT_GAMES"]
