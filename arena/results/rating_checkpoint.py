"""The ratings pass kept between reports, so that a report rates only the games beyond it.

Ratings and the standings' timeline are one pass over the games in game-number order
(arena/results/ratings.py); on a million games that pass took 41 s, paid by every report and every
refresh of the live board. A checkpoint keeps the pass's state after every stored game numbered up
to `upto`: each bot's (mu, sigma), the cumulative points, and the cumulative points at every
multiple of SNAPSHOT games (what the timeline samples of a large tournament: results/standings.py).
A report rates the stored games numbered above `upto` on top of it, in number order, which gives the
full pass's floats exactly: the same updates, in the same order, from the same state.

`upto` is only ever a number below which no game can still be stored: the run knows the first game
it has still to play, and a complete tournament has none. A checkpoint is used only when it still
describes the file: made under the same numbering, with every game it counted still there (a game
superseded or voided on request drops it: archive.py and voids.py delete it in the same
transaction), and no game stored since with a number up to `upto`. Otherwise the report makes the
full pass, and a new checkpoint when it may.

Kept in the table `rating_checkpoint`, one row of JSON, and its snapshots in `rating_snapshots`, a
row each (a report reads only the ones its timeline samples, a save adds only the new ones), written
in a transaction of its own that checks the games it counted are still all there; a file that
cannot be written (a read-only copy) just keeps making the full pass.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.results import totals

log = logging.getLogger(__name__)

# The timeline's snapshots within the checkpoint: every this many games (results/standings.py
# samples a large tournament's timeline at multiples of it).
SNAPSHOT = 256
_FORMAT = 2  # of the JSON: a checkpoint of another format is made again (1 kept its snapshots inside)


@dataclass
class Checkpoint:
    """The state of the pass after every stored game numbered up to `upto`."""

    numbering: str  # the game numbering it was made under (GameNumbers' parameters)
    upto: int  # every stored game numbered up to this is rated in; none such can be stored any more
    games: int  # how many games that is
    max_id: int  # the highest games.id it has seen (rated in, or listed in `beyond`)
    count_to_max_id: int  # how many games had an id up to max_id: fewer means some left
    beyond: list[int] = field(default_factory=list)  # ids up to max_id numbered above `upto`
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)  # bot -> (mu, sigma)
    cumulative: dict[str, int] = field(default_factory=dict)  # bot -> points in those games
    # (games, cumulative) every SNAPSHOT games: those `load` was asked for; to `save`, those it adds
    snapshots: list[tuple[int, dict[str, int]]] = field(default_factory=list)

    def to_json(self) -> str:
        data = {"format": _FORMAT, "numbering": self.numbering, "upto": self.upto, "games": self.games,
                "max_id": self.max_id, "count_to_max_id": self.count_to_max_id, "beyond": self.beyond,
                "ratings": {name: list(pair) for name, pair in self.ratings.items()},
                "cumulative": self.cumulative}
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "Checkpoint | None":
        try:
            data = json.loads(text)
            if data.get("format") != _FORMAT:
                return None
            return cls(str(data["numbering"]), int(data["upto"]), int(data["games"]), int(data["max_id"]),
                       int(data["count_to_max_id"]), [int(i) for i in data["beyond"]],
                       {str(k): (float(v[0]), float(v[1])) for k, v in data["ratings"].items()},
                       {str(k): int(v) for k, v in data["cumulative"].items()})
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            log.warning("a rating checkpoint that cannot be read: the ratings are computed from the games")
            return None


_SCHEMA = ("CREATE TABLE IF NOT EXISTS rating_checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), data TEXT NOT NULL)",
           "CREATE TABLE IF NOT EXISTS rating_snapshots (games INTEGER PRIMARY KEY, cumulative TEXT NOT NULL)")


def _exists(db: Any) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rating_snapshots'").fetchone() is not None


def load(db: Any, numbering: str) -> Checkpoint | None:
    """The checkpoint of the results `db` reads, if it still describes them (see the module's
    docstring; a game stored since with a number up to `upto` is the caller's to check), without
    its snapshots (`snapshots_at`)."""
    if not _exists(db):
        return None
    row = db.execute("SELECT data FROM rating_checkpoint WHERE id = 1").fetchone()
    found = Checkpoint.from_json(row[0]) if row else None
    if found is None or found.numbering != numbering:
        return None
    return found if _count_to(db, found.max_id) == found.count_to_max_id else None


def snapshots_at(db: Any, checkpoint: Checkpoint, counts: list[int]) -> dict[int, dict[str, int]] | None:
    """The cumulative points after each of `counts` games (all within the checkpoint's), from its
    snapshots and its own; None unless it holds every one."""
    found = {checkpoint.games: dict(checkpoint.cumulative)}
    wanted = sorted({count for count in counts if count != checkpoint.games})
    for first in range(0, len(wanted), 500):
        chunk = wanted[first:first + 500]
        for games, text in db.execute(f"SELECT games, cumulative FROM rating_snapshots WHERE games IN "
                                      f"({','.join('?' * len(chunk))})", chunk):
            try:
                found[games] = {str(k): int(v) for k, v in json.loads(text).items()}
            except (ValueError, TypeError, AttributeError):
                log.warning("a rating snapshot that cannot be read: the ratings are computed from the games")
                return None
    return found if all(count in found for count in counts) else None


def _count_to(db: Any, max_id: int) -> int:
    """How many games have an id up to `max_id`: from the kept total less the few stored since, where
    the file keeps totals (counting a million rows of the wide games table reads all of it)."""
    if totals.present(db):
        (games,) = db.execute("SELECT games FROM totals_games").fetchone() or (0,)
        (since,) = db.execute("SELECT COUNT(*) FROM games WHERE id > ?", (max_id,)).fetchone()
        return games - since
    (count,) = db.execute("SELECT COUNT(*) FROM games WHERE id <= ?", (max_id,)).fetchone()
    return count


def drop(db: Any) -> None:
    """Forget the checkpoint (in the caller's transaction): games it counted are leaving the results."""
    for table in ("rating_checkpoint", "rating_snapshots"):
        if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone():
            db.execute(f"DELETE FROM {table}")


def save(path: Path, checkpoint: Checkpoint) -> bool:
    """Keep `checkpoint` in the results at `path`, in a transaction of its own, unless the games it
    counted are no longer all there. False (logged) when the file cannot take it."""
    try:
        db = sqlite3.connect(path, timeout=1.0, isolation_level=None)
    except sqlite3.Error:
        log.debug("rating checkpoint not kept: %s cannot be opened for writing", path, exc_info=True)
        return False
    try:
        db.execute("BEGIN IMMEDIATE")
        if _count_to(db, checkpoint.max_id) != checkpoint.count_to_max_id:
            db.execute("ROLLBACK")
            return False
        for statement in _SCHEMA:
            db.execute(statement)
        db.execute("INSERT OR REPLACE INTO rating_checkpoint (id, data) VALUES (1, ?)", (checkpoint.to_json(),))
        # Snapshots past it were of another pass (games since superseded); the new ones are added.
        db.execute("DELETE FROM rating_snapshots WHERE games > ?", (checkpoint.games,))
        db.executemany("INSERT OR REPLACE INTO rating_snapshots (games, cumulative) VALUES (?, ?)",
                       [(games, json.dumps(cumulative, separators=(",", ":"))) for games, cumulative in checkpoint.snapshots])
        db.execute("COMMIT")
        return True
    except sqlite3.Error:
        log.debug("rating checkpoint not kept in %s", path, exc_info=True)
        return False
    finally:
        db.close()


__all__ = ["SNAPSHOT", "Checkpoint", "load", "snapshots_at", "drop", "save"]
