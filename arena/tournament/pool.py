"""What plays a tournament's tables for the runner (arena/tournament/runner.py), which is the single
writer of results and does not know which pool it has: the local worker pool (local_pool.py) or a
Dask cluster's (cluster_pool.py)."""

from __future__ import annotations

from typing import Any, Callable, Iterator, Protocol

from arena.play.records import GameRecord, VoidGame
from arena.schedule.games import GameSpec
from arena.tournament.feed import TableFeed


class Pool(Protocol):
    """Plays tables and yields each finished game as it comes."""

    # Game key -> what that game records beyond the run's own record (a cluster's: the machine,
    # the isolation and the build digests of the worker that played it); empty for a local pool.
    where: dict[str, dict[str, Any]]

    def describe(self) -> str:
        """What plays the tables, in a line for the organiser (a cluster's: its machines and their
        isolation)."""

    def start(self) -> None:
        """Start the workers (or connect to them); raises what stops the run before any game."""

    def games(self, feed: TableFeed, on_note: Callable[[str], None] | None = None,
              ) -> Iterator[tuple[GameSpec, GameRecord | VoidGame]]:
        """Play the tables `feed` hands out (`next`, and `done` when one ends) and yield each
        game as it ends: played, or void (arena/results/voids.py). `on_note`: a worker's line for
        the organiser as it comes (a start tried again), not once its table ends."""

    def stop(self, wait_s: float = 0.0) -> None:
        """Stop every worker and bot; `wait_s`: how long tables under way may take to end."""


__all__ = ["Pool"]
