"""The columns of the standings tables people read, defined once: the terminal leaderboard, the
Markdown and the HTML reports, and their tables of the versions out of the standings, take their
headers, their cells and their alignment from here. (The CSV and JSON exports are a data format
of their own, with machine names and full precision: arena/report/export.py.)"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from arena.results.ratings import format_rating


def per_game_text(b: Any) -> str:
    """Points per game with its 95% half-width, e.g. "1.23 ± 0.08" ("± n/a" with < 2 deal sets)."""
    if math.isnan(b.ci95_low) or math.isnan(b.ci95_high):
        return f"{b.points_per_game:.2f} ± n/a"
    return f"{b.points_per_game:.2f} ± {b.ci95_half_width:.2f}"


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    cell: Callable[[Any], str]  # a row's (a BotStanding's, or a version's out of the standings) text
    numeric: bool = True  # right-aligned
    kind: str = ""  # "version" (shown where versions are), "rating" (where ratings were computed), or always


RANK = Column("#", lambda b: str(b.rank))
BOT = Column("bot", lambda b: b.bot, numeric=False)
VERSION = Column("version", lambda b: b.version, numeric=False, kind="version")
WHY = Column("why", lambda f: f.why, numeric=False)
GAMES = Column("games", lambda b: str(b.games))
POINTS = Column("points", lambda b: str(b.points))
PER_GAME = Column("per game", per_game_text)
WINS = Column("wins", lambda b: str(b.wins))
SKITGUBBE = Column("skitgubbe", lambda b: str(b.skitgubbe))
FAULTS = Column("faults", lambda b: str(b.faults))
RATING = Column("rating", lambda b: format_rating(b.rating, b.rating_margin), kind="rating")
GROUP = Column("group", lambda b: str(b.rating_group) if b.rating_group else "-", kind="rating")

# The leaderboard: one row per bot in the standings.
# Faults right after the points: on a phone (400 px) the columns past the fifth or so are scrolled
# out of sight.
STANDINGS_COLUMNS: tuple[Column, ...] = (RANK, BOT, VERSION, GAMES, POINTS, FAULTS, PER_GAME, RATING, GROUP, WINS,
                                         SKITGUBBE)
# The leaderboard of an 80-column terminal (the live board's, mostly): the same figures under short
# heads, a line a bot, with the interval's half-width a column of its own so that the numbers line
# up. COMPACT_KEY, under the table, says what the short heads mean (of the columns shown).
HALF_WIDTH = Column("±", lambda b: "n/a" if math.isnan(b.ci95_low) or math.isnan(b.ci95_high)
                    else f"{b.ci95_half_width:.2f}")
COMPACT_COLUMNS: tuple[Column, ...] = (
    RANK, BOT, GAMES, Column("pts", POINTS.cell), Column("pts/g", lambda b: f"{b.points_per_game:.2f}"), HALF_WIDTH,
    WINS, Column("skit", SKITGUBBE.cell), FAULTS,
    Column("rate", lambda b: "n/a" if b.rating != b.rating else f"{b.rating:.0f}", kind="rating"),
    Column("g", GROUP.cell, kind="rating"))
COMPACT_KEY: dict[str, str] = {"±": "95% interval over deal sets", "skit": "skitgubbe", "rate": "rating",
                               "g": "rating group"}
# The versions out of the standings (earlier versions of resubmitted bots, withdrawn bots).
HISTORY_COLUMNS: tuple[Column, ...] = (BOT, VERSION, WHY, GAMES, POINTS, PER_GAME, WINS, SKITGUBBE, FAULTS)


def shown(columns: tuple[Column, ...], *, versions: bool = True, ratings: bool = True) -> tuple[Column, ...]:
    """The columns a table shows: without versions (an 80-column terminal) or ratings (not computed)."""
    return tuple(c for c in columns if (versions or c.kind != "version") and (ratings or c.kind != "rating"))


__all__ = ["Column", "STANDINGS_COLUMNS", "COMPACT_COLUMNS", "COMPACT_KEY", "HISTORY_COLUMNS", "shown", "per_game_text", "BOT", "FAULTS"]
