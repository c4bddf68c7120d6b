"""The guard of a running bot (docs/sandbox.md): what it may use, and what happens when it goes over.

Three layers, each best effort, all reported by `describe()`:

1. **rlimits**: address space, CPU seconds, file size, open files, no core dumps, and (only when
   not root: root ignores it) RLIMIT_NPROC. Under isolation the sandbox's set-up runs under the
   bot's ceilings and the shim sets the bot's own on itself after its ready mark (`wrap`), so that
   limits a bot sets too low fail its own program, not the set-up; without isolation they are set
   in the child before exec (`make_preexec`). And the seccomp filter that refuses file locks and
   inotify (arena/sandbox/seccomp.py).
2. **namespaces**: bubblewrap's sandbox under isolation (arena/sandbox/isolation.py); without it,
   where permitted, a network and a PID namespace of the arena's own (arena/sandbox/child.py).
3. **a guard per bot** (`BotGuard`): a cgroup (v2, or v1 `pids` + `memory` hierarchies) with
   pids.max / memory limit when /sys/fs/cgroup is writable, plus a watchdog thread that counts the
   bot's processes (cgroup counter, else a /proc scan by session/descendants/ARENA_BOT_TOKEN), their
   total RSS, and the kernel's memory kills. Over a limit, it SIGKILLs the whole bot; the referee
   then sees the bot exit and records an `exited` fault whose detail names the sandbox limit (via
   `SandboxedTransport`).

Closing: the transport's close() kills the whole tree (arena/transport/process_tree.py); the
guard then kills whatever is still in its cgroup and removes the cgroup.
"""

from __future__ import annotations

import atexit
import dataclasses
import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from arena.sandbox.cgroup import _Cgroup, cgroup_available, cleanup_stale_cgroups
from arena.sandbox.counts import bytes_in as _bytes_in, children as _children, threads_of as _threads_of
from arena.sandbox.child import can_unshare_net, can_unshare_pid, is_keeper, make_preexec, rlimits, ulimit_words
from arena.sandbox.folder_copy import copy_problem, copy_room_mb, copy_size, copy_words, tmpfs_bytes
from arena.sandbox.isolation import (BOT_FOLDER, Isolation, bot_environment, check_program, give_to, private_copy,
                                     readable_by_others, remove_private_copy, sandboxed_command)
from arena.sandbox.limits import DEFAULT_CEILINGS, LIMIT_KEYS, Limits
from arena.sandbox.outbound import WAIT_FOR_ROUTE, Outbound
from arena.sandbox.relay import relay_prelude
from arena.sandbox.sysinfo_answer import Answering
from arena.transport.base import BotUnreachable
from arena.transport.bot_process import stdio_shim

WATCH_INTERVAL_S = 0.2
# A ZeroMQ bot's socket folder lies on the host's disk, where nothing else bounds what it writes.
WRITABLE_FOLDER_MAX_BYTES = 1 << 20
log = logging.getLogger(__name__)


def tcp_asked(manifest: Any) -> bool:
    """An arena-started ZeroMQ bot that asks for a tcp endpoint (only a grant gives it one)."""
    return (getattr(manifest, "transport", "pipe") == "zmq" and getattr(manifest, "zmq_endpoint_kind", "ipc") == "tcp"
            and bool(getattr(manifest, "command", ())))


def describe(limits: Limits, *, network: bool = False, guard: BotGuard | None = None) -> dict[str, Any]:
    """The limits in force, as a plain dict to record with results."""
    root = os.getuid() == 0
    info: dict[str, Any] = {
        "address_space_mb": limits.address_space_mb,
        "cpu_seconds": limits.cpu_seconds,
        "file_size_mb": limits.file_size_mb,
        "open_files": limits.open_files,
        "processes": limits.processes,
        "memory_mb": limits.memory_mb,
        "rlimit_nproc": "not set (root ignores it)" if root else "set",
        "no_network": bool(limits.no_network and not network and can_unshare_net()),
        "own_pid_namespace": can_unshare_pid(),
    }
    if limits.no_network and network:
        info["no_network_skipped"] = "a tcp endpoint without isolation keeps the host's network"
    elif limits.no_network and not can_unshare_net():
        info["no_network_skipped"] = "unshare(CLONE_NEWNET) not permitted"
    if guard is not None:
        if guard.relay:
            info["tcp"] = "a loopback of its own, joined to the arena alone"
        if guard.outbound is not None:
            info["network"] = "outbound only, through slirp4netns: never the host's loopback"
        info["lock_filter"] = "file locks and inotify refused" if guard.lock_filter else "off"
        info["sysinfo"] = ("answered by the arena: the bot's own memory, no load" if guard.sysinfo_answered
                           else "the kernel's (the machine's figures)")
        info["process_limit_by"] = guard.mechanism
        info["memory_limit_by"] = guard.memory_mechanism
        info["isolation"] = guard.isolation.summary() if guard.isolation is not None else "none"
    else:
        cg = cgroup_available()
        info["process_limit_by"] = f"{cg} pids.max + watchdog" if cg else "watchdog (/proc scan)"
        info["memory_limit_by"] = f"{cg} memory + RLIMIT_AS" if cg else "RLIMIT_AS + watchdog (RSS sum)"
    return info


