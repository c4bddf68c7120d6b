"""The ratings and timeline a run's live views show while it goes on: cheap at every refresh.

The ratings of a report take the games in game-number order (arena/results/ratings.py). A run
plays a table's games one after another, and game numbers pair tables with deals, so while it
goes on most stored games are numbered beyond some game still to come: rated in number order,
every refresh would rate them all again (41 s on a million games). The live views rate the games
in the order they were stored instead, each game once, as it comes: a refresh costs the games
stored since the last one. Those ratings are provisional (the order depends on the workers) and
the views say so; the run's final board, once it ends normally, and every report rate in game
order."""

from __future__ import annotations

from arena.results import rating_checkpoint, standings, totals
from arena.results.rating_checkpoint import Checkpoint
from arena.results.ratings import Rating, _Rater, held_checkpoint
from arena.results.standings import sample_positions
from arena.results.store import ResultStore
from arena.schedule.numbers import GameNumbers


class PlayOrderRatings:
    """The pass over a run's stored games in the order they were stored, kept between refreshes."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._rater = _Rater()
        self._started = False
        self._last_id = 0
        self._games = 0
        self._cumulative: dict[str, int] = {}
        # The ratings' checkpoint the pass started from (results/rating_checkpoint.py), if any: the
        # games it counted are in game order, its snapshots serve the timeline within them.
        self._checkpoint: Checkpoint | None = None
        self._snapshots: dict[int, dict[str, int]] = {}  # every SNAPSHOT games: the timeline of a large run
        # The first games' points, while the timeline samples between snapshots (a small run).
        self._early: list[tuple[list[str], list[int]]] = []

    def update(self, store: ResultStore, numbers: GameNumbers) -> tuple[dict[str, Rating], list[tuple[int, dict[str, int]]]]:
        """The ratings and the timeline (sampled as the reports' is) after every stored game."""
        with store._read() as db:
            rows = [] if self._started else self._start(db, numbers)
            rows += db.execute("SELECT id, bots, finishing_order, points FROM games WHERE id > ? ORDER BY id",
                               (self._last_id,)).fetchall()
            stored = (db.execute("SELECT games FROM totals_games").fetchone() if totals.present(db)
                      else db.execute("SELECT COUNT(*) FROM games").fetchone()) or (0,)
            if self._games + len(rows) != stored[0]:  # games left the results (not in a run): start again
                self._reset()
                rows = self._start(db, None) + db.execute(
                    "SELECT id, bots, finishing_order, points FROM games ORDER BY id").fetchall()
            self._take(rows)
            return self._rater.ratings(), self._timeline(db)

    def _start(self, db, numbers: GameNumbers | None) -> list:
        """Start from the ratings' checkpoint where one still holds (ratings.held_checkpoint): the
        games it counted are rated in game order already; returns the rows of the others stored up
        to it, to take first."""
        self._started = True
        held = held_checkpoint(db, numbers) if numbers is not None else None
        if held is None or held[0].games <= rating_checkpoint.SNAPSHOT * standings.TIMELINE_POINTS:
            return []  # none, or a small tournament's: its timeline samples between the snapshots
        start, _, beyond = held  # those stored since it are read with the new ones
        self._checkpoint = start
        self._rater = _Rater({name: Rating(mu, sigma) for name, (mu, sigma) in start.ratings.items()})
        self._cumulative, self._games, self._last_id = dict(start.cumulative), start.games, start.max_id
        return [(row[0], *row[4:]) for row in beyond]

    def _take(self, rows: list) -> None:
        early_limit = rating_checkpoint.SNAPSHOT * standings.TIMELINE_POINTS
        for game_id, bots, order, points in rows:
            names, got = bots.split(","), [int(p) for p in points.split(",")]
            self._rater.add(names, [int(seat) for seat in order.split(",")])
            for name, p in zip(names, got):
                self._cumulative[name] = self._cumulative.get(name, 0) + p
            self._games += 1
            if self._games <= early_limit:
                self._early.append((names, got))
            if self._games % rating_checkpoint.SNAPSHOT == 0:
                self._snapshots[self._games] = dict(self._cumulative)
            self._last_id = max(self._last_id, game_id)

    def _timeline(self, db) -> list[tuple[int, dict[str, int]]]:
        played = sorted(self._cumulative)
        positions = sample_positions(self._games)
        if self._checkpoint is not None:
            within = [p for p in positions if p <= self._checkpoint.games and p not in self._snapshots]
            self._snapshots.update(rating_checkpoint.snapshots_at(db, self._checkpoint, within) or {})
        between = [p for p in positions if p != self._games and p not in self._snapshots]
        summed: dict[int, dict[str, int]] = {}
        if between:  # a small run: its samples fall between snapshots, summed from its first games
            cumulative: dict[str, int] = {}
            wanted = iter(between)
            next_at = next(wanted)
            for index, (names, got) in enumerate(self._early, start=1):
                for name, p in zip(names, got):
                    cumulative[name] = cumulative.get(name, 0) + p
                if index == next_at:
                    summed[index] = dict(cumulative)
                    next_at = next(wanted, 0)
                    if not next_at:
                        break
        timeline = []
        for position in positions:
            at = self._cumulative if position == self._games else self._snapshots.get(position, summed.get(position))
            if at is not None:  # else a snapshot the checkpoint lost: a point less on a provisional chart
                timeline.append((position, {name: at.get(name, 0) for name in played}))
        return timeline


__all__ = ["PlayOrderRatings"]
