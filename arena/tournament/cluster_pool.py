"""A tournament's tables played on a Dask cluster (`arena tournament run CONFIG --cluster
tcp://SCHEDULER:8786`), behind the same interface as the local worker pool (arena/tournament/
local_pool.py): start, games (yielded as they end), stop. The runner does not know which it has.

- The organiser's process stays the single writer of results: workers put each finished game on
  a Dask queue of the run, and `games` yields it at once (a long table does not hold results back).
- A task is a whole table, so bots start once per table, as locally. A worker that dies in the
  middle of one: Dask plays the table again elsewhere; games already stored come again and are
  passed over (a game's key is stored once), none is lost.
- Bots travel by content: each bot's files as hashed for its version, one small Dask task per bot
  that returns them; each table's task depends on its three bots' tasks, so a bot's files go to a
  worker when a table there first needs them, not with every table. A worker unpacks and builds them
  once per version (arena/submission/bundle.py). Not scattered: Dask's active memory manager (on by
  default, every 2 s) drops the copies of scattered data that no task is waiting for, and a worker
  that died with the last copy took it for good: every table still to play was cancelled (the
  scheduler's log: "lose scattered data, which can't be recovered"; one kill test in eight). A
  task's result lost with its worker is computed again from the task, which the scheduler keeps.
- Workers running another arena or protocol version are refused before any game is played there.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import pickle
import socket
import time
import uuid
import warnings
from typing import Any, Callable, Iterator, Sequence

from arena.errors import ArenaError
from arena import __version__
from arena.play.records import GameRecord, VoidGame
from arena.protocol import PROTOCOL_VERSION
from arena.schedule.games import GameSpec, TableSpec
from arena.submission.bundle import pack
from arena.submission.manifest import BotManifest, ManifestError
from arena.tournament.cluster_task import (CODE_HASH, bundle_task, code_difference, play_table_task, worker_facts,
                                          worker_isolation)
from arena.tournament.config import TournamentConfig
from arena.tournament.feed import TableFeed
from arena.tournament.run_plan import RunPlan

log = logging.getLogger(__name__)
CONNECT_TIMEOUT_S = 10
GREETING_TIMEOUT_S = CONNECT_TIMEOUT_S + 2  # Dask's own limit first, for an address nobody takes
_FIRST_POLL_S = 0.005  # when no game came, the wait before asking the run's queue again, doubling
_POLL_S = 0.1  # up to this


def _expected() -> tuple[str, str, str]:
    """What a worker must run: this arena's version, protocol version and code."""
    return __version__, str(PROTOCOL_VERSION), CODE_HASH


async def _greeted(distributed, address: str, connection_args: dict) -> None:
    """Connect to the scheduler and take its greeting, then hang up."""
    comm = await distributed.comm.connect(address, timeout=CONNECT_TIMEOUT_S, **connection_args)
    await comm.close()


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def _said(exc: BaseException) -> str:
    """An exception in words: some of Dask's and ssl's have no message of their own."""
    return str(exc).strip() or type(exc).__name__


class ClusterError(ArenaError):
    """The cluster cannot play the tournament (not reachable, no workers, a refused worker, a
    task that failed); the message says which and what to do."""

    exit_code = 1


def _distributed():
    try:
        import distributed
    except ImportError:
        raise ClusterError("running on a cluster needs Dask distributed: pip install 'skitgubbe-arena[cluster]' "
                           "(from a clone: pip install -e '.[cluster]')") from None
    return distributed