# ---------------------------------------------------------------- the parent side


_live_guards: set[BotGuard] = set()
_stale_cleaned = False  # cgroups left by earlier arenas are removed once per process


def _close_live_guards() -> None:
    """atexit: transports closed by close_all() (arena/transport/live_transports.py) bypass SandboxedTransport.close()."""
    for guard in list(_live_guards):
        guard.close()


def _at_least(limits: Limits, ceilings: Limits | None) -> Limits:
    """Each of `limits`, or its ceiling (the default ceilings when none is given) where that is
    more: what the sandbox's own set-up runs under."""
    ceilings = ceilings or DEFAULT_CEILINGS
    wider = {key: max(getattr(limits, key), getattr(ceilings, key)) for key in LIMIT_KEYS if key != "no_network"}
    return dataclasses.replace(limits, **wider)


class BotGuard:
    """Per-bot containment in the arena: cgroup + watchdog thread. Create before starting the bot,
    use `preexec` for the child, `attach(proc)` once started, `close()` after the transport closed."""

    def __init__(self, limits: Limits, *, network: bool = False, use_cgroup: bool = True,
                 isolation: Isolation | None = None, folder: Path | None = None, writable_folder: bool = False,
                 relay: bool = False, lock_filter: bool = True, extra_preexec: Callable[[], Any] | None = None,
                 ceilings: Limits | None = None) -> None:
        """`isolation` (active) puts the bot in a sandbox whose working folder is `folder`: read-only,
        or a private copy in memory when `writable_folder`; `wrap` and `environment` then give its
        command and environment. `network`: the bot keeps the host's network (an organiser's grant,
        or a tcp bot without isolation). `relay`: a granted tcp bot under isolation, joined to the
        arena alone (arena/sandbox/relay.py). `lock_filter`: the seccomp filter of seccomp.py.
        `ceilings`: the organiser's, which the sandbox's own set-up runs under; the bot's `limits`
        reach its own process after its ready mark (a bot that set them too low for the set-up
        voided every game), and are the whole process's without isolation."""
        self.limits = limits
        self.network = network
        self.violation: str | None = None
        self.isolation = isolation if isolation is not None and isolation.active else None
        self.folder = folder
        self.writable_folder = writable_folder
        self.relay = relay and self.isolation is not None
        # A granted network under isolation: outbound only, through slirp4netns (outbound.py).
        self.outbound = Outbound(self.isolation.bot_uid is None) if network and self.isolation else None
        self._private_copy: Path | None = None
        # bubblewrap's own two processes stay outside the bot, as the PID-namespace keeper does:
        # the cgroup makes room for them, and the watchdog leaves them out of the count. One is
        # its init, process 1 of the bot's namespace: the bot must not be, since process 1 drops
        # every signal it has no handler for, its own too. A tcp bot's relay is the sandbox's too,
        # and so is the process that copies a writable folder (a bot of one process has room for it).
        self._sandbox_tasks = (self.relay + writable_folder) if self.isolation else 0
        self._wrapper_tasks = (2 + self._sandbox_tasks) if self.isolation else 0
        self._writable: list[str] = []  # folders of the host it may write in (a ZeroMQ socket's): watched
        global _stale_cleaned
        if use_cgroup and not _stale_cleaned:
            _stale_cleaned = True
            cleanup_stale_cgroups()
        room = dataclasses.replace(limits, processes=limits.processes + self._wrapper_tasks)
        self.cgroup = _Cgroup.create(room) if use_cgroup else None
        self.mechanism = f"{self.cgroup.kind} pids.max + watchdog" if self.cgroup else "watchdog (/proc scan)"
        self.memory_mechanism = ("RLIMIT_AS + " + (f"{self.cgroup.kind} memory" if self.cgroup and self.cgroup.mem_dir
                                                  else "watchdog (RSS sum)"))
        bot_uid = self.isolation.bot_uid if self.isolation else None
        # Under isolation the bot's own rlimits are set by the shim after the ready mark (`wrap`).
        self._rlimits = rlimits(limits, uid=os.getuid() if bot_uid is None else bot_uid, counted=self.cgroup is not None)
        outer = _at_least(limits, ceilings) if self.isolation else limits
        # Its sysinfo calls answered by the arena, not the kernel (a figure of the machine's): sysinfo_answer.py.
        self.answering = Answering(limits.memory_mb) if lock_filter else None
        self.preexec = make_preexec(outer, network=network, cgroup=self.cgroup, namespaces=self.isolation is None,
                                    bot_uid=bot_uid, extra=extra_preexec, lock_filter=lock_filter,
                                    listener_to=self.answering.theirs if self.answering else None)
        self.lock_filter = lock_filter
        self.sysinfo_answered = False
        self._proc: Any = None
        self._outside: set[int] = set()  # the arena's own processes before the bot: keeper, or bubblewrap's two
        _live_guards.add(self)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def wrap(self, argv: list[str], writable_paths: Sequence[str] = (), *,
             relay: tuple[str, int] | None = None) -> list[str]:
        """The command that starts the bot: `argv` itself, or `argv` in its sandbox under isolation.
        `writable_paths` (a ZeroMQ ipc folder) stay writable for it; `relay` (a socket in one of
        them, and the bot's port) starts the tcp relay first. BotUnreachable if argv's program does
        not exist, as a start without a sandbox would say."""
        if self.isolation is None:
            return argv
        assert self.folder is not None  # the sandbox's working folder: a guard under isolation is given one
        problem = check_program(argv, self.folder)
        if problem:
            raise BotUnreachable(f"cannot start bot {argv[0]!r} in {str(self.folder)!r}: {problem}")
        uid = self.isolation.bot_uid
        source = None
        if uid is not None and not readable_by_others(self.folder):
            # The unprivileged user of a root arena could not read it (a folder of mode 0700 run
            # as it is, not prepared): a copy it can read, made once for this guard.
            if self._private_copy is None:
                self._private_copy = private_copy(self.folder, uid)
            source = self._private_copy
        if uid is not None:
            for path in writable_paths:
                give_to(path, uid)
        self._writable = list(writable_paths)
        # After the ready mark, the bot's: its own limits, then its folder's copy (made under them).
        after = [ulimit_words(self._rlimits)]
        copy_mb = 0
        if self.writable_folder:
            # A private copy in memory, sized to the copy and file_size_mb more: nothing on the
            # host's disk, gone with the bot. One that cannot fit its limits is refused here.
            size = copy_size(source or self.folder)
            problem = copy_problem(size, self.limits)
            if problem:
                raise BotUnreachable(f"cannot start bot {argv[0]!r}: {problem}")
            copy_mb = copy_room_mb(size, self.limits)
            after.append(copy_words(Path(BOT_FOLDER)))
        # Before the ready mark, the sandbox's own set-up: the tcp relay, the granted network's route.
        before = []
        if relay is not None and self.relay:
            before.append(relay_prelude(*relay))
        if self.outbound is not None:
            before.append(WAIT_FOR_ROUTE)
        return sandboxed_command(self.isolation, argv, source or self.folder, copy_mb=copy_mb,
                                 writable_paths=writable_paths, network=self.network, tmp_mb=self.limits.file_size_mb,
                                 memory_mb=self.limits.memory_mb,
                                 before=stdio_shim("\n".join(before), "\n".join(after)))

    def run_folder(self) -> Path | None:
        """Where the bot starts, outside a sandbox: its folder, or for a bot that writes in it a
        private copy (made once for this guard, removed with it), so that nothing it writes reaches
        the next start. Under isolation the sandbox makes that copy itself (`wrap`)."""
        if self.isolation is None and self.writable_folder and self.folder is not None:
            if self._private_copy is None:
                self._private_copy = private_copy(self.folder, None)
            return self._private_copy
        return self.folder

    def environment(self) -> dict[str, str] | None:
        """The bot's environment under isolation (nothing of the organiser's); None: the arena's own."""
        return bot_environment() if self.isolation is not None else None

    def attach(self, proc: Any) -> None:
        """Start watching a started BotProcess (arena.transport.bot_process)."""
        if proc is None:
            return
        self._proc = proc
        if self.answering is not None:
            self.sysinfo_answered = self.answering.started()
        if self.outbound is not None:
            self.outbound.start(proc.pid)
        if self.isolation is not None:
            proc.signal_in_exit_code = True  # bubblewrap reports a bot killed by signal N as 128 + N
            self._outside = {proc.pid}  # and its init, its only child, once forked (_watch)
        else:
            # Known once, now: the keeper unshared before Popen returned (the bot itself cannot have
            # yet), and later a bot could unshare to hide from the count.
            self._outside = {proc.pid} if is_keeper(proc.pid) else set()
        self._thread = threading.Thread(target=self._watch, name=f"bot-guard-{proc.pid}", daemon=True)
        self._thread.start()

    def describe(self) -> dict[str, Any]:
        return describe(self.limits, network=self.network, guard=self)

    def _members(self) -> set[int]:
        """The bot's processes: the cgroup's list (cheap, nothing escapes it), else a /proc scan."""
        if self.cgroup is not None:
            pids = self.cgroup.pids()
            if pids or self._proc is None or self._proc.returncode is not None:
                return pids
        try:
            return set(self._proc.members())
        except OSError:  # /proc could not be read just now: the next look will
            return set()

    def _watch(self) -> None:
        while not self._stop.wait(WATCH_INTERVAL_S):
            try:
                members = self._members()
                if self.isolation is not None and len(self._outside) < 2:
                    self._outside |= _children(self._proc.pid)  # bubblewrap's init
                reason = self._over_a_limit(members - self._outside)
                if reason is not None:
                    self.violation = f"sandbox: {reason}; the bot was killed"
                    self._kill(members)
                    return
                if not members and (self._proc.returncode is not None):
                    if self.cgroup is not None:
                        self.cgroup.remove()  # the bot is gone: no cgroup left even if close() never comes
                    return
            except Exception:  # noqa: BLE001 - said, and the watch goes on: a guard that stopped would lift every limit
                log.warning("the watchdog of bot process %s met an error", getattr(self._proc, "pid", "?"), exc_info=True)

    def _over_a_limit(self, bots_own: set[int]) -> str | None:
        """Which limit the bot is over, in words, or None."""
        limit = self.limits.processes
        if self.cgroup is not None and self.cgroup.fork_refused() > 0:
            return f"more than {limit} processes/threads (fork refused by pids.max)"
        memory = self.out_of_memory()
        if memory:
            return memory
        tasks = self.cgroup.pids_current() if self.cgroup is not None else None
        tasks = _threads_of(bots_own) - self._sandbox_tasks if tasks is None else tasks - self._wrapper_tasks
        if tasks > limit:
            return f"more than {limit} processes ({tasks} seen)"
        written = sum(_bytes_in(folder) for folder in self._writable)
        if written > WRITABLE_FOLDER_MAX_BYTES:
            return f"more than {WRITABLE_FOLDER_MAX_BYTES >> 20} MB written into its socket's folder (only its socket goes there)"
        if self.cgroup is None or self.cgroup.mem_dir is None:
            return self._over_memory(bots_own)
        return None

    def _over_memory(self, bots_own: set[int]) -> str | None:
        """Without a memory cgroup: the resident memory of the bot's processes, and what its sandbox
        holds in memory beside them (its /tmp, /dev/shm and folder copy, each a tmpfs: a bot held
        2,213 MB under memory_mb = 2048 there), over its memory_mb; else None."""
        page = os.sysconf("SC_PAGE_SIZE")
        used = 0
        for pid in bots_own:
            try:
                with open(f"/proc/{pid}/statm", "rb") as f:
                    used += int(f.read().split()[1]) * page
            except (OSError, ValueError, IndexError):
                pass  # gone since it was listed
        if self.isolation is not None and self.folder is not None:
            used += tmpfs_bytes(bots_own, ("/tmp", "/dev/shm") + ((BOT_FOLDER,) if self.writable_folder else ()))
        if used > self.limits.memory_mb << 20:
            return (f"more than {self.limits.memory_mb} MB of memory (its processes' resident memory and its "
                    "/tmp, /dev/shm and folder copy)")
        return None

    def out_of_memory(self) -> str | None:
        """Words for a kill by the kernel's memory limit (the cgroup's), else None: the kernel ends a
        process of the bot without a word, and the bot's fault must say why."""
        if self.cgroup is not None and self.cgroup.oom_kills() > 0:
            return f"more than {self.limits.memory_mb} MB of memory (the kernel's memory limit ended one of its processes)"
        return None

    def _kill(self, members: set[int]) -> None:
        for _ in range(20):
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            if self.cgroup is not None:
                self.cgroup.kill_all()
            members = self._members()
            if not members:
                return
            time.sleep(0.01)

    def close(self) -> None:
        """After the transport's close(): stop watching, kill leftovers in the cgroup, remove it."""
        _live_guards.discard(self)
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        if self.cgroup is not None:
            self.cgroup.kill_all()
            self.cgroup.remove()
        if self._private_copy is not None:
            remove_private_copy(self._private_copy)
            self._private_copy = None
        if self.answering is not None:
            self.answering.close()
        if self.outbound is not None:
            self.outbound.close()


# Registered after live_transports' close_all (imported by the match layer first), so it runs before
# it at exit; close() kills what is in the cgroup anyway, then close_all() reaps the transports.
atexit.register(_close_live_guards)
