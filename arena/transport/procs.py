"""Bot process lifecycle: start in its own session, drain stderr, kill the whole tree.

Shared by the pipe and the ZeroMQ transport. Also owns the registry of live transports so
`close_all()` (atexit, or the CLI's Ctrl-C/SIGTERM handler) leaves no bot process behind.
"""

from __future__ import annotations

import atexit
import errno
import os
import re
import signal
import stat
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from arena.wording import quoted
from arena.transport.base import BotUnreachable

# Every bot gets this variable with a per-process token. Children inherit it, so a
# grandchild that escaped with setsid() and was re-parented to init is still found by
# reading /proc/<pid>/environ (only a process that exec()s with a scrubbed env escapes).
TOKEN_ENV = "ARENA_BOT_TOKEN"
_TAIL_KEEP = 16384


class _Closable(Protocol):
    def close(self) -> None: ...


_live: dict[int, _Closable] = {}
_live_lock = threading.Lock()


def register(obj: _Closable) -> None:
    """Remember a live transport so close_all() can reach it."""
    with _live_lock:
        _live[id(obj)] = obj


def unregister(obj: _Closable) -> None:
    with _live_lock:
        _live.pop(id(obj), None)


def close_all() -> None:
    """Close every live transport, in parallel so N stubborn bots cost one grace, not N."""
    with _live_lock:
        objs = list(_live.values())
    threads = [threading.Thread(target=_quiet_close, args=(o,), daemon=True) for o in objs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10.0)


def _quiet_close(obj: _Closable) -> None:
    try:
        obj.close()
    except Exception:  # close() must never raise; belt and braces for atexit
        pass


atexit.register(close_all)


def _read_stat(pid: str) -> tuple[bytes, int, int, int] | None:
    """(state, ppid, pgrp, session) from /proc/<pid>/stat, or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # comm may contain spaces and parens: the fields start after the LAST ')'.
    rest = data[data.rindex(b")") + 2 :].split(None, 5)
    return rest[0], int(rest[1]), int(rest[2]), int(rest[3])


def pid_alive(pid: int) -> bool:
    """True if pid exists and is not a zombie (zombies hold no resources but a slot)."""
    st = _read_stat(str(pid))
    return st is not None and st[0] not in (b"Z", b"X")


def open_log_for_append(path: str | os.PathLike, mode: str, **kwargs: Any):
    """Open a log file to append to, refusing anything but a regular file.

    A bot runs as the arena's user and may replace its log with a FIFO or a symlink: a plain
    open() of a FIFO blocks until someone reads it (it hung the arena, in an audit), and a
    symlink would send the arena's writes elsewhere."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
        return open(fd, mode, **kwargs)
    except BaseException:
        os.close(fd)
        raise


def tree_members(popen: subprocess.Popen, token: str) -> set[int]:
    """Live (non-zombie) pids started from `popen`: its session, its group, its descendants,
    and anything carrying `token` in its environment (setsid'd grandchildren re-parented to init).
    Bots and build steps alike: a process they leave behind holds resources and pipes."""
    me = os.getpid()
    root = popen.pid
    root_alive = popen.poll() is None  # also reaps, so a zombie root is not "alive"
    found: set[int] = set()
    children: dict[int, list[int]] = {}
    token_entry = f"{TOKEN_ENV}={token}".encode()
    try:
        names = os.listdir("/proc")
    except OSError:  # no procfs (not Linux): fall back to the process group alone
        names = []
    for name in names:
        if not name.isdigit():
            continue
        st = _read_stat(name)
        if st is None or st[0] in (b"Z", b"X"):
            continue
        pid = int(name)
        if pid == me:
            continue
        state, ppid, pgrp, sid = st
        children.setdefault(ppid, []).append(pid)
        if sid == root or pgrp == root:
            found.add(pid)
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if token_entry in f.read():
                    found.add(pid)
        except OSError:
            pass  # other users' processes, or already gone
    if root_alive:
        seen = {root}
        stack = [root]
        while stack:
            for c in children.get(stack.pop(), ()):
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        found |= seen  # root included: returncode None means not yet reaped
    found.discard(me)
    return found


