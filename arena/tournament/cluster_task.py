"""What a Dask worker runs for a tournament (arena/tournament/cluster_pool.py): one table, its bots
unpacked from their bundles (once per version on the machine) and built there, each game put on
the run's queue as it ends, so that the organiser stores it at once. The organiser's process stays
the only writer of results; a worker needs the arena installed and the bots' runtimes, nothing of
the organiser's folders."""

from __future__ import annotations

import hashlib
import pickle
import socket
import time
from pathlib import Path

from arena.play.records import TimeLimits
from arena.play.startup import BotSettings, granted
from arena.protocol import PROTOCOL_VERSION
from arena.sandbox.isolation import find_isolation
from arena.schedule.games import TableSpec
from arena.submission.prepared import PreparedBot, prepare_bot
from arena.submission.manifest import BotManifest, ManifestError
from arena.sandbox.limits import LimitRefused
from arena.submission.bundle import Bundle, unpack
from arena.tournament.config import TournamentConfig
from arena.tournament.cores import claimed_core
from arena.tournament.table_play import play_table


STOP_CHECK_S = 1.0
# Games go back in small batches: one scheduler round trip per game cost a tenth of a two-core
# machine's cluster throughput (benchmarks/cluster.py), and a quarter second holds nothing back.
SEND_EVERY_S = 0.25


class VersionMismatch(RuntimeError):
    """A worker runs another arena or protocol version than the organiser's."""


