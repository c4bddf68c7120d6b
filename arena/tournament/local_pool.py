"""The worker processes of a tournament run: each plays whole tables and reports every game.

Each worker has a pipe of its own to the parent, and the parent hands out the tables one at
a time, when a worker asks for the next. There is no shared queue on purpose: with
`multiprocessing.Queue` a worker killed while it held the queue's lock, or halfway through
writing a game, left the other workers (or the parent) blocked forever, and the queue's
feeder thread could keep the parent from exiting after a Ctrl-C. With one pipe per worker, a worker's death is the end of its own pipe, wherever it
comes, and the parent knows which worker died and what it was playing.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import ctypes
import gc
import multiprocessing as mp
from multiprocessing.process import BaseProcess
import os
import signal
import threading
import time
from dataclasses import dataclass
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Iterator, Sequence

from arena.errors import ArenaError
from arena.logs import show_logs
from arena.submission.manifest import BotManifest
from arena.play.startup import BotSettings
from arena.play.records import GameRecord, TimeLimits, VoidGame
from arena.schedule.games import GameSpec, TableSpec
from arena.sandbox.isolation import Isolation
from arena.tournament.config import TournamentConfig
from arena.tournament.run_plan import RunPlan
from arena.tournament.feed import WAIT, TableFeed
from arena.tournament.table_play import play_table
from arena.wording import count

PR_SET_PDEATHSIG = 1
_POLL_S = 1.0  # how often the parent looks at worker processes while no message comes


log = logging.getLogger(__name__)

class WorkerDied(ArenaError):
    """A worker process ended while it still had work: the games it had not reported are lost."""

    exit_code = 1


@dataclass(eq=False)
class _Worker:
    number: int  # 1-based, for messages
    proc: BaseProcess  # a spawned process (multiprocessing's spawn context)
    conn: Connection  # the parent's end of this worker's pipe
    table: TableSpec | None = None  # the table it is playing
    finished: bool = False  # told that there is no more work


class WorkerPool:
    """Starts `count` workers of the plan's run, feeds them tables and yields their games as they come."""

    def __init__(self, plan: RunPlan, count: int):
        ctx = mp.get_context("spawn")  # no fork of a process with live threads (Rich, stderr readers)
        # The plan's, found once by the session: what every stored game records is what its bots ran under.
        manifests, config, log_dir, self.isolation = plan.manifests, plan.config, plan.log_dir, plan.isolation
        cpus = _cpus()
        self.where: dict[str, dict[str, Any]] = {}  # a local run's games record the run's own record
        self._workers: list[_Worker] = []
        self._child_ends: list[Connection] = []
        for i in range(count):
            parent_end, child_end = ctx.Pipe(duplex=True)
            cpu = cpus[i % len(cpus)] if cpus else None
            proc = ctx.Process(target=_worker_main, args=(child_end, manifests, config, cpu, log_dir, self.isolation),
                               daemon=True, name=f"arena-worker-{i + 1}")
            self._workers.append(_Worker(i + 1, proc, parent_end))
            self._child_ends.append(child_end)

    def start(self) -> None:
        """Start every worker, with Ctrl-C and SIGTERM held back until all have started."""
        with _stop_signals_held_back():
            for worker in self._workers:
                worker.proc.start()
        for child_end in self._child_ends:
            child_end.close()  # from now on only the worker holds it: its death ends our pipe
        self._child_ends = []

    def games(self, feed: TableFeed, on_note: Callable[[str], None] | None = None,
              ) -> Iterator[tuple[GameSpec, GameRecord | VoidGame]]:
        """Play the tables `feed` hands out and yield each game as a worker reports it. A worker
        that asks while the feed says WAIT is answered later, when a game or a table's end may
        have changed that. Raises WorkerDied if a worker ends before it has finished its table."""
        asking: list[_Worker] = []  # workers waiting for their next table
        while not all(worker.finished for worker in self._workers):
            listening = {worker.conn: worker for worker in self._workers if not worker.finished and worker not in asking}
            ready = wait(list(listening), timeout=_POLL_S) if listening else []
            if listening and not ready:
                self._check_alive()
                continue
            for conn in ready:
                worker = listening[conn]  # type: ignore[index]  # wait() gives back the connections it was given
                kind, payload = self._receive(worker)
                if kind == "game":
                    yield payload
                elif kind == "note":
                    if on_note is not None:
                        on_note(payload)
                else:  # "next": it has finished its table (or just started)
                    if worker.table is not None:
                        feed.done()
                        worker.table = None
                    asking.append(worker)
            self._answer(asking, feed)
            if asking and all(worker.finished or worker in asking for worker in self._workers):
                raise RuntimeError("the table feed says wait with no table under way")  # its invariant, broken

    def _answer(self, asking: list[_Worker], feed: TableFeed) -> None:
        """Hand the asking workers their tables, in the order they asked, while the feed has any."""
        while asking:
            table = feed.next()
            if table is WAIT:
                return
            worker = asking.pop(0)
            worker.table = table if isinstance(table, TableSpec) else None
            worker.finished = worker.table is None
            self._send(worker, worker.table)

    def describe(self) -> str:
        """What plays the run's tables, in words: how many workers, on this machine."""
        return f"{count(len(self._workers), 'local worker')} on this machine"

    def stop(self, wait_s: float = 0.0) -> None:
        """Workers that finished exit by themselves (given `wait_s`); the rest get SIGTERM, then SIGKILL."""
        _stop_processes([worker.proc for worker in self._workers], wait_s)
        for worker in self._workers:
            worker.conn.close()

    def _receive(self, worker: _Worker):
        try:
            return worker.conn.recv()
        except (EOFError, OSError):  # also a message cut short by the worker's death
            raise WorkerDied(self._death_of(worker)) from None

    def _send(self, worker: _Worker, table: TableSpec | None) -> None:
        try:
            worker.conn.send(table)
        except OSError:
            raise WorkerDied(self._death_of(worker)) from None

    def _check_alive(self) -> None:
        # A worker's death closes its pipe, which `wait` sees; this covers the case where a
        # process it started still holds the pipe open somehow.
        for worker in self._workers:
            if not worker.finished and worker.proc.exitcode is not None:
                raise WorkerDied(self._death_of(worker))

    @staticmethod
    def _death_of(worker: _Worker) -> str:
        worker.proc.join(1.0)
        code = worker.proc.exitcode
        if code is None:
            how = "closed its pipe to the arena"
        elif code < 0:
            how = f"was killed by {_signal_name(-code)}"
        elif code > 128 and _signal_name(code - 128).startswith("SIG"):
            how = f"was stopped by {_signal_name(code - 128)}"
        else:
            how = f"exited with status {code} (see its messages above)"
        doing = (f"while it played table {worker.table.index} ({', '.join(worker.table.entries)})"
                 if worker.table else "before it had a table")
        return (f"tournament worker {worker.number} (pid {worker.proc.pid}) {how} {doing}; "
                "the games it had not yet reported are not stored")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _worker_main(conn: Connection, manifests: dict[str, BotManifest], config: TournamentConfig, cpu: int | None,
                 log_dir, isolation: Isolation) -> None:
    _die_with_parent()
    show_logs()  # as the parent shows them (ARENA_LOG, inherited)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us with SIGTERM
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked since our start: see below
    global _worker_pid
    _worker_pid = os.getpid()
    signal.signal(signal.SIGTERM, _exit_on_signal)
    limits = TimeLimits(config.move_timeout_s, config.startup_timeout_s)
    # Everything loaded so far (modules, the config, the bots' manifests) lives as long as the
    # worker: out of the garbage collector's sight, its full collections no longer walk it on
    # every few thousand objects a game makes (about 3% of a move's instructions at a table).
    gc.freeze()
    try:
        while True:
            conn.send(("next", None))
            table = conn.recv()
            if table is None:
                # No more work: from here a SIGTERM (the parent tidying up) just ends the process.
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                return
            _play_table(table, conn, manifests, config, limits, cpu, log_dir, isolation)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return  # the parent is gone: nobody would store our games


