"""A tournament run decided once: the session (session.py) finds the isolation, makes the record
every stored game keeps, builds the schedule and picks the pool, and hands this frozen `RunPlan`
down to `run_tournament` (runner.py), the SPRT waves (early_stop.py) and the local pool
(local_pool.py), which act on it and decide none of it again: a second probe of the isolation
could record what the bots did not run under."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from arena import __version__
from arena.protocol import PROTOCOL_VERSION
from arena.sandbox.isolation import Isolation, find_isolation
from arena.schedule.games import TableSpec
from arena.submission.manifest import BotManifest
from arena.tournament.config import TournamentConfig


@dataclass(frozen=True)
class RunPlan:
    """What a run is, decided before its first game."""

    config: TournamentConfig
    manifests: dict[str, BotManifest]  # the bots as they run: their prepared copies (a cluster's: their folders)
    isolation: Isolation  # found once, here: what the bots of this machine run under
    record: Mapping[str, Any]  # what every stored game records about how it was played (`run_record`)
    tables: tuple[TableSpec, ...]  # the schedule, or the SPRT wave of it to play now
    versions: Mapping[str, str] = field(default_factory=dict)
    builds: Mapping[str, str] = field(default_factory=dict)  # each bot's build digest (its prepared copy)
    workers: int | None = None  # --workers, over the config's
    log_dir: Path | None = None  # --log: protocol lines and stderr, a folder per table
    cluster: str = ""  # the pool: a Dask scheduler's address, or "" for this machine's worker processes

    def worker_count(self, tables_to_play: int) -> int:
        """The local pool's size: --workers or the config's, never more than the tables to play."""
        return max(1, min(self.workers or self.config.workers, tables_to_play))

    def with_tables(self, tables: Iterable[TableSpec]) -> RunPlan:
        """The same run, for some of its tables (an SPRT wave)."""
        return replace(self, tables=tuple(tables))


def plan_run(config: TournamentConfig, manifests: dict[str, BotManifest], *, isolation: Isolation | None = None,
             versions: Mapping[str, str] | None = None, builds: Mapping[str, str] | None = None,
             tables: Sequence[TableSpec] | None = None, workers: int | None = None, log_dir: Path | None = None,
             cluster: str = "") -> RunPlan:
    """The plan of a run: the isolation the caller found (probed here, once, when it gives none),
    the run's record made from it, the schedule (built when not given)."""
    isolation = find_isolation(config.isolation) if isolation is None else isolation
    versions, builds = dict(versions or {}), dict(builds or {})
    return RunPlan(config, manifests, isolation, run_record(config, manifests, versions, isolation, builds),
                   tuple(build_schedule(config) if tables is None else tables), versions, builds, workers,
                   log_dir, cluster)


def build_schedule(config: TournamentConfig) -> list[TableSpec]:
    """The tournament's tables to play. A balanced one is a search of up to a few seconds: build it
    once per command and pass it on (`plan_run(tables=...)`). The tables of a withdrawn bot are
    left out; every other table keeps the index (the game keys) it has with them."""
    tables = config.kind.tables(config.layout_of_tables())
    gone = set(config.withdrawn)
    return [table for table in tables if not gone & set(table.entries)] if gone else tables


def run_record(config: TournamentConfig, manifests: Mapping[str, BotManifest], versions: Mapping[str, str],
               isolation: Isolation, builds: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What every stored game records about how it was played: bot versions, the digest of what
    ran for each (its prepared copy, build outputs included: arena/submission/prepared.py), the
    limits in force, and the isolation (who the bots ran as, and what they could see)."""
    from arena.sandbox.guard import describe, tcp_asked
    from arena.sandbox.limits import ceilings_from, grant

    def limits_of(m: BotManifest) -> dict:
        own = config.grants.get(m.name) or {}
        given = grant(dict(m.limits), ceilings_from(config.sandbox, own), tcp_asked=tcp_asked(m),
                      tcp_granted=bool(own.get("zmq_tcp")))
        return describe(given.limits, network=not given.limits.no_network)

    return {
        # The engine and the protocol the game was refereed by: a replay page names them.
        "arena": __version__,
        "protocol": PROTOCOL_VERSION,
        "versions": {name: versions.get(name, "") for name in config.playing},
        **({"builds": {name: builds.get(name, "") for name in config.playing}} if builds else {}),
        "time_limits": {"move_timeout_s": config.move_timeout_s, "startup_timeout_s": config.startup_timeout_s},
        "sandbox": {name: limits_of(m) for name, m in manifests.items() if not m.is_service},
        "isolation": isolation.record(),
        "machine": socket.gethostname(),  # a cluster's games name their worker instead
    }


__all__ = ["RunPlan", "build_schedule", "plan_run", "run_record"]