class ClusterPool:
    """Plays tables on the Dask cluster whose scheduler is at `address`."""

    def __init__(self, address: str, manifests: dict[str, BotManifest], config: TournamentConfig,
                 versions: dict[str, str] | None = None) -> None:
        self.address = address
        self.manifests = manifests
        self.versions = versions or {}  # as the run prepared them: a bot changed since is refused
        self.config = config
        self.client: Any = None  # Dask's Client, once connected (Dask has no types to check it by)
        self.workers: dict[str, tuple[str, str, str]] = {}
        self.isolations: dict[str, tuple[bool, str]] = {}  # worker address -> (isolated?, in words)
        self._names: dict[str, str] = {}  # worker address -> the name it was started with, if any
        self._run = uuid.uuid4().hex[:12]
        self._futures: dict[int, Any] = {}  # table index -> its task's future (Dask's), until the table is done
        self._bots_at: dict[int, tuple[str, ...]] = {}  # table index -> its bots, for the messages
        self._quiet_s = _FIRST_POLL_S  # the next wait for games (_next_batch)
        self.where: dict[str, dict[str, Any]] = {}  # game key -> the machine, isolation and builds it was played with

    def follow(self, plan: RunPlan) -> None:
        """Play as `plan` decided: the results, opened after we connected, may settle the config further."""
        self.config = plan.config
        self.versions = dict(plan.versions)

    def start(self) -> None:
        if self.client is not None:
            return  # started by the command, to say where the run plays before it begins
        distributed = _distributed()
        # Dask logs a lost connection with its tracebacks; the run says it in one sentence instead.
        for name in ["distributed", *logging.root.manager.loggerDict]:
            if name.split(".")[0] == "distributed":  # Dask's config sets some of them one by one
                logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        services = [m.name for m in self.manifests.values() if m.is_service]
        if services:
            raise ClusterError(f"{', '.join(services)} run as services at their own address: a cluster run plays "
                               "only bots the arena starts (run it locally)")
        connection_args = self._check_security(distributed)
        host = self.address.split("://", 1)[1].rsplit(":", 1)[0].strip("[]")
        try:
            found = socket.getaddrinfo(host, None)
        except socket.gaierror as exc:  # else Dask retries the name for its whole time limit
            raise ClusterError(f"cannot find the host {host!r} of the Dask scheduler's address {self.address} "
                               f"({exc.strerror})") from None
        if self.address.startswith("tcp://") and not all(_loopback(str(info[4][0])) for info in found):
            # Whoever reaches a plain scheduler can run code on its workers, outside any sandbox
            # (a hostile bot with a tcp endpoint did): off this machine, only TLS with certificates.
            raise ClusterError(f"{self.address} is not on this machine, and a plain tcp:// scheduler runs the code of "
                               "whoever reaches it: use TLS. Start the scheduler and workers with --tls-ca-file, "
                               "--tls-cert and --tls-key (e.g. `dask scheduler --tls-ca-file ca.pem --tls-cert "
                               "scheduler.pem --tls-key scheduler-key.pem`), give the arena the same in Dask's "
                               "configuration (distributed.comm.tls), and its tls:// address (docs/cluster.md)")
        self._probe(host, int(self.address.rsplit(":", 1)[1]))
        try:
            # Dask waits for the scheduler's greeting with no time limit: a port that takes the
            # connection and stays silent (the dashboard's, 8787) held the command for good, with
            # nothing said. A first connection here is held to a limit.
            asyncio.run(asyncio.wait_for(_greeted(distributed, self.address, connection_args), GREETING_TIMEOUT_S))
            self.client = distributed.Client(self.address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except TimeoutError:  # before OSError, of which it is one: only the greeting's limit raises it
            raise ClusterError(f"something at {self.address} took the connection but did not answer as a Dask "
                               f"scheduler within {GREETING_TIMEOUT_S:g} s: give the scheduler's own port (8786 "
                               "unless it was started with --port), not its dashboard's (8787)") from None
        except OSError as exc:
            # Past a plain connection, a tcp:// address that fails may be a TLS scheduler's.
            raise self._unreachable(_said(exc), maybe_tls=self.address.startswith("tcp://")) from None
        except Exception as exc:  # noqa: BLE001 - Dask's own refusals: said in a sentence, not a traceback
            raise ClusterError(f"cannot connect to the Dask scheduler at {self.address}: {type(exc).__name__}"
                               + (f": {exc}" if str(exc).strip() else "")) from None
        self.workers = self._check_workers()
        self._bundles = self._submit_bundles()
        self._queue = distributed.Queue(f"arena-games-{self._run}", client=self.client)
        self._stop = distributed.Event(f"arena-stop-{self._run}", client=self.client)

    def _probe(self, host: str, port: int) -> None:
        """A plain connection first: Dask retries a refused port for its whole time limit (10 s)
        and then says it timed out, where nothing listening is known at once. The scheduler logs
        this connection as one INFO line ("closed before handshake completed")."""
        try:
            socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
        except ConnectionRefusedError:
            raise self._unreachable("connection refused: nothing listens at that port") from None
        except TimeoutError:
            raise self._unreachable(f"no answer within {CONNECT_TIMEOUT_S} s") from None
        except OSError as exc:  # no route to the host, say
            raise self._unreachable(exc.strerror or _said(exc)) from None

    def _unreachable(self, why: str, maybe_tls: bool = False) -> ClusterError:
        port = self.address.rsplit(":", 1)[1]
        here = " --host 127.0.0.1" if self.address.startswith("tcp://") else ""  # plain: this machine's loopback alone
        scheduler = f"dask scheduler{here}" + ("" if port == "8786" else f" --port {port}")
        tls = "; if that scheduler uses TLS, give a tls:// address" if maybe_tls else ""
        return ClusterError(f"cannot reach the Dask scheduler at {self.address} ({why}); start it with "
                            f"`{scheduler}`, and workers with `dask worker {self.address}{here} --nthreads 1`{tls}")

    def _submit_bundles(self) -> dict:
        """Each bot's bundle as the result of a task of its own (see the module's docstring)."""
        futures = {}
        with warnings.catch_warnings():
            # A bot of more than 10 MB (a model's weights, say) makes Dask warn of a large graph
            # and suggest futures: this is that future, and its files go to the scheduler once.
            warnings.filterwarnings("ignore", message="Sending large graph")
            for name, manifest in self.manifests.items():
                try:
                    bundle = pack(manifest, self.versions.get(name))
                except ManifestError as exc:
                    raise ClusterError(str(exc)) from None
                futures[name] = self.client.submit(bundle_task, bundle, pure=False,
                                                   key=f"arena-bundle-{name}-{bundle.version}-{self._run}")
        return futures

    def _check_security(self, distributed) -> dict:
        """Refuse, before connecting, what Dask's TLS settings cannot do: a failed connection left a
        half-made client that held the command 20 s on its way out, after a traceback. Returns the
        client's connection arguments."""
        try:
            security = distributed.Security()
            connection_args = security.get_connection_args("client")
            context = connection_args.get("ssl_context")
        except OSError as exc:  # a certificate or key file that cannot be read (ssl does not say which)
            import dask

            named = {key: dask.config.get(f"distributed.comm.tls.{key}", None) for key in ("ca-file", "client.cert",
                                                                                          "client.key")}
            missing = [f"{key} {path}" for key, path in named.items() if path and not os.access(path, os.R_OK)]
            which = ", ".join(missing) or "a certificate or key file"
            raise ClusterError(f"Dask's TLS settings (distributed.comm.tls) name files that cannot be read: {which} "
                               f"({exc.strerror or exc})") from None
        except Exception as exc:  # noqa: BLE001 - a malformed certificate, say
            raise ClusterError(f"Dask's TLS settings cannot be used: {type(exc).__name__}: {exc}") from None
        if self.address.startswith("tls://") and context is None:
            raise ClusterError(f"{self.address} is a TLS address, and Dask's configuration has no TLS settings for "
                               "this side: set distributed.comm.tls.ca-file and client cert and key (docs/cluster.md, "
                               "TLS), or give a tcp:// address on a private network")
        if self.address.startswith("tcp://") and security.require_encryption:
            raise ClusterError(f"Dask's configuration requires encryption (distributed.comm.require-encryption), "
                               f"and {self.address} is not encrypted: give the scheduler's tls:// address")
        return connection_args

    def describe(self) -> str:
        """The run's first line: the cluster, its machines, and what bots see on each."""
        hosts = sorted({facts[2] for facts in self.workers.values()})
        lines = {line for _, line in self.isolations.values()}
        if len(lines) == 1:
            isolation = f"isolation: {lines.pop()}"
        else:  # by worker, not by host: two workers of one machine may run with other PATHs or users
            named = sorted((self._names.get(address) or address, address) for address in self.isolations)
            isolation = "isolation: " + "; ".join(f"worker {name} on {self.workers[address][2]}, "
                                                  f"{self.isolations[address][1]}" for name, address in named)
        return (f"cluster {self.address}: {len(self.workers)} worker{'s' if len(self.workers) != 1 else ''} "
                f"on {', '.join(hosts)}; {isolation}")

    def _check_workers(self) -> dict[str, tuple[str, str, str]]:
        facts = self.client.run(worker_facts, on_error="return")  # a worker's failure named, not raised
        if not facts:
            raise ClusterError(f"the Dask scheduler at {self.address} has no workers: start some with "
                               f"`dask worker {self.address} --nthreads 1`")
        names = {address: info.get("name") for address, info in self.client.scheduler_info()["workers"].items()}
        self._names = {address: str(name) for address, name in names.items() if name not in (None, address)}
        for address, here in sorted(facts.items(), key=lambda item: item[0]):
            if isinstance(here, BaseException):  # most often no arena in the Python its `dask worker` runs
                # Dask hands a worker's failure back wrapped in a plain Exception that names it.
                failure = str(here) if type(here) is Exception else f"{type(here).__name__}: {here}"
                raise ClusterError(f"{self._worker(address)} cannot run the arena ({failure}): install this arena's "
                                   "version in the Python environment that runs `dask worker` there; no game was played")
            difference = code_difference(here, _expected())
            if difference:
                raise ClusterError(f"{self._worker(address)} (host {here[2]}) {difference}; no game was played")
        self.isolations = {address: (False, f"unknown ({found})") if isinstance(found, BaseException) else found
                           for address, found in self.client.run(worker_isolation, self.config.isolation,
                                                                 workers=list(facts), on_error="return").items()}
        for address, (active, line) in sorted(self.isolations.items()):
            if self.config.isolation == "required" and not active:
                raise ClusterError(f"{self._worker(address)} (host {facts[address][2]}) cannot isolate bots ({line}), "
                                   "and the config says isolation = \"required\"; no game was played")
        return facts

    def _worker(self, address: str) -> str:
        """"worker NAME at ADDRESS", or "worker at ADDRESS" for one started without a name."""
        name = self._names.get(address)
        return f"worker {name} at {address}" if name else f"worker at {address}"

    def games(self, feed: TableFeed, on_note: Callable[[str], None] | None = None,
              ) -> Iterator[tuple[GameSpec, GameRecord | VoidGame]]:
        """The games of the tables `feed` hands out, as they end. A table goes out when a worker
        thread is free for it (as many at a time as the cluster has threads; each ended table lets
        the next go), so that Dask puts it on a free worker: all submitted at once, Dask had queued
        three of four tables on one worker of two (0.58 of the local pool's speed in benchmarks/cluster.py)."""
        slots = max(1, sum(info.get("nthreads", 1) for info in self.client.scheduler_info()["workers"].values()))
        self._fill(feed, slots)
        seen: set[str] = set()
        while self._futures or not feed.finished:
            batch = self._next_batch()
            for item in (item for blob in batch for item in pickle.loads(blob)):
                if item[0] == "note":  # a worker's line for the organiser (a start tried again)
                    if on_note is not None:
                        on_note(f"{item[2]}: {item[1]}")
                    continue
                if item[0] == "done":
                    if item[1] in self._futures:  # a task played again after its worker died says it twice
                        self._release(item[1])
                        feed.done()
                    continue
                spec, record, where = item
                if spec.key in seen:
                    continue  # a table played again after its worker died: stored already
                seen.add(spec.key)
                self.where[spec.key] = where
                yield spec, record
            if not batch and self._all_done() and not self._ask(self._queue.qsize):
                # Every task submitted ended, and nothing is left on the queue: a task that could
                # not say it was done (it raised, say) must not keep the organiser waiting.
                for index in list(self._futures):
                    self._release(index)
                    feed.done()
            self._fill(feed, slots)

    def _fill(self, feed: TableFeed, slots: int) -> None:
        """Submit tables while a worker thread is free and the feed has one."""
        while len(self._futures) < slots:
            table = feed.next()
            if not isinstance(table, TableSpec):  # None (nothing left) or WAIT
                return
            self._submit(table)

    def _submit(self, table: TableSpec) -> None:
        bundles = {name: self._bundles[name] for name in table.entries}  # futures: Dask hands the task their bundles
        self._bots_at[table.index] = table.entries
        self._futures[table.index] = self._ask(self.client.submit, play_table_task, table, bundles, self.config,
                                               _expected(), self._queue.name, self._stop.name, pure=False,
                                               key=f"arena-table-{table.index}-{self._run}")

    def _next_batch(self) -> list[bytes]:
        # What the queue holds now, without waiting there: a get that times out is logged on the
        # scheduler as an error at every quiet poll. The wait is here, short after a game (a
        # table's end follows its last games) and growing in a quiet spell.
        batch = list(self._ask(self._queue.get, batch=True))
        if batch:
            self._quiet_s = _FIRST_POLL_S
        else:
            time.sleep(self._quiet_s)
            self._quiet_s = min(2 * self._quiet_s, _POLL_S)
            self._check_scheduler()
        return batch

    def _ask(self, question, *args, **kwargs):
        """A round trip to the scheduler; a scheduler gone on the way is said as lost. Every call
        to the scheduler while tables play goes through here: an unguarded one (the queue's size)
        let a scheduler killed between two polls end the command with Dask's traceback."""
        try:
            return question(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the connection's own errors vary with the failure
            raise self._lost(exc) from None

    def _all_done(self) -> bool:
        for index, future in self._futures.items():
            if future.status == "error":
                raise ClusterError(f"table t{index:04d} ({', '.join(self._bots_at[index])}) failed on the cluster: "
                                   f"{_said(future.exception())}")
            if future.status == "cancelled":
                if self.client.status != "running":  # a client that lost its scheduler cancels its futures
                    raise self._lost(None)
                raise ClusterError("a table's task was cancelled on the cluster (its workers were lost, or the "
                                   "scheduler restarted); the stored games are kept: run the same command to resume")
        return all(future.status == "finished" for future in self._futures.values())

    def _release(self, table_index: int) -> None:
        """Let the scheduler forget a table whose games are all here. A future held keeps its
        result wanted, and Dask computes a wanted result again when its worker is lost: a worker
        killed mid-run would make its finished tables play again, for nothing."""
        future = self._futures.pop(table_index, None)
        if future is not None:
            try:
                future.release()
            except Exception:  # noqa: BLE001 - a client already cut off: the next poll says the scheduler is lost
                log.debug("releasing table %d", table_index, exc_info=True)

    def _check_scheduler(self) -> None:
        if self.client.status not in ("running", "connecting"):
            raise self._lost(None)

    def _lost(self, exc: Exception | None) -> ClusterError:
        # Dask's closed-connection errors name its internals (a connection pool, a stream): to the
        # organiser they mean one thing. The command says the rest: what is kept, how to resume.
        why = ("" if exc is None else " (its connection closed)" if isinstance(exc, OSError)
               else f" ({type(exc).__name__})")
        return ClusterError(f"lost the Dask scheduler at {self.address}{why}: start it and its workers again "
                            "before resuming")

    def stop(self, wait_s: float = 0.0) -> None:  # noqa: ARG002 - the local pool's signature
        if self.client is None:
            return
        try:
            if any(f.status == "pending" for f in self._futures.values()):
                self._stop.set()  # tables under way end after their current game, and close their bots
                self.client.cancel(list(self._futures.values()))
                time.sleep(0.2)
            self._queue.close()
        except Exception:  # noqa: BLE001 - a scheduler already gone: nothing left to tell it
            log.debug("stopping the cluster's tables", exc_info=True)
        finally:
            try:
                self.client.close(timeout=5)
            except Exception:  # noqa: BLE001 - Dask raises when closing outlasts its limit (a hung link):
                log.debug("closing the Dask client", exc_info=True)  # raised, it would replace the run's message
            self.client = None


__all__ = ["ClusterError", "ClusterPool"]
