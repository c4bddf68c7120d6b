"""The ratings of a results store, read from the counts it keeps per block of stored games
(rating_totals.py): the fit of all of them, and its history, the fit after each block.

The fit of all games is made from the whole counts, in the order of sorted names and sets, from
thetas of zero: a function of the counts alone, so the same number wherever it is read. The
history's points start each from the one before (fewer Newton steps to the same maximum): they too
are a function of the stored counts, block by block.

A live view keeps its RatingsReader between refreshes: a block whose count of changes is the same
as at the last read keeps its counts and its point of the history, so a refresh reads the blocks
the new games went to and fits from there on (a few ms), however many games are stored. A file
of an older schema, read as it is, has no kept blocks: they are summed from its games."""

from __future__ import annotations

import numpy as np

from arena.results import rating_totals
from arena.results.plackett_luce import fit
from arena.results.ratings import Ratings, ratings_of, scaled
from arena.results.store import ResultStore


# A point of the history is fitted to within this of its thetas (0.02 rating points), which a
# chart cannot show: from the point before, a step or two; the ratings themselves to STEP_TOLERANCE.
HISTORY_TOLERANCE = 1e-4


class RatingsReader:
    """The blocks' counts and the history's points as last read (see the module docstring)."""

    def __init__(self) -> None:
        self._forget()

    def _forget(self) -> None:
        """Nothing kept: every block is read anew."""
        self._shift: int | None = None
        self._names: list[str] = []  # every bot met, in the order met
        self._sets: list[tuple[int, ...]] = []  # every stage set met (indices into _names)
        self._name_index: dict[str, int] = {}
        self._set_index: dict[str, int] = {}  # by the set's text
        self._blocks: dict[int, tuple[int, dict[int, int], dict[int, int]]] = {}  # block -> (changes, sets, wins)
        # The history's points: (block, changes), games up to it, thetas and ratings by bot, and the
        # counts up to it (of sets and of wins, by the order met).
        self._points: list[tuple[tuple[int, int], int, dict[str, float], dict[str, float], np.ndarray, np.ndarray]] = []
        # The whole counts as last fitted: names, incidence of the sets, their games, the wins (sorted).
        self.counts: tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray] | None = None

    def read(self, store: ResultStore) -> Ratings:
        """The ratings of the games `store` holds now, with their history."""
        with store._read() as db:
            if rating_totals.present(db):
                (shift,) = db.execute("SELECT shift FROM totals_blocks").fetchone() or (0,)
                if shift != self._shift:
                    self._forget()  # the blocks were merged: every block is new
                    self._shift = shift
                blocks = [(block, games, changes) for block, games, changes in rating_totals.block_changes(db) if games]
                stale = [block for block, _, changes in blocks if self._blocks.get(block, (None,))[0] != changes]
                sets, wins = rating_totals.block_counts(db, stale)
            else:  # an older file: summed from its games, every time
                self._forget()
                blocks, sets, wins = rating_totals.summed_counts(db, rating_totals.shift_for(db))
                stale = [block for block, _, _ in blocks]
        changes = {block: change for block, _, change in blocks}
        self._take(stale, changes, sets, wins)
        for gone in set(self._blocks) - set(changes):
            del self._blocks[gone]
        return self._ratings([(block, games, changes[block]) for block, games, _ in blocks])

    def _take(self, stale: list[int], changes: dict[int, int], sets: list, wins: list) -> None:
        """The counts of the `stale` blocks, as read, in place of those kept."""
        taken: dict[int, tuple[dict[int, int], dict[int, int]]] = {block: ({}, {}) for block in stale}
        for block, text, games in sets:
            index = self._set_index.get(text)
            if index is None:
                members = tuple(sorted(self._name(name) for name in text.split(",")))
                index = self._set_index[text] = len(self._sets)
                self._sets.append(members)
            counts = taken[block][0]
            counts[index] = counts.get(index, 0) + games
        for block, name, stages in wins:
            counts = taken[block][1]
            index = self._name(name)
            counts[index] = counts.get(index, 0) + stages
        for block, (set_counts, win_counts) in taken.items():
            self._blocks[block] = (changes[block], set_counts, win_counts)

    def _name(self, name: str) -> int:
        index = self._name_index.get(name)
        if index is None:
            index = self._name_index[name] = len(self._names)
            self._names.append(name)
        return index

    def _ratings(self, blocks: list[tuple[int, int, int]]) -> Ratings:
        """The fit of all blocks and the history, refitting the points from the first block changed.
        Every fit takes its counts in sorted order of names and sets (those with counts: the same
        arrays whichever bots and sets earlier reads met), each point from the one before, the
        first from zero: a function of the stored counts alone, read once or refreshed."""
        names = tuple(sorted(self._names))
        by_name = sorted(range(len(self._names)), key=self._names.__getitem__)
        position = {old: new for new, old in enumerate(by_name)}
        members = [tuple(sorted(position[bot] for bot in found)) for found in self._sets]
        by_set = sorted(range(len(members)), key=members.__getitem__)
        incidence = np.zeros((len(by_set), len(names)))
        for row, index in enumerate(by_set):
            for bot in members[index]:
                incidence[row, bot] += 1
        keys = [(block, changes) for block, _, changes in blocks]
        kept = 0
        while kept < min(len(keys), len(self._points)) and self._points[kept][0] == keys[kept]:
            kept += 1
        del self._points[kept:]
        set_games, wins = np.zeros(len(self._sets), dtype=np.int64), np.zeros(len(self._names), dtype=np.int64)
        if self._points:  # the counts up to the last point kept (bots and sets met since: none yet)
            set_games[:len(self._points[-1][4])] = self._points[-1][4]
            wins[:len(self._points[-1][5])] = self._points[-1][5]
        games = self._points[-1][1] if self._points else 0
        for (block, changes), (_, block_games, _) in zip(keys[kept:], blocks[kept:]):
            self._add(block, set_games, wins)
            games += block_games
            before = self._points[-1][2] if self._points else None
            start = None if before is None else np.array([before.get(name, np.nan) for name in names])
            point = fit(incidence, set_games[by_set], wins[by_name], start=start, covariance=False,
                        tolerance=HISTORY_TOLERANCE)
            self._points.append(((block, changes), games, dict(zip(names, point.theta)), scaled(names, point),
                                 set_games.copy(), wins.copy()))
        history = tuple((point[1], point[3]) for point in _sampled(self._points))
        self.counts = (names, incidence, set_games[by_set], wins[by_name])
        whole = fit(*self.counts[1:])  # from zero: the counts alone decide
        if history:  # its last point is the ratings, to the last float
            history = history[:-1] + ((history[-1][0], scaled(names, whole)),)
        return ratings_of(names, whole, history)

    def _add(self, block: int, set_games: np.ndarray, wins: np.ndarray) -> None:
        _, set_counts, win_counts = self._blocks[block]
        for index, games in set_counts.items():
            set_games[index] += games
        for index, stages in win_counts.items():
            wins[index] += stages


def _sampled(points: list) -> list:
    """At most rating_totals.MAX_BLOCKS points, evenly taken, the last always (an older file's
    blocks, summed from its games, or a file whose ids jumped, can be more)."""
    if len(points) <= rating_totals.MAX_BLOCKS:
        return points
    step = len(points) / rating_totals.MAX_BLOCKS
    return [points[min(len(points) - 1, int((i + 1) * step) - 1)] for i in range(rating_totals.MAX_BLOCKS)]


def read_ratings(store: ResultStore) -> Ratings:
    """The ratings of `store`'s games, read once (a report)."""
    return RatingsReader().read(store)


__all__ = ["RatingsReader", "read_ratings"]