def signal_tree(popen: subprocess.Popen, sig: int, pids: set[int]) -> None:
    """Send `sig` to `pids` and to the process group of `popen` (which outlives its leader)."""
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass
    try:
        os.killpg(popen.pid, sig)
    except OSError:
        pass


def kill_tree(popen: subprocess.Popen, token: str) -> None:
    """SIGKILL everything `tree_members` finds until nothing is left, then reap `popen`."""
    for _ in range(50):  # repeat: a process may fork between the scan and the kill
        popen.poll()
        pids = tree_members(popen, token)
        if not pids:
            break
        signal_tree(popen, signal.SIGKILL, pids)
        time.sleep(0.005)
    try:
        popen.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        pass


STDERR_HINT_BYTES = 1000  # of the stderr tail kept in memory, searched for a crash's reason
STDERR_HINT_CHARS = 120
# Lines after a crash's reason that say nothing of it: Rust's "note: run with RUST_BACKTRACE=1",
# Java's "\tat Bot.main(Bot.java:12)" frames, "... 3 more", numbered backtrace frames.
_TRAILER = re.compile(r"^(note:|at |\.\.\. \d+ more|stack backtrace:|\d+: )")


def telling_line(stderr_tail: str) -> str:
    """The last line of a crash's stderr that says why: Python ends with it (ValueError: ...);
    Rust and Java follow it with notes and stack frames, skipped here."""
    lines = [line.strip() for line in stderr_tail.splitlines() if line.strip()]
    for line in reversed(lines):
        if not _TRAILER.match(line):
            return line
    return lines[-1] if lines else ""


