"""A started bot process: in its own session, with its stderr drained into a capped log and a
tail kept in memory (a crash's reason is quoted from it), closed by killing its whole tree.
Shared by the pipe and the ZeroMQ transport."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import signal
import stat
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from typing import IO, Any, Protocol, Sequence

from arena.transport.base import MACHINE_ERRNOS, BotUnreachable, Unplayable, describe_returncode
from arena.transport.process_tree import TOKEN_ENV, kill_tree, pid_alive, signal_tree, tree_members
from arena.wording import quoted

log = logging.getLogger(__name__)
_TAIL_KEEP = 16384


class SandboxArgv(Protocol):
    """Turns a bot's argv into the command that starts it in its sandbox (arena/sandbox/guard.py):
    `writable_paths` stay writable for it (a ZeroMQ ipc folder); `relay` (a Unix socket's path and
    a port) joins that socket to the bot's tcp port inside (arena/sandbox/relay.py)."""

    def __call__(self, argv: list[str], writable_paths: Sequence[str] = (), *,
                 relay: tuple[str, int] | None = None) -> list[str]: ...


# A wrapper's own process would hold the bot's stdin and stdout as long as it lives, so a bot
# that closes its stdout would never be seen to: a wrapped bot is handed its pipes as extra
# descriptors named in these variables (a wrapper closes extra descriptors in itself), and
# STDIO_SHIM, run just before the bot, moves them onto 0 and 1 and clears the variables.
STDIN_FD_ENV, STDOUT_FD_ENV = "ARENA_STDIN_FD", "ARENA_STDOUT_FD"
# The shim writes READY_MARK there once the sandbox is set up and the bot's pipes are in place:
# a wrapped start that exits without it failed in the wrapper (the sandbox's set-up, the arena's
# doing), before anything of the bot's ran. What follows the mark is the bot's: its limits set on
# the shell, its folder copied (`writable_folder`), its command exec'd (protocol.md section 9).
READY_FD_ENV, READY_MARK = "ARENA_READY_FD", b"R"
# bash, not sh: dash takes single-digit descriptors only, and the arena's are often 10 or more.
STDIO_MOVE = (f'eval "exec 0<&${STDIN_FD_ENV} ${STDIN_FD_ENV}<&-"; '
              f'if [ -n "${{{STDOUT_FD_ENV}:-}}" ]; then eval "exec 1>&${STDOUT_FD_ENV} ${STDOUT_FD_ENV}>&-"; fi; '
              f'if [ -n "${{{READY_FD_ENV}:-}}" ]; then eval "printf {READY_MARK.decode()} >&${READY_FD_ENV}; '
              f'exec ${READY_FD_ENV}>&-"; fi; '
              f'unset {STDIN_FD_ENV} {STDOUT_FD_ENV} {READY_FD_ENV}')
# `env -u SHLVL`: bash's exec sets SHLVL again, and nothing of a shell belongs in the bot's environment.
EXEC_BOT = 'exec /usr/bin/env -u SHLVL "$@"'
STDIO_SCRIPT = f"{STDIO_MOVE}; {EXEC_BOT}"
STDIO_SHIM = ["/bin/bash", "-c", STDIO_SCRIPT, "arena-stdio"]


def stdio_shim(before_mark: str = "", after_mark: str = "") -> list[str]:
    """STDIO_SHIM with shell words to run inside the sandbox: `before_mark` as the sandbox's own
    set-up (a relay), `after_mark` as the bot's (its limits, its folder's copy), then its command."""
    script = "\n".join(part for part in (before_mark, STDIO_MOVE, after_mark, EXEC_BOT) if part)
    return ["/bin/bash", "-c", script, "arena-stdio"]


