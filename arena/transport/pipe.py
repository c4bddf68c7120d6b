"""Bots as subprocesses speaking one protocol line per stdin/stdout line.

Hot path (send one line, receive one line) is raw fds + select.poll: no asyncio, no
Python file objects, one preallocated poll object per direction.

Invalid UTF-8 from a bot is decoded with errors="replace" (U+FFFD); the protocol layer
then rejects the line as malformed, so no separate encoding error exists here.
"""

from __future__ import annotations

import fcntl
import os
import select
import time
from collections.abc import Callable
from typing import Any

from arena.transport.bot_process import BotProcess, SandboxArgv, unplayable_exit
from arena.transport.lines import LineDecoder
from arena.transport.live_transports import register, unregister
from arena.transport.base import (
    MAX_BUFFERED_LINE_BYTES,
    BotExited,
    BotTimeout,
    Unplayable,
    describe_returncode,
)

_READ_CHUNK = 65536
# While waiting for a reply, re-check the process this often: a grandchild holding the
# stdout pipe open would otherwise hide the bot's death until the full move timeout.
_EXIT_CHECK_S = 0.1
_POLLIN_ANY = select.POLLIN | select.POLLHUP | select.POLLERR
_POLLOUT_ANY = select.POLLOUT | select.POLLHUP | select.POLLERR


class PipeTransport:
    """One bot subprocess; lines over stdin/stdout, stderr to a capped log."""

    # What to suspect when a bot that works by hand never answers hello: its line sits in an
    # unflushed buffer (ZmqTransport has its own).
    no_hello_hint = "is stdout flushed after each line?"

    def __init__(self, proc: BotProcess, *, max_line_bytes: int = MAX_BUFFERED_LINE_BYTES,
                 send_timeout_s: float = 5.0, name: str | None = None) -> None:
        self._proc = proc
        self.name = name or f"bot pid {proc.pid}"
        self.max_line_bytes = max_line_bytes
        self.send_timeout_s = send_timeout_s
        self._lines = LineDecoder(max_line_bytes, self.name)
        self._closed = False
        assert proc.stdin_fd is not None and proc.stdout_fd is not None
        self._in_fd = proc.stdin_fd
        self._out_fd = proc.stdout_fd
        for fd in (self._in_fd, self._out_fd):
            # Non-blocking both ways: writes never stall the arena, and `receive` can try a
            # read before paying for a poll (on one core the reply is usually already there).
            fl = fcntl.fcntl(fd, fcntl.F_GETFL)
            fcntl.fcntl(fd, fcntl.F_SETFL, fl | os.O_NONBLOCK)
        self._rpoll = select.poll()
        self._rpoll.register(self._out_fd, _POLLIN_ANY)
        self._wpoll = select.poll()
        self._wpoll.register(self._in_fd, _POLLOUT_ANY)
        register(self)

    @classmethod
    def start(cls, argv: list[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
              stderr_log_path: str | None = None, stderr_log_cap_bytes: int = 1_000_000,
              max_line_bytes: int = MAX_BUFFERED_LINE_BYTES, preexec: Callable[[], Any] | None = None,
              send_timeout_s: float = 5.0, name: str | None = None,
              sandbox_argv: SandboxArgv | None = None) -> PipeTransport:
        """Start argv (no shell, own session). Raises BotUnreachable if it cannot start.
        `sandbox_argv` turns argv into the command that runs it in its sandbox (arena/sandbox/)."""
        if sandbox_argv is not None:
            argv = sandbox_argv(argv, ())
        proc = BotProcess.start(
            argv, cwd=cwd, env=env, stderr_log_path=stderr_log_path,
            stderr_log_cap_bytes=stderr_log_cap_bytes, preexec=preexec, stdio_in_env=sandbox_argv is not None)
        return cls(proc, max_line_bytes=max_line_bytes, send_timeout_s=send_timeout_s, name=name)

    @property
    def process(self) -> BotProcess:
        return self._proc

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    def stderr_tail(self, n_bytes: int = 2000) -> str:
        return self._proc.stderr_tail(n_bytes)

    def _exited(self, what: str) -> BotExited | Unplayable:
        rc = self._proc.wait_returncode(0.2)
        if rc is not None and self._proc.reached_bot() is False:
            return unplayable_exit(self.name, rc, self._proc)
        # An exit is what the author needs to hear (the closed pipe is its consequence), worded
        # as the ZeroMQ transport words it; a pipe closed by a bot still running is said as such.
        msg = f"{self.name} {what} (still running)" if rc is None else f"{self.name} exited ({describe_returncode(rc)})"
        return BotExited(msg + self._proc.stderr_reason(), returncode=rc)

    def send(self, line: str) -> None:
        self._write((line + "\n").encode("utf-8"))

    def send_many(self, lines: list[str]) -> None:
        """Several lines in one write: a request and the events queued before it cost one syscall."""
        self._write(("\n".join(lines) + "\n").encode("utf-8"))

    def _write(self, data: bytes) -> None:
        if self._closed:
            raise BotExited(f"{self.name}: transport already closed")
        fd = self._in_fd
        try:
            n = os.write(fd, data)  # the common case: the pipe has room, one syscall
        except BlockingIOError:
            n = 0
        except (BrokenPipeError, OSError):
            raise self._exited("closed its stdin") from None
        if n == len(data):
            return
        view = memoryview(data)[n:]
        deadline = time.monotonic() + self.send_timeout_s
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._wpoll.poll(remaining * 1000.0):
                raise BotTimeout(f"{self.name} did not read its stdin for "
                                 f"{self.send_timeout_s:g}s (pipe full)")
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                raise self._exited("closed its stdin") from None

    def receive(self, timeout_s: float) -> str:
        if self._closed:
            raise BotExited(f"{self.name}: transport already closed")
        fd = self._out_fd
        lines = self._lines
        if lines.empty:
            # Fast path (once per move): one read, no poll, and when the chunk is exactly one
            # short line, no buffering. Anything else goes through the general path below.
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except (BlockingIOError, InterruptedError):
                chunk = None
            except OSError:
                raise self._exited("closed its stdout") from None
            if chunk is not None:
                if not chunk:
                    raise self._exited("closed its stdout")
                whole = lines.whole_line(chunk)
                if whole is not None:
                    return whole
                lines.feed(chunk)
        line = lines.take()
        if line is not None:
            return line
        deadline = time.monotonic() + timeout_s
        poll = self._rpoll.poll
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BotTimeout(f"{self.name} sent no line within {timeout_s:.3g} s", lines.unfinished())
            if not poll(min(remaining, _EXIT_CHECK_S) * 1000.0):
                # No data: if the bot itself is gone (but a grandchild keeps the pipe
                # open), report the exit now instead of waiting out the deadline.
                if self._proc.returncode is not None and not poll(0):
                    raise self._exited("exited")
                continue
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                raise self._exited("closed its stdout") from None
            if not chunk:
                raise self._exited("closed its stdout")
            lines.feed(chunk)
            line = lines.take()
            if line is not None:
                return line

    def close(self, grace_s: float = 1.0) -> None:
        """Close stdin, wait grace, SIGTERM, wait grace, SIGKILL the whole tree; reap."""
        if self._closed:
            return
        self._closed = True
        try:
            self._proc.close(grace_s)  # never raises: it logs what it met
        finally:
            unregister(self)