def _code_hash() -> str:
    """A hash of the arena's own source files: two arenas of one version number can differ (a
    clone updated under a running worker), and would then play other games from the same seeds."""
    import arena

    root = Path(arena.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] in ("bundled_bots", "guide"):  # package data of the wheel, not code
            continue
        digest.update(relative.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


# Read once, when this process loads the arena: the code it runs, even if the files change later.
CODE_HASH = _code_hash()


def worker_facts() -> tuple[str, str, str, str]:
    """(arena version, protocol version, host name, code hash) of the process this runs in."""
    import arena

    return arena.__version__, str(PROTOCOL_VERSION), socket.gethostname(), CODE_HASH


def worker_isolation(mode: str) -> tuple[bool, str]:
    """Whether bots are isolated on this worker's machine under the config's `isolation`, and
    that in a line for people (the run's first line)."""
    isolation = find_isolation(mode)
    return isolation.active, isolation.summary()


def code_difference(here: tuple, expected: tuple) -> str:
    """What differs between a worker's facts and the organiser's expected (version, protocol,
    code hash), in words; "" when nothing does."""
    arena, protocol, _host, code = here
    if (arena, protocol) != tuple(expected[:2]):
        return (f"runs arena {arena} (protocol {protocol}), this arena is {expected[0]} (protocol {expected[1]}): "
                "install the same version there")
    if code != expected[2]:
        return (f"runs other arena code than this one (both {arena}; code {code}, here {expected[2]}: a worker "
                "started before the arena was updated?): restart it with the arena this machine has")
    return ""


def bundle_task(bundle: Bundle) -> Bundle:
    """A bot's bundle as a task's result: Dask moves it to the workers whose tables need it, and
    computes it again from the task when the worker holding it is lost."""
    return bundle


def play_table_task(table: TableSpec, bundles: dict[str, Bundle], config: TournamentConfig, expected: tuple[str, str, str],
                    queue_name: str, stop_name: str) -> int:
    """Play `table` here and put its games on the queue `queue_name` as they end, a pickled list
    of (spec, record, where) a few times a second: `where` names the machine, the isolation the
    bots ran under and their build digests; a last ("done", table index, games) says the table is
    over. Stops between games once the event `stop_name` is set (the organiser was stopped).
    Returns the games played. A failure reaches the organiser as a RuntimeError of words: Dask
    could not send one whose traceback was too deep to pickle (a RecursionError), and the
    organiser waited for the table for good."""
    try:
        return _play_table_here(table, bundles, config, expected, queue_name, stop_name)
    except VersionMismatch:
        raise
    except Exception as exc:  # noqa: BLE001 - said in words the organiser's message quotes
        raise RuntimeError(str(exc) if type(exc) is RuntimeError else f"{type(exc).__name__}: {exc}") from None


def _play_table_here(table: TableSpec, bundles: dict[str, Bundle], config: TournamentConfig,
                     expected: tuple[str, str, str], queue_name: str, stop_name: str) -> int:
    from distributed import Event, Queue, get_worker

    worker = get_worker()
    here = worker_facts()
    difference = code_difference(here, expected)
    if difference:
        raise VersionMismatch(f"worker {worker.address} ({here[2]}) {difference}")
    isolation = find_isolation(config.isolation)
    if config.isolation == "required" and not isolation.active:
        raise RuntimeError(f"worker {worker.address} ({here[2]}) cannot isolate bots ({isolation.why_not}), and the "
                           'config says isolation = "required"')
    manifests, builds, unavailable = {}, {}, {}
    for name, bundle in bundles.items():
        try:
            bot = _ready(bundle, config, isolation)
            manifests[name], builds[name] = bot.manifest, bot.build
        except (ManifestError, LimitRefused) as exc:
            # The bot's own doing (files refused, a failed build): its games are its faults, the
            # table's others play; one bot must not stop the tournament.
            manifests[name] = bundle_manifest_placeholder(bundle)
            unavailable[name] = f"could not be unpacked and built on worker {worker.address} ({here[2]}): {exc}"
        except OSError as exc:  # the machine's (a full disk): no game of this table is a result
            raise RuntimeError(f"worker {worker.address} ({here[2]}) could not unpack and build {name}: "
                               f"{type(exc).__name__}: {exc}") from exc
    where = {"machine": f"{here[2]} ({worker.address})", "isolation": isolation.record(), "builds": builds}
    queue, stop = Queue(queue_name), Event(stop_name)
    played = 0
    asked = [time.monotonic()]

    waiting: list = []  # games not yet put: sent together, a few times a second
    sent = [time.monotonic()]

    def send() -> None:
        if waiting:
            queue.put(pickle.dumps(waiting))  # one round trip to the scheduler for them all
            waiting.clear()
        sent[0] = time.monotonic()

    def report(spec, record) -> None:
        nonlocal played
        waiting.append((spec, record, where))
        played += 1
        if time.monotonic() - sent[0] >= SEND_EVERY_S:
            send()

    key = worker.get_current_task()

    def keep_going() -> bool:
        # Asked of the scheduler at most once a second: each question is a round trip.
        if time.monotonic() - asked[0] < STOP_CHECK_S:
            return True
        asked[0] = time.monotonic()
        # Our task forgotten (the organiser's process died, SIGKILL included, and the scheduler
        # released its work): nobody would store our games, so the table ends here.
        task = worker.state.tasks.get(key)
        if task is None or task.state in ("cancelled", "released", "forgotten"):
            return False
        return not stop.is_set()

    try:
        with claimed_core() as cpu:
            settings = BotSettings(limits=TimeLimits(config.move_timeout_s, config.startup_timeout_s),
                                   sandbox_limits=config.sandbox or None, grants=config.grants, isolation=isolation,
                                   cpu=cpu, unavailable=unavailable)
            play_table(table, manifests, config, settings, report, keep_going=keep_going,
                       notify=lambda line: queue.put(pickle.dumps([("note", line, worker.address)])))
    finally:
        send()  # what was played is stored, even when the table ends early
    queue.put(pickle.dumps([("done", table.index, played)]))  # the organiser need not poll the task for its end
    return played


_ready_here: dict[tuple[str, str], PreparedBot] = {}  # (bot, version) -> ready in this worker process


def _ready(bundle: Bundle, config: TournamentConfig, isolation) -> PreparedBot:
    """The bot unpacked and prepared on this machine (arena/submission/prepared.py): once per
    version per machine (a lock) and looked up once per worker process."""
    key = (bundle.name, bundle.version)
    if key not in _ready_here:
        manifest = unpack(bundle)
        settings = BotSettings(sandbox_limits=config.sandbox or None, grants=config.grants)
        _ready_here[key] = prepare_bot(manifest, isolation=isolation, limits=granted(manifest, settings).limits)
    return _ready_here[key]


def bundle_manifest_placeholder(bundle: Bundle) -> BotManifest:
    """A manifest that names a bot this worker could not ready: its seats never start
    (BotSettings.unavailable says why), and nothing of it is read."""
    return BotManifest(name=bundle.name, directory=Path("/nonexistent"), command=("unavailable",), transport="pipe")


__all__ = ["VersionMismatch", "bundle_task", "worker_facts", "worker_isolation", "play_table_task"]