def open_log_for_append(path: str | os.PathLike[str], mode: str, **kwargs: Any) -> IO[Any]:
    """Open a log file to append to, refusing anything but a regular file.

    A bot runs as the arena's user and may replace its log with a FIFO or a symlink: a plain
    open() of a FIFO blocks until someone reads it, and a symlink would send the arena's writes
    elsewhere."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
        return open(fd, mode, **kwargs)
    except BaseException:
        os.close(fd)
        raise


STDERR_LAST_WORDS_S = 0.5  # how long an exit's message waits for the stderr pipe to be read to its end
STDERR_HINT_BYTES = 1000  # of the stderr tail kept in memory, searched for a crash's reason
STDERR_HINT_CHARS = 120
# Lines after a crash's reason that say nothing of it: Rust's "note: run with RUST_BACKTRACE=1",
# Java's and Node's "at Bot.main(Bot.java:12)" frames, "... 3 more", numbered backtrace frames, and
# Node's closing "Node.js v20.20.2", which would hide a SyntaxError above it.
_TRAILER = re.compile(r"^(note:|at |\.\.\. \d+ more|stack backtrace:|\d+: |Node\.js v\d)")


def telling_line(stderr_tail: str) -> str:
    """The last line of a crash's stderr that says why: Python ends with it (ValueError: ...);
    Rust and Java follow it with notes and stack frames, skipped here."""
    lines = [line.strip() for line in stderr_tail.splitlines() if line.strip()]
    for line in reversed(lines):
        if not _TRAILER.match(line):
            return line
    return lines[-1] if lines else ""


def unplayable_exit(name: str, returncode: int, proc: "BotProcess") -> Unplayable:
    """A wrapped start that ended before the bot's program ran (`BotProcess.reached_bot` is
    False): the sandbox's set-up failed (bubblewrap found no room for a namespace, say)."""
    said = telling_line(proc.last_stderr(STDERR_HINT_BYTES))
    return Unplayable(f"{name}: its sandbox could not be set up, the bot never ran (its wrapper ended with "
                      f"{describe_returncode(returncode)}" + (f": {quoted(said, STDERR_HINT_CHARS)})" if said else ")"))


