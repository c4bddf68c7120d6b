"""A run's standings page (`arena tournament run --html FILE`): the HTML report, rewritten whole at
most every LIVE_PAGE_EVERY_S while the run goes on (reloading itself as often, with the run's
progress line), and once more, final, at the end. It ranks and rates as every report does: the
results object's standings (arena/tournament/results.py). Beside it, in FILE-games/, the pages of
the games the run stores, to step through (arena/report/game_pages.py), which it links to: their
list, and the latest games."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Callable, Sequence

from arena.errors import ArenaError
from arena.report import html
from arena.report.game_pages import LivePages
from arena.tournament.output_files import write_output
from arena.tournament.results import TournamentResults

log = logging.getLogger(__name__)

LIVE_PAGE_EVERY_S = 5


def write_page(path: Path, results: TournamentResults, refresh_s: int | None = None, progress: str | None = None,
               games_href: str | None = None, latest: Sequence[tuple[int, str, str]] = ()) -> None:
    """The HTML report at `path`, replaced whole (a reader never sees half a page); `refresh_s`: the
    live page, reloading itself, while the run goes on, with the run's `progress` line; `games_href`
    and `latest`: its links to the game pages (their list; (number, link, words) of the latest
    games). Raises OSError, or ArenaError for a name that is not a regular file (a link or FIFO put
    in its place mid-run: arena/tournament/output_files.py)."""
    page = html.to_html(results.standings(), results.config.name, refresh_s=refresh_s, progress=progress,
                        games_href=games_href, latest=latest)
    write_output(path, page, "--html")


class LivePage:
    """The --html page of a run, kept by its live board's refreshes (`on_refresh`). A page that
    cannot be written mid-run is said once (`warn`) and left: the run and its results come first;
    so are its game pages, and the page goes on without their links."""

    def __init__(self, path: Path, results: TournamentResults, warn: Callable[[str], None]) -> None:
        self.path, self.results, self.warn = path, results, warn
        self.written_at = 0.0
        self.broken = False
        self.pages: LivePages | None = LivePages(path, results)  # the game pages beside it

    def __call__(self, final: bool, progress: str) -> None:
        if self.broken or (not final and time.monotonic() - self.written_at < LIVE_PAGE_EVERY_S):
            return
        href, latest = self._game_pages(final)
        try:
            write_page(self.path, self.results, None if final else LIVE_PAGE_EVERY_S, None if final else progress,
                       games_href=href, latest=latest)
        except (OSError, ArenaError) as exc:
            self.broken = True
            log.debug("the --html page %s is not written", self.path, exc_info=True)
            said = exc.strerror or exc if isinstance(exc, OSError) else str(exc).removeprefix(f"--html {self.path}: ")
            self.warn(f"cannot write --html {self.path}: {said}; the run goes on without it")
        self.written_at = time.monotonic()

    def _game_pages(self, final: bool) -> tuple[str | None, list[tuple[int, str, str]]]:
        """The pages of the games stored since the last write (every page at the end), and the
        page's links to them."""
        if self.pages is None:
            return None, []
        try:
            latest = self.pages.finish() if final else self.pages.update()
        except (OSError, ArenaError) as exc:
            log.debug("the game pages in %s are not written", self.pages.folder, exc_info=True)
            said = exc.strerror or exc if isinstance(exc, OSError) else exc
            self.warn(f"cannot write the game pages in {self.pages.folder}: {said}; "
                      "the page goes on without them")
            self.pages = None
            return None, []
        return self.pages.index_href, latest


__all__ = ["LIVE_PAGE_EVERY_S", "LivePage", "write_page"]
