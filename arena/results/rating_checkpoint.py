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

Kept in the table `rating_checkpoint`, one row of JSON, written in a transaction of its own that
checks the games it counted are still all there; a file that cannot be written (a read-only copy)
just keeps making the full pass.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# The timeline's snapshots within the checkpoint: every this many games (results/standings.py
# samples a large tournament's timeline at multiples of it).
SNAPSHOT = 256
_FORMAT = 1  # of the JSON: a checkpoint of another format is made again


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
    snapshots: list[tuple[int, dict[str, int]]] = field(default_factory=list)  # (games, cumulative) every SNAPSHOT

    def to_json(self) -> str:
        data = {"format": _FORMAT, "numbering": self.numbering, "upto": self.upto, "games": self.games,
                "max_id": self.max_id, "count_to_max_id": self.count_to_max_id, "beyond": self.beyond,
                "ratings": {name: list(pair) for name, pair in self.ratings.items()},
                "cumulative": self.cumulative, "snapshots": [[n, c] for n, c in self.snapshots]}
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
                       {str(k): int(v) for k, v in data["cumulative"].items()},
                       [(int(n), {str(k): int(v) for k, v in c.items()}) for n, c in data["snapshots"]])
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            log.warning("a rating checkpoint that cannot be read: the ratings are computed from the games")
            return None


_SCHEMA = "CREATE TABLE IF NOT EXISTS rating_checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), data TEXT NOT NULL)"


def _exists(db: Any) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rating_checkpoint'").fetchone() is not None


def load(db: Any, numbering: str) -> Checkpoint | None:
    """The checkpoint of the results `db` reads, if it still describes them (see the module's
    docstring; a game stored since with a number up to `upto` is the caller's to check)."""
    if not _exists(db):
        return None
    row = db.execute("SELECT data FROM rating_checkpoint WHERE id = 1").fetchone()
    found = Checkpoint.from_json(row[0]) if row else None
    if found is None or found.numbering != numbering:
        return None
    (count,) = db.execute("SELECT COUNT(*) FROM games WHERE id <= ?", (found.max_id,)).fetchone()
    return found if count == found.count_to_max_id else None


def drop(db: Any) -> None:
    """Forget the checkpoint (in the caller's transaction): games it counted are leaving the results."""
    if _exists(db):
        db.execute("DELETE FROM rating_checkpoint")


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
        (count,) = db.execute("SELECT COUNT(*) FROM games WHERE id <= ?", (checkpoint.max_id,)).fetchone()
        if count != checkpoint.count_to_max_id:
            db.execute("ROLLBACK")
            return False
        db.execute(_SCHEMA)
        db.execute("INSERT OR REPLACE INTO rating_checkpoint (id, data) VALUES (1, ?)", (checkpoint.to_json(),))
        db.execute("COMMIT")
        return True
    except sqlite3.Error:
        log.debug("rating checkpoint not kept in %s", path, exc_info=True)
        return False
    finally:
        db.close()


__all__ = ["SNAPSHOT", "Checkpoint", "load", "drop", "save"]
