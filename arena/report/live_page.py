"""A run's standings page (`arena tournament run --html FILE`): the HTML report, rewritten whole at
most every LIVE_PAGE_EVERY_S while the run goes on (reloading itself as often, with the run's
progress line), and once more, final, at the end. It ranks and rates as every report does: the
results object's standings (arena/tournament/results.py)."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Callable

from arena.report import html
from arena.tournament.results import TournamentResults

log = logging.getLogger(__name__)

LIVE_PAGE_EVERY_S = 5


def write_page(path: Path, results: TournamentResults, refresh_s: int | None = None, progress: str | None = None) -> None:
    """The HTML report at `path`, replaced whole (a reader never sees half a page); `refresh_s`: the
    live page, reloading itself, while the run goes on, with the run's `progress` line. Raises OSError."""
    page = html.to_html(results.standings(), results.config.name, refresh_s=refresh_s, progress=progress)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(page, encoding="utf-8")
    os.replace(partial, path)


class LivePage:
    """The --html page of a run, kept by its live board's refreshes (`on_refresh`). A page that
    cannot be written mid-run is said once (`warn`) and left: the run and its results come first."""

    def __init__(self, path: Path, results: TournamentResults, warn: Callable[[str], None]) -> None:
        self.path, self.results, self.warn = path, results, warn
        self.written_at = 0.0
        self.broken = False

    def __call__(self, final: bool, progress: str) -> None:
        if self.broken or (not final and time.monotonic() - self.written_at < LIVE_PAGE_EVERY_S):
            return
        try:
            write_page(self.path, self.results, None if final else LIVE_PAGE_EVERY_S, None if final else progress)
        except OSError as exc:
            self.broken = True
            log.debug("the --html page %s is not written", self.path, exc_info=True)
            self.warn(f"cannot write --html {self.path}: {exc.strerror or exc}; the run goes on without it")
        self.written_at = time.monotonic()


__all__ = ["LIVE_PAGE_EVERY_S", "LivePage", "write_page"]
