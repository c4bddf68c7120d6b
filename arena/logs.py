"""What the arena logs and where it shows it. Every module logs through `logging.getLogger(__name__)`
what it swallows (a bot's process already gone when it is closed, a watchdog's stumble) with the
reason; nothing of it shows unless asked: `arena --verbose ...`, or ARENA_LOG=debug (or info,
warning) in the environment, which the tournament's worker processes inherit. Warnings show
always, on stderr."""

from __future__ import annotations

import logging
import os

LOG_ENV = "ARENA_LOG"
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}


def show_logs(level: str | None = None) -> None:
    """Show the arena's log on stderr from `level` up (default: ARENA_LOG's, else warnings only).
    A worker process calls it too, so that what it logs shows as its parent's does."""
    name = (level or os.environ.get(LOG_ENV) or "warning").lower()
    if level is not None:
        os.environ[LOG_ENV] = name  # the worker processes started from here show the same
    logger = logging.getLogger("arena")
    logger.setLevel(_LEVELS.get(name, logging.WARNING))
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("arena %(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


__all__ = ["LOG_ENV", "show_logs"]
