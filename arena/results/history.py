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
    deal_sets: int = 0

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
    """The figures of every (bot, version) that played superseded games and is not what the
    standings count (`current`: bot -> the version its counted games were played at), by bot and
    then in the order the versions left the standings. `superseded`: the store's SupersededGame
    values, in the order they left the standings.

    A version's figures count each game of the schedule once: its last superseded game of that
    key. A table replayed because another bot changed leaves two superseded games of one key for
    the bots that did not change; both counted, a version showed more games than the schedule has."""
    gone = set(withdrawn)
    games_of: dict[str, dict[str, object]] = {}  # "bot@version" -> game key -> its last superseded game
    for game in superseded:
        row = game.row
        versions = (row.extra or {}).get("versions") or {}
        labels = tuple(f"{name}@{versions.get(name, '')}" for name in row.bots)
        relabelled = dataclasses.replace(row, bots=labels, extra={})
        for name, label in zip(row.bots, labels):
            if name not in gone and current.get(name) == versions.get(name, ""):
                continue  # a bot as the standings count it, met at an earlier version's table
            games_of.setdefault(label, {})[row.key] = relabelled
    figures = []
    for label, games in games_of.items():  # in the order the versions first left the standings
        bot, _, version = label.rpartition("@")
        b = next(s for s in standings_from_rows(games.values()).bots if s.bot == label)
        why = WITHDRAWN if bot in gone and current.get(bot) == version else RESUBMITTED
        figures.append(VersionFigures(bot, version, why, b.games, b.points, b.points_per_game, b.ci95_low,
                                      b.ci95_high, b.wins, b.skitgubbe, b.faults, b.deal_sets))
    return tuple(sorted(figures, key=lambda f: f.bot))  # a stable sort: each bot's versions oldest first
