"""Figures of the versions out of the standings (`arena standings --history`): each bot version whose
games were superseded (the bot was resubmitted) or withdrawn, summed up from its superseded games
with the same maths as the standings (arena/results/standings.py). Pure."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Iterable, Mapping

from arena.results.standings import standings_from_rows

RESUBMITTED = "resubmitted"
WITHDRAWN = "withdrawn"


@dataclass(frozen=True, slots=True)
class VersionFigures:
    """One earlier bot version (or a withdrawn bot's), over its superseded games."""

    bot: str
    version: str
    why: str  # RESUBMITTED (a later version replaced it) or WITHDRAWN (the bot left the tournament)
    games: int
    points: int
    points_per_game: float
    ci95_low: float  # nan below two deal sets
    ci95_high: float
    wins: int
    skitgubbe: int
    faults: int

    @property
    def ci95_half_width(self) -> float:
        return (self.ci95_high - self.ci95_low) / 2

    def as_dict(self) -> dict:
        out = dataclasses.asdict(self)
        for key in ("ci95_low", "ci95_high"):
            out[key] = None if math.isnan(out[key]) else round(out[key], 4)
        out["points_per_game"] = round(self.points_per_game, 4)
        return out


def version_history(superseded: Iterable, current: Mapping[str, str], withdrawn: Iterable[str]) -> tuple[VersionFigures, ...]:
    """The figures of every (bot, version) that played superseded games and is not a current bot's
    current version (`current`: bot -> version); `superseded`: the store's SupersededGame values."""
    gone = set(withdrawn)
    relabelled = []
    for game in superseded:
        row = game.row
        versions = (row.extra or {}).get("versions") or {}
        labels = tuple(f"{name}@{versions.get(name, '')}" for name in row.bots)
        relabelled.append(dataclasses.replace(row, bots=labels, extra={}))
    figures = []
    for b in standings_from_rows(relabelled).bots:
        bot, _, version = b.bot.rpartition("@")
        if bot not in gone and current.get(bot) == version:
            continue  # a bot as it is now, met at an earlier version's table: its figures are the standings'
        figures.append(VersionFigures(bot, version, WITHDRAWN if bot in gone else RESUBMITTED, b.games, b.points,
                                      b.points_per_game, b.ci95_low, b.ci95_high, b.wins, b.skitgubbe, b.faults))
    return tuple(sorted(figures, key=lambda f: (f.bot, f.version)))