class BotProcess:
    """One started bot process plus everything it spawns."""

    def __init__(self, popen: subprocess.Popen[bytes], token: str, stdin_fd: int | None,
                 stdout_fd: int | None, stderr_fd: int, stderr_log_path: str | None,
                 stderr_log_cap_bytes: int, ready_fd: int | None = None) -> None:
        self.popen = popen
        # The read end of the wrapper's ready pipe (READY_FD_ENV); None once read, or for a bot
        # started without a wrapper, which runs as soon as Popen returns.
        self._ready_fd = ready_fd
        self._reached_bot: bool | None = True if ready_fd is None else None
        self.token = token
        self.stdin_fd = stdin_fd
        self.stdout_fd = stdout_fd
        # Set when a wrapper runs the bot (the sandbox's bubblewrap), which exits 128 + N when the
        # bot is killed by signal N: read back as the signal, as for a bot the arena started itself.
        self.signal_in_exit_code = False
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
              preexec: Callable[[], Any] | None = None, stdout_pipe: bool = True,
              stdio_in_env: bool = False) -> BotProcess:
        """Start argv (never via a shell) in a new session with stdin/stdout/stderr pipes.

        With stdout_pipe=False the bot's stdout goes to the stderr log (ZeroMQ bots talk
        over the socket, but their prints are still worth keeping). With stdio_in_env, argv is a
        wrapper that runs the bot after STDIO_SHIM: stdin and stdout travel as extra descriptors.
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
            if cwd is not None:  # the arena's own PWD named where the organiser started it, not the bot's folder
                full_env["PWD"] = os.path.abspath(cwd)
        else:
            full_env = dict(env)
        full_env[TOKEN_ENV] = token
        in_r, in_w = os.pipe()
        err_r, err_w = os.pipe()
        out_r, out_w = os.pipe() if stdout_pipe else (None, err_w)
        ready_r, ready_w = os.pipe() if stdio_in_env else (None, None)
        stdio: dict[str, Any] = dict(stdin=in_r, stdout=out_w)
        if stdio_in_env:
            assert ready_r is not None and ready_w is not None
            os.set_blocking(ready_r, False)
            full_env[STDIN_FD_ENV], full_env[READY_FD_ENV] = str(in_r), str(ready_w)
            if stdout_pipe:
                full_env[STDOUT_FD_ENV] = str(out_w)
            stdio = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL if stdout_pipe else out_w,
                         pass_fds=(in_r, out_w, ready_w) if stdout_pipe else (in_r, ready_w))
        opened = {in_r, in_w, err_r, err_w, out_r, out_w, ready_r, ready_w} - {None}
        try:
            popen = subprocess.Popen(
                argv, stderr=err_w, cwd=cwd, env=full_env, start_new_session=True, preexec_fn=preexec,
                close_fds=True, **stdio)
        except OSError as e:
            for fd in opened:
                os.close(fd)  # type: ignore[arg-type]
            where = f" in {cwd!r}" if cwd else ""
            said = f"cannot start bot {argv[0]!r}{where}: {e.strerror or e}"
            # A fork the machine had no room for, or the exec of the arena's wrapper, is the
            # machine's; the bot's own command exec'd under its own limits is the bot's (an
            # address_space_mb too small for its program: ENOMEM).
            own_exec = e.filename is not None and not stdio_in_env
            if e.errno in MACHINE_ERRNOS and not own_exec:
                raise Unplayable(f"this machine could not start a process ({said})") from e
            raise BotUnreachable(said) from e
        except Exception as e:  # a preexec failure surfaces as SubprocessError: the sandbox's set-up, not the bot
            for fd in opened:
                os.close(fd)  # type: ignore[arg-type]
            raise Unplayable(f"cannot start bot {argv[0]!r}: its sandbox could not be set up ({e})") from e
        # The child has its copies; the arena must not hold the write ends or EOF never comes.
        for fd in {in_r, err_w, out_w, ready_w} - {None}:
            os.close(fd)  # type: ignore[arg-type]
        return cls(popen, token, in_w, out_r, err_r, stderr_log_path, stderr_log_cap_bytes, ready_r)

    def reached_bot(self) -> bool | None:
        """Whether the bot's own program was started: False when its wrapper (the sandbox) ended
        before it got that far, None while that is not known yet (the wrapper is still at work)."""
        fd = self._ready_fd
        if fd is None:
            return self._reached_bot
        try:
            mark = os.read(fd, len(READY_MARK))
        except BlockingIOError:
            return None  # no mark yet, and the wrapper still holds the pipe open
        except OSError:
            mark = b""
        os.close(fd)
        self._ready_fd = None
        self._reached_bot = mark == READY_MARK
        return self._reached_bot

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        """Exit code (>= 0), -signal, or None while running. Reaps the child if it exited."""
        return self._as_signal(self.popen.poll())

    def wait_returncode(self, timeout_s: float) -> int | None:
        """Wait briefly for the exit status (stdout EOF usually precedes the reap by µs)."""
        try:
            return self._as_signal(self.popen.wait(timeout=timeout_s))
        except subprocess.TimeoutExpired:
            return None

    def _as_signal(self, code: int | None) -> int | None:
        if self.signal_in_exit_code and code is not None and 128 < code < 128 + 65:
            return 128 - code
        return code

    def stderr_reason(self) -> str:
        """"; its stderr says: <the line that says why>" for an exit's message, or "": a crash's
        reason then reaches the fault without a trip to the log file (escaped: it reaches terminals)."""
        said = telling_line(self.last_stderr(STDERR_HINT_BYTES))
        return f"; its stderr says: {quoted(said, STDERR_HINT_CHARS)}" if said else ""

    def last_stderr(self, n_bytes: int) -> str:
        """The tail of its stderr, with its last words once it has exited."""
        if self.popen.returncode is not None:
            # Its last words may still be in the pipe: the drain thread reads them on its own
            # time, and on a busy machine the exit is seen first. Bounded: a child of the bot may
            # hold stderr open.
            self._stderr_thread.join(timeout=STDERR_LAST_WORDS_S)
        return self.stderr_tail(n_bytes)

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
                # in every game would otherwise add a megabyte per game.
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
        except OSError:  # a pipe or process already gone: the tree is ended below all the same
            log.debug("closing bot process %d", self.popen.pid, exc_info=True)
        finally:
            for fd in (self.stdout_fd, self._ready_fd):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self.stdout_fd = self._ready_fd = None
            # Every writer is dead now, so the drain thread sees EOF and finishes.
            self._stderr_thread.join(timeout=1.0)
