"""A sandboxed bot's transport as the referee sees it (arena/sandbox/guard.py): the bot's own
transport, closed with its guard, and with a sandbox kill named on the error a fault records."""

from __future__ import annotations

import logging

from arena.sandbox.guard import BotGuard
from arena.transport.base import BotExited, Transport, TransportError, TransportWrapper, lines_sender

log = logging.getLogger(__name__)


class SandboxedTransport(TransportWrapper):
    """Wraps a started transport: closes the guard with it, and names a sandbox kill on the error
    the referee sees (its `sandbox_reason`, which its message ends with), so that the fault detail
    says why the bot exited. The error is the transport's own, raised as it is."""

    def __init__(self, inner: Transport, guard: BotGuard) -> None:
        super().__init__(inner)
        self.guard = guard
        self._send_lines = lines_sender(inner)  # once: send_many runs on every move

    def _explain(self, exc: TransportError) -> None:
        """Name the sandbox's kill on `exc`, if the guard saw one."""
        if self.guard.violation is None and isinstance(exc, BotExited):
            # The exit may be seen before the watchdog's next look: a kill by the memory limit is
            # asked of the cgroup now, so that the fault says it.
            memory = self.guard.out_of_memory()
            if memory:
                self.guard.violation = f"sandbox: {memory}; the bot was killed"
        if self.guard.violation and self.guard.violation not in str(exc):
            exc.sandbox_reason = self.guard.violation

    def send(self, line: str) -> None:
        try:
            self.inner.send(line)
        except TransportError as exc:
            self._explain(exc)
            raise

    def send_many(self, lines: list[str]) -> None:
        try:
            self._send_lines(lines)
        except TransportError as exc:
            self._explain(exc)
            raise

    def receive(self, timeout_s: float) -> str:
        try:
            return self.inner.receive(timeout_s)
        except TransportError as exc:
            self._explain(exc)
            raise

    def close(self, grace_s: float = 1.0) -> None:
        """The bot's tree ended (the inner transport's close), then its cgroup and copy; never raises."""
        try:
            self.inner.close(grace_s)
        except (OSError, TransportError):
            log.debug("closing a sandboxed bot", exc_info=True)
        finally:
            self.guard.close()
