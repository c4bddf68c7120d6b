"""The child side of the bot sandbox (docs/sandbox.md): what runs between fork and exec.

`make_preexec` builds the preexec_fn that sets the rlimits, joins the bot's cgroup, and makes
the network and PID namespaces where permitted; the probes say once per arena whether those
namespaces are permitted. The parent side, the guard that watches a running
bot, is arena/sandbox/guard.py. Stdlib only.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import socket
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from arena.sandbox.limits import Limits
    from arena.sandbox.cgroup import _Cgroup

CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
PR_SET_PDEATHSIG = 1
_FD_CEILING = 1 << 20  # above any descriptor a process here can hold


# ---------------------------------------------------------------- what is possible here

_probe_cache: dict[str, bool] = {}


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _can_unshare(flag: int, key: str) -> bool:
    """Probe once (in a forked child) whether unshare(flag) is permitted."""
    if key not in _probe_cache:
        ok = False
        try:
            pid = os.fork()
            if pid == 0:  # pragma: no cover - child
                try:
                    code = 0 if _libc().unshare(flag) == 0 else 1
                except Exception:
                    code = 1
                os._exit(code)
            _, status = os.waitpid(pid, 0)
            ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        except OSError:
            ok = False
        _probe_cache[key] = ok
    return _probe_cache[key]


def can_unshare_net() -> bool:
    return _can_unshare(CLONE_NEWNET, "net")


def can_unshare_pid() -> bool:
    return _can_unshare(CLONE_NEWPID, "pid")


def _uid_tasks(uid: int) -> int:
    """Threads currently owned by uid (RLIMIT_NPROC counts them all)."""
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if os.stat(f"/proc/{name}").st_uid != uid:
                continue
            with open(f"/proc/{name}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"Threads:"):
                        total += int(line.split()[1])
                        break
        except (OSError, ValueError):
            continue
    return total


# ---------------------------------------------------------------- the child side


# What bash's `ulimit` calls each rlimit, and the unit it counts in (bytes per unit; 1: as is).
_ULIMIT_FLAGS = {resource.RLIMIT_AS: ("-v", 1024), resource.RLIMIT_CPU: ("-t", 1), resource.RLIMIT_FSIZE: ("-f", 1024),
                 resource.RLIMIT_NOFILE: ("-n", 1), resource.RLIMIT_CORE: ("-c", 1024)}
if hasattr(resource, "RLIMIT_NPROC"):
    _ULIMIT_FLAGS[resource.RLIMIT_NPROC] = ("-u", 1)


def rlimits(limits: Limits, *, uid: int, counted: bool) -> list[tuple[int, int, int]]:
    """The rlimits of a process run under `limits`, as (resource, soft, hard), each within this
    process's own hard limit (which its children inherit and could not raise). `uid`: who the
    process runs as; `counted`: a cgroup counts its processes (then no RLIMIT_NPROC)."""
    mb = 1 << 20
    wanted = [(resource.RLIMIT_AS, limits.address_space_mb * mb), (resource.RLIMIT_CPU, limits.cpu_seconds),
              (resource.RLIMIT_FSIZE, limits.file_size_mb * mb), (resource.RLIMIT_NOFILE, limits.open_files),
              (resource.RLIMIT_CORE, 0)]
    if uid != 0 and not counted and hasattr(resource, "RLIMIT_NPROC"):
        # Only where no cgroup counts the bot: a backstop against a fork bomb between two looks of
        # the watchdog. It counts every task of the user, other bots' too, hence twice the limit
        # beyond those that exist: at the limit itself the watchdog, which kills, never acted.
        wanted.append((resource.RLIMIT_NPROC, _uid_tasks(uid) + 2 * limits.processes))
    found = []
    for which, value in wanted:
        try:
            hard = resource.getrlimit(which)[1]
        except (ValueError, OSError):
            continue
        if which == resource.RLIMIT_CPU:  # SIGXCPU at the limit, SIGKILL 5 s later
            new_hard = value + 5 if hard == resource.RLIM_INFINITY else min(hard, value + 5)
            found.append((which, min(value, new_hard), new_hard))
        else:
            new_hard = value if hard == resource.RLIM_INFINITY else min(hard, value)
            found.append((which, new_hard, new_hard))
    return found


def ulimit_words(values: list[tuple[int, int, int]]) -> str:
    """bash words that set `values` (`rlimits`) on the shell itself, for the program it then execs:
    each soft limit first, then the hard one (lowering a hard limit below the soft one fails).
    Exits 126, saying so, if one cannot be set."""
    soft, hard = [], []
    for which, low, high in values:
        flag, unit = _ULIMIT_FLAGS[which]
        soft += [flag, str(low // unit)]
        hard += [flag, str(high // unit)]
    return (f"ulimit -S {' '.join(soft)} && ulimit -H {' '.join(hard)} "
            "|| { echo 'arena: the limits of the bot could not be set' >&2; exit 126; }")


def make_preexec(limits: Limits, *, network: bool = False, cgroup: _Cgroup | None = None,
                 extra: Callable[[], Any] | None = None, namespaces: bool = True,
                 bot_uid: int | None = None, run_as: int | None = None,
                 lock_filter: bool = False, listener_to: socket.socket | None = None) -> Callable[[], None]:
    """A preexec_fn for the bot's child process, run under `limits` (under isolation, the ceilings
    of the sandbox's set-up: the bot's own come after its ready mark, arena/sandbox/guard.py).
    `network=True` keeps the network (zmq tcp).
    `namespaces=False`: the bot's PID and network namespaces are bubblewrap's job (isolation), not
    ours. `bot_uid`: who the bot runs as, when not the arena's user (isolation under root).
    `run_as`: a user the child becomes itself, last (a root arena's build without isolation).
    `lock_filter`: the seccomp filter of arena/sandbox/seccomp.py, installed last of all;
    `listener_to`: where the child sends its listener, whose calls the arena answers (sysinfo).
    Everything here is computed in the parent; the child only makes syscalls."""
    uid = os.getuid() if bot_uid is None else bot_uid
    rl = rlimits(limits, uid=uid, counted=cgroup is not None)
    unshare = namespaces and limits.no_network and not network and can_unshare_net()
    own_pids = namespaces and can_unshare_pid()
    libc = _libc() if unshare or own_pids else None
    install_filter = _lock_filter(listener_to is not None) if lock_filter else None

    def preexec() -> None:
        if extra is not None:
            extra()
        # The keeper first, so that it stays out of the bot's cgroup and rlimits: it would take
        # one of the bot's `processes` (with processes = 1, every start failed).
        if own_pids:
            assert libc is not None  # loaded above whenever own_pids or unshare
            if libc.unshare(CLONE_NEWPID) == 0:
                _keep_namespace(libc)  # returns only in the process that goes on to exec the bot
        if cgroup is not None:
            try:
                cgroup.join_self()
            except OSError:
                pass
        for which, soft, hard in rl:
            try:
                resource.setrlimit(which, (soft, hard))
            except (ValueError, OSError, OverflowError):
                pass
        if unshare:
            assert libc is not None
            libc.unshare(CLONE_NEWNET)
        if run_as is not None:
            os.setgroups([])
            os.setresgid(run_as, run_as, run_as)
            os.setresuid(run_as, run_as, run_as)
        if install_filter is not None:
            listener = install_filter()  # raises: a bot must not start without the filter it was meant to have
            if listener is not None:
                assert listener_to is not None  # only asked for with somewhere to send it
                socket.send_fds(listener_to, [b"L"], [listener])
                os.close(listener)

    return preexec


_filter_installers: dict[bool, Any] = {}


def _lock_filter(answered: bool) -> Callable[[], int | None] | None:
    """The seccomp filter's installer (with sysinfo answered by the arena, or not), made once per
    arena process."""
    if answered not in _filter_installers:
        from arena.sandbox.seccomp import installer

        _filter_installers[answered] = installer(answered)
    return _filter_installers[answered]


def is_keeper(pid: int) -> bool:
    """Whether `pid` is a namespace keeper (`_keep_namespace`): it unshared CLONE_NEWPID, so its
    children live in a PID namespace other than its own. The watchdog leaves it out of the bot's
    process count and memory: it is the arena's, a forked copy of it (its resident pages are the
    arena's), and never the bot's code."""
    try:
        if os.readlink(f"/proc/{pid}/ns/pid") == os.readlink(f"/proc/{pid}/ns/pid_for_children"):
            return False
        # Also never exec'd: a bot whose keeper could not fork runs in its place, after the unshare.
        with open(f"/proc/{pid}/cmdline", "rb") as theirs, open("/proc/self/cmdline", "rb") as ours:
            return theirs.read() == ours.read()
    except OSError:  # gone, or a kernel without pid_for_children (before 4.12): count it
        return False


def _own_proc(libc) -> None:
    """Give the bot a /proc of its own namespace, in a mount namespace of its own.

    Through the host's /proc a bot could open another bot's stdout (`/proc/<pid>/fd/1`) and write
    lines in its name. Best effort: if a step is refused the bot still runs, as without namespaces."""
    if libc.unshare(CLONE_NEWNS) != 0:
        return
    # Private first, so that the new /proc does not propagate back to the host's mount table.
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return
    libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)


def _keep_namespace(libc) -> None:
    """Run in the bot's child right after unshare(CLONE_NEWPID).

    That call puts only this process's *next* child into the new namespace, so fork once more:
    the child returns and execs the bot as process 1 of its own namespace. There it cannot see,
    let alone signal, the arena, its worker or the other bots; and when it ends, the kernel ends
    everything it started, even processes that left its session and cgroup.

    This process stays outside as the bot's keeper: it is what the arena started (its pid, its
    process group), it exits with the bot's status, and if it is killed the bot gets SIGKILL
    (PR_SET_PDEATHSIG). It holds no descriptor, so the bot's pipes and Popen's exec-error pipe
    end when the bot's end. It ignores SIGTERM/SIGINT/SIGHUP: the arena's signals reach the bot
    itself through the process group, and the keeper must not die (taking the bot along with
    SIGKILL) before the bot had its grace. As process 1 the bot gets SIGTERM only if it handles
    it; SIGKILL always arrives.
    """
    try:
        bot = os.fork()
    except OSError:
        return  # no fork: the bot runs here, as without a PID namespace of its own
    if bot == 0:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        _own_proc(libc)
        return
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    os.closerange(0, _FD_CEILING)
    while True:
        try:
            _, status = os.waitpid(bot, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(1)
    if os.WIFSIGNALED(status):  # die the same way, so the arena reports the bot's own signal
        signum = os.WTERMSIG(status)
        try:
            signal.signal(signum, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP cannot be handled, so need no reset: raising here exited 255
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