def _play_table(table: TableSpec, conn: Connection, manifests: dict[str, BotManifest], config: TournamentConfig,
                limits: TimeLimits, cpu: int | None, log_dir, isolation: Isolation) -> None:
    settings = BotSettings(limits=limits, cpu=cpu, log_dir=(log_dir / f"table{table.index:04d}") if log_dir else None,
                           sandbox_limits=config.sandbox or None, grants=config.grants, isolation=isolation)
    play_table(table, manifests, config, settings, lambda spec, record: conn.send(("game", (spec, record))),
               unwinding=_unwinding, notify=lambda line: conn.send(("note", line)))


def _die_with_parent() -> None:
    """Linux: get SIGTERM when the parent dies (even by SIGKILL), so no worker outlives it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # no such call here (not Linux): the parent's SIGTERM still reaches us
        log.debug("prctl(PR_SET_PDEATHSIG) is not available", exc_info=True)
    parent = mp.parent_process()
    if parent is not None and os.getppid() != parent.pid:
        # The arena died while we were still loading, before the death signal was set: nobody
        # reads our results, and we would play on and then block forever.
        os._exit(0)


_stopping = False  # the worker is unwinding after a SIGTERM: later ones are dropped


def _unwinding() -> None:
    """Called once the first SIGTERM's SystemExit has reached our own code. From then on a second
    SIGTERM (the parent's tidy-up after a second Ctrl-C, or the parent's death signal) would land in
    the bots' clean-up, cut it short and print a traceback. Not set
    by the handler itself: a SystemExit raised inside a callback that swallows it (an at-fork hook
    while a bot starts) never unwinds anything, and the next SIGTERM must still end the worker.
    Not SIG_IGN either: that would be inherited by any process started from here on."""
    global _stopping
    _stopping = True


_worker_pid = os.getpid()  # the process that loaded this (a worker): a bot's child before its exec runs our handler too


def _exit_on_signal(signum, frame) -> None:  # noqa: ARG001
    if os.getpid() != _worker_pid:
        # In a bot's child before its exec (an at-fork hook of `logging` runs Python there): a
        # SystemExit would print "Exception ignored ... Traceback" on the organiser's terminal.
        os._exit(128 + signum)
    if _stopping:
        return
    raise SystemExit(128 + signum)  # unwinds `open_table`, which closes every bot


@contextlib.contextmanager
def _stop_signals_held_back() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back while the workers start; deliver them afterwards.

    Ctrl-C reaches the whole foreground process group. A worker still importing when it
    comes would die with a traceback (or "Fatal Python error") before it can ignore SIGINT,
    so SIGINT is blocked while they start: a mask they inherit through exec, which holds the
    signal until they ignore it. Our own handlers are swapped for ones that only take note:
    the mask alone does not shield us, because Python runs a handler in the main thread
    whichever thread the signal reached (Rich's refresh thread, say), and an exception
    raised halfway through starting a worker cut its start-up data short (it died with
    EOFError).
    """
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    # Starting multiprocessing's resource tracker (on the first start of a worker) unblocks
    # SIGINT in this thread instead of restoring the mask it found, so the workers started
    # after it would not inherit the block: start it first.
    resource_tracker.ensure_running()
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, lambda signum, frame: caught.append(signum)) for signum in held}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        for number in dict.fromkeys(caught):
            signal.raise_signal(number)  # now handled as usual: KeyboardInterrupt, SystemExit...


def _stop_processes(procs: Sequence[BaseProcess], wait_s: float) -> None:
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