class BotProcess:
    """One started bot process plus everything it spawns."""

    def __init__(self, popen: subprocess.Popen[bytes], token: str, stdin_fd: int | None,
                 stdout_fd: int | None, stderr_fd: int, stderr_log_path: str | None,
                 stderr_log_cap_bytes: int) -> None:
        self.popen = popen
        self.token = token
        self.stdin_fd = stdin_fd
        self.stdout_fd = stdout_fd
        self._close_lock = threading.Lock()
        self._tail = bytearray()
        self._tail_lock = threading.Lock()
        self._stderr_thread = threading.Thread(
            target=self._drain_stderr, args=(stderr_fd, stderr_log_path, stderr_log_cap_bytes),
            name=f"bot-stderr-{popen.pid}", daemon=True)
        self._stderr_thread.start()

    @classmethod
    def start(cls, argv: list[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
              stderr_log_path: str | None = None, stderr_log_cap_bytes: int = 1_000_000,
              preexec: Callable[[], Any] | None = None, stdout_pipe: bool = True) -> BotProcess:
        """Start argv (never via a shell) in a new session with stdin/stdout/stderr pipes.

        With stdout_pipe=False the bot's stdout goes to the stderr log (ZeroMQ bots talk
        over the socket, but their prints are still worth keeping).
        """
        if not argv:
            raise BotUnreachable("cannot start bot: empty command")
        token = uuid.uuid4().hex
        if env is None:
            full_env = dict(os.environ)
            # A Python bot that forgets to flush works in a shell with PYTHONUNBUFFERED set (some
            # IDEs and containers set it) and hangs on the organiser's machine. Without it, it
            # fails its own `arena bot check` the same way everywhere.
            full_env.pop("PYTHONUNBUFFERED", None)
        else:
            full_env = dict(env)
        full_env[TOKEN_ENV] = token
        in_r, in_w = os.pipe()
        err_r, err_w = os.pipe()
        out_r, out_w = os.pipe() if stdout_pipe else (None, err_w)
        try:
            popen = subprocess.Popen(
                argv, stdin=in_r, stdout=out_w, stderr=err_w, cwd=cwd, env=full_env,
                start_new_session=True, preexec_fn=preexec, close_fds=True)
        except OSError as e:
            for fd in {in_r, in_w, err_r, err_w, out_r, out_w} - {None}:
                os.close(fd)  # type: ignore[arg-type]
            where = f" in {cwd!r}" if cwd else ""
            raise BotUnreachable(f"cannot start bot {argv[0]!r}{where}: {e.strerror or e}") from e
        except Exception as e:  # e.g. preexec failure surfaces as SubprocessError
            for fd in {in_r, in_w, err_r, err_w, out_r, out_w} - {None}:
                os.close(fd)  # type: ignore[arg-type]
            raise BotUnreachable(f"cannot start bot {argv[0]!r}: {e}") from e
        # The child has its copies; the arena must not hold the write ends or EOF never comes.
        for fd in {in_r, err_w, out_w}:
            os.close(fd)
        proc = cls(popen, token, in_w, out_r, err_r, stderr_log_path, stderr_log_cap_bytes)
        return proc

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        """Exit code (>= 0), -signal, or None while running. Reaps the child if it exited."""
        return self.popen.poll()

    def wait_returncode(self, timeout_s: float) -> int | None:
        """Wait briefly for the exit status (stdout EOF usually precedes the reap by µs)."""
        try:
            return self.popen.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def stderr_reason(self) -> str:
        """"; its stderr says: <the line that says why>" for an exit's message, or "": a crash's
        reason then reaches the fault without a trip to the log file (escaped: it reaches terminals)."""
        said = telling_line(self.stderr_tail(STDERR_HINT_BYTES))
        return f"; its stderr says: {quoted(said, STDERR_HINT_CHARS)}" if said else ""

    def stderr_tail(self, n_bytes: int = 2000) -> str:
        with self._tail_lock:
            return bytes(self._tail[-n_bytes:]).decode("utf-8", errors="replace")

    def _drain_stderr(self, fd: int, path: str | None, cap: int) -> None:
        # Keeps reading to EOF even past the cap: a bot blocked on a full stderr pipe
        # would look like a timeout and be blamed for the arena's stinginess.
        log = None
        written = 0
        try:
            if path:
                log = open_log_for_append(path, "ab", buffering=0)
                # The cap is per log file, not per process start: a bot that floods and crashes
                # in every game would otherwise add a megabyte per game (an audit saw it).
                written = min(cap, os.fstat(log.fileno()).st_size)
        except OSError:
            log = None
        log_full = written >= cap  # full since an earlier start: its truncation note is there
        try:
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except InterruptedError:
                    continue
                except OSError:
                    break
                if not chunk:
                    break
                with self._tail_lock:  # the tail (quoted when the bot dies) is kept past the cap
                    self._tail += chunk
                    if len(self._tail) > _TAIL_KEEP:
                        del self._tail[:-_TAIL_KEEP]
                if log is None or log_full:
                    continue
                part = chunk[: cap - written]
                written += len(part)
                log.write(part)
                if len(part) < len(chunk):
                    log_full = True
                    log.write(f"\n[stderr truncated at {cap} bytes]\n".encode())
        except OSError:
            pass
        finally:
            if log is not None:
                log.close()
            os.close(fd)

    def members(self) -> set[int]:
        """Live (non-zombie) pids of this bot: its session, its group, its descendants,
        and anything carrying its token (setsid'd grandchildren re-parented to init)."""
        return tree_members(self.popen, self.token)

    def close_stdin(self) -> None:
        if self.stdin_fd is not None:
            try:
                os.close(self.stdin_fd)
            except OSError:
                pass
            self.stdin_fd = None

    def close(self, grace_s: float = 1.0) -> None:
        """EOF on stdin, grace, SIGTERM the tree, grace, SIGKILL the tree, reap. Never raises."""
        # Non-blocking: a second caller (close_all from a signal handler or another thread)
        # returns at once instead of double-closing fds or deadlocking.
        if not self._close_lock.acquire(blocking=False):
            return
        try:
            self.close_stdin()
            self.wait_returncode(grace_s)
            pids = self.members()
            if pids:
                signal_tree(self.popen, signal.SIGTERM, pids)
                deadline = time.monotonic() + grace_s
                while time.monotonic() < deadline:
                    self.popen.poll()  # reap the root promptly so it stops counting as alive
                    if not any(pid_alive(p) for p in pids):
                        break
                    time.sleep(0.01)
            kill_tree(self.popen, self.token)
        except Exception:
            pass
        finally:
            if self.stdout_fd is not None:
                try:
                    os.close(self.stdout_fd)
                except OSError:
                    pass
                self.stdout_fd = None
            # Every writer is dead now, so the drain thread sees EOF and finishes.
            self._stderr_thread.join(timeout=1.0)
