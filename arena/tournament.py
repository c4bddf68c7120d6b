"""Running a tournament: play what is not yet stored, tables in parallel worker processes.

The parent process is the only writer of the results database and commits each game
in its own transaction as soon as a worker reports it, so a game counts as done
exactly when its row is committed. Workers start a table's bots once, play that
table's missing games, and close the bots. Killing the parent at any moment (even
SIGKILL) loses only games in flight; the workers and their bots die with it.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import ctypes
import math
import os
import multiprocessing as mp
import queue
import signal
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from arena import protocol
from arena.game import Game
from arena.manifest import BotManifest
from arena.match import BotSettings, open_table, revive_seats, tell_match_start
from arena.referee import GameRecord, TimeLimits, play_game
from arena.schedule import GameSpec, TableSpec, balanced_schedule, game_key, pair_meetings, round_robin
from arena.store import ResultStore
from arena.tournament_config import TournamentConfig

PR_SET_PDEATHSIG = 1


@dataclass(frozen=True, slots=True)
class Progress:
    done: int  # games stored, including those from earlier runs
    total: int
    played_now: int  # games played in this run
    started_at: float
    last: GameRecord | None = None


@dataclass(frozen=True, slots=True)
class RunSummary:
    total: int
    already_done: int
    played: int
    interrupted: bool


def build_schedule(config: TournamentConfig) -> list[TableSpec]:
    if config.schedule == "balanced":
        return list(_balanced(tuple(config.bots), config.table_size, config.tables or 1, config.deals, config.seed))
    return round_robin(list(config.bots), config.table_size, config.deals, config.seed)


@functools.lru_cache(maxsize=4)
def _balanced(bots: tuple[str, ...], table_size: int, tables: int, deals: int, seed: int) -> tuple[TableSpec, ...]:
    # Its search takes up to a few seconds for many tables; a run asks for it more than once.
    return tuple(balanced_schedule(list(bots), table_size, tables, deals, seed))


def describe_balance(tables: Sequence[TableSpec], entries: Sequence[str]) -> str:
    """How even a schedule is: tables per entry and meetings per pair, as ranges."""
    per_entry = [sum(name in t.entries for t in tables) for name in entries]
    meetings = pair_meetings(tables)
    per_pair = [meetings.get(pair, 0) for pair in itertools.combinations(sorted(entries), 2)] or [0]

    def span(values: list[int]) -> str:
        return f"{min(values)}" if min(values) == max(values) else f"{min(values)} to {max(values)}"

    text = (f"{len(tables)} tables; each bot plays {span(per_entry)} tables; "
            f"each pair of bots meets at {span(per_pair)} tables")
    if min(per_entry) != max(per_entry):
        text += " (bots play unequal numbers of games: compare points per game, not total points)"
    return text


def fingerprint(config: TournamentConfig, manifests: dict[str, BotManifest], versions: dict[str, str]) -> dict[str, object]:
    """What stored results depend on: change any of it and old results no longer fit."""
    return {
        "bots": ",".join(config.bots),
        "bot_versions": ",".join(f"{name}={versions.get(name, '')}" for name in config.bots),
        "rules": repr(sorted(config.rules.to_options().items())),
        "seed": config.seed,
        "table_size": config.table_size,
        "deals": config.deals,
        # "balanced2": the second balanced search lays tables out differently from the first,
        # so results stored under the first must not be resumed with it.
        "schedule": "round_robin:" if config.schedule == "round_robin" else f"balanced2:{config.tables}",
    }


def limits_changed(stored: dict | None, now: dict) -> list[str]:
    """How the limits in `now` (a run_record) differ from a stored game's, one line per change.

    Limits are not part of the fingerprint: an organiser may raise a time limit that proves too
    tight on the machine at hand, and every game keeps the limits it was played with. A resumed
    run says so rather than mixing conditions silently."""
    if stored is None:
        return []
    changes = _changed_keys("", stored.get("time_limits") or {}, now["time_limits"])
    old_sandbox = stored.get("sandbox") or {}
    for name, limits in now["sandbox"].items():
        changes += _changed_keys(f"{name}: ", old_sandbox.get(name) or {}, limits)
    return changes


def _changed_keys(prefix: str, old: dict, new: dict) -> list[str]:
    return [f"{prefix}{key} was {old[key]}, now {value}" for key, value in new.items()
            if key in old and old[key] != value]


def run_record(config: TournamentConfig, manifests: dict[str, BotManifest], versions: dict[str, str]) -> dict:
    """What every stored game records about how it was played: bot versions and the limits in force."""
    from arena.sandbox import describe, network_needed, resolve_limits

    return {
        "versions": {name: versions.get(name, "") for name in config.bots},
        "time_limits": {"move_timeout_s": config.move_timeout_s, "startup_timeout_s": config.startup_timeout_s},
        "sandbox": {name: describe(resolve_limits(m, config.sandbox or None), network=network_needed(m))
                    for name, m in manifests.items() if not m.is_service},
    }


def game_number(spec: GameSpec, deals: int, seatings: int) -> int:
    """A stable game number (1-based position in the schedule), the same in every run, so a bot
    that seeds itself from the `game` line plays the same way after a resume."""
    return (spec.table * deals + spec.deal) * seatings + spec.seating + 1


def game_key_of_number(number: int, deals: int, seatings: int) -> str | None:
    """The key of the game with this tournament game number (the inverse of game_number)."""
    if number < 1:
        return None
    index, seating = divmod(number - 1, seatings)
    table, deal = divmod(index, deals)
    return game_key(table, deal, seating)


def pending_tables(tables: list[TableSpec], done: set[str]) -> list[TableSpec]:
    out = []
    for table in tables:
        missing = tuple(g for g in table.games if g.key not in done)
        if missing:
            out.append(TableSpec(table.index, table.entries, missing))
    return out


def _die_with_parent() -> None:
    """Linux: get SIGTERM when the parent dies (even by SIGKILL), so no worker outlives it."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    parent = mp.parent_process()
    if parent is not None and os.getppid() != parent.pid:
        # The arena died while we were still loading, before the death signal was set: nobody
        # reads our results, and we would play on and then block forever (an audit saw it).
        os._exit(0)


