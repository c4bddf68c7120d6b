"""A sandboxed bot's transport as the referee sees it (arena/sandbox/guard.py): the bot's own
transport, closed with its guard, and with a sandbox kill named in the error a fault records."""

from __future__ import annotations

import logging
from typing import Any

from arena.sandbox.guard import BotGuard
from arena.transport.base import BotExited, TransportError, lines_sender

log = logging.getLogger(__name__)


class SandboxedTransport:
    """Wraps a started transport: closes the guard with it, and names a sandbox kill in the error
    the referee sees (so the fault detail says why the bot exited)."""

    def __init__(self, inner: Any, guard: BotGuard) -> None:
        self.inner = inner
        self.guard = guard
        self._send_lines = lines_sender(inner)  # once: send_many runs on every move

    def _explain(self, exc: TransportError) -> TransportError:
        if self.guard.violation is None and isinstance(exc, BotExited):
            # The exit may be seen before the watchdog's next look: a kill by the memory limit is
            # asked of the cgroup now, so that the fault says it.
            memory = self.guard.out_of_memory()
            if memory:
                self.guard.violation = f"sandbox: {memory}; the bot was killed"
        if self.guard.violation and self.guard.violation not in str(exc):
            new = type(exc).__new__(type(exc))
            new.__dict__.update(getattr(exc, "__dict__", {}))
            new.args = (f"{exc} [{self.guard.violation}]",)
            return new
        return exc

    def send(self, line: str) -> None:
        try:
            self.inner.send(line)
        except TransportError as exc:
            raise self._explain(exc) from None

    def send_many(self, lines: list[str]) -> None:
        try:
            self._send_lines(lines)
        except TransportError as exc:
            raise self._explain(exc) from None

    def receive(self, timeout_s: float) -> str:
        try:
            return self.inner.receive(timeout_s)
        except TransportError as exc:
            raise self._explain(exc) from None

    def close(self, grace_s: float = 1.0) -> None:
        """The bot's tree ended (the inner transport's close), then its cgroup and copy; never raises."""
        try:
            self.inner.close(grace_s)
        except (OSError, TransportError):
            log.debug("closing %s", getattr(self.inner, "name", "a bot"), exc_info=True)
        finally:
            self.guard.close()

    def __getattr__(self, name: str):
        return getattr(self.inner, name)