def _worker(tasks, results, manifests: dict[str, BotManifest], config: TournamentConfig, cpu: int | None,
            log_dir) -> None:
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us with SIGTERM
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked since our start: see below
    signal.signal(signal.SIGTERM, _exit_on_signal)
    limits = TimeLimits(config.move_timeout_s, config.startup_timeout_s)
    seatings = math.factorial(config.table_size)
    while True:
        table = tasks.get()
        if table is None:
            # No more work: from here a SIGTERM (the parent tidying up) just ends the process.
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            return
        settings = BotSettings(limits=limits, cpu=cpu, log_dir=(log_dir / f"table{table.index:04d}") if log_dir else None,
                               sandbox_limits=config.sandbox or None)
        with open_table([manifests[name] for name in table.entries], settings) as seats:
            # A table is one match for its bots (protocol.md section 4), of the games still to play.
            match_line = protocol.format_match_start(config.rules, len(table.games))
            tell_match_start(seats, match_line)
            by_name = dict(zip(table.entries, seats))
            for spec in table.games:
                game = Game.new(config.rules, spec.seed, spec.dealer)
                number = game_number(spec, config.deals, seatings)
                revive_seats(seats, match_line)
                record = play_game(game, [by_name[name] for name in spec.bots], number=number, limits=limits)
                results.put(("game", spec, record))
        results.put(("table", table.index, None))


def _exit_on_signal(signum, frame) -> None:  # noqa: ARG001
    raise SystemExit(128 + signum)  # unwinds `open_table`, which closes every bot


def run_tournament(
    config: TournamentConfig,
    manifests: dict[str, BotManifest],
    store: ResultStore,
    *,
    workers: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    log_dir=None,
    versions: dict[str, str] | None = None,
) -> RunSummary:
    """Play every scheduled game that is not yet stored. Returns when all are stored, or raises
    KeyboardInterrupt (after stopping every worker and bot) if interrupted."""
    tables = build_schedule(config)
    total = sum(len(t.games) for t in tables)
    done = store.done_keys()
    todo = pending_tables(tables, done)
    already = total - sum(len(t.games) for t in todo)
    started = time.monotonic()
    played = 0
    if on_progress:
        on_progress(Progress(already, total, 0, started))
    if not todo:
        return RunSummary(total, already, 0, False)
    n_workers = max(1, min(workers or config.workers, len(todo)))
    ctx = mp.get_context("spawn")  # no fork of a process with live threads (Rich, stderr readers)
    tasks = ctx.Queue()
    results = ctx.Queue()
    # Longest tables first keeps the workers busy to the end.
    for table in sorted(todo, key=lambda t: -len(t.games)):
        tasks.put(table)
    for _ in range(n_workers):
        tasks.put(None)
    cpus = _cpus()
    extra = run_record(config, manifests, versions or {})
    procs = [
        ctx.Process(target=_worker, args=(tasks, results, manifests, config, cpus[i % len(cpus)] if cpus else None, log_dir),
                    daemon=True, name=f"arena-worker-{i}")
        for i in range(n_workers)
    ]
    tables_left = len(todo)
    finished = False
    try:
        _start_shielded_from_ctrl_c(procs)
        while tables_left:
            try:
                kind, payload, record = results.get(timeout=0.5)
            except queue.Empty:
                if not any(p.is_alive() for p in procs):
                    raise RuntimeError("every tournament worker stopped unexpectedly; see the messages above")
                continue
            if kind == "table":
                tables_left -= 1
                continue
            store.add_game(payload, record, extra)  # the game is done once this commit returns
            played += 1
            if on_progress:
                on_progress(Progress(already + played, total, played, started, record))
        finished = True
    finally:
        if not finished:
            # Tables the workers never took may still sit in the queue's feeder thread (a
            # schedule can pickle to more than a pipe holds); without this, exiting would wait
            # for that thread forever after a Ctrl-C.
            tasks.cancel_join_thread()
        _stop_workers(procs, wait_s=5.0 if finished else 0.0)
    return RunSummary(total, already, played, False)


def _start_shielded_from_ctrl_c(procs: Sequence[mp.Process]) -> None:
    """Start the workers with SIGINT blocked, a mask they inherit through exec.

    Ctrl-C reaches the whole foreground process group. A worker still importing when it comes
    would die with a traceback (or "Fatal Python error") before it can ignore SIGINT; blocked,
    the signal waits and is dropped when the worker ignores it. Our own Ctrl-C is only held
    back until every worker has started, then raised here as usual."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        for proc in procs:
            proc.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _stop_workers(procs: Sequence[mp.Process], wait_s: float = 0.0) -> None:
    """Workers that finished exit by themselves (given `wait_s`); the rest get SIGTERM, then SIGKILL."""
    procs = [proc for proc in procs if proc.pid is not None]  # a failed start leaves some unstarted
    deadline = time.monotonic() + wait_s
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
    for proc in procs:
        if proc.is_alive():
            proc.terminate()  # SIGTERM: the worker unwinds and closes its bots
    deadline = time.monotonic() + 5.0
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)


def _cpus() -> list[int]:
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return []
