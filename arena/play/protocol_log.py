"""The protocol log of a bot (`arena play --log`, `tournament run --log`, `bot check`): every line
to and from it, with a direction marker, and a cap on what the bot's own lines may fill."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from arena.errors import ArenaError

from arena.play.seat import QUIT_GRACE_S, close_transport
from arena.transport.base import Transport, TransportError, TransportWrapper, lines_sender
from arena.transport.bot_process import open_log_for_append

if TYPE_CHECKING:
    from arena.sandbox.guard import BotGuard

# What the protocol log keeps of the bot's own lines. The arena's lines are bounded by the games,
# the bot's are not: a bot flooding duplicate answers once wrote 157 MB in one game. A normal bot
# sends well under 1 MB per table.
LOG_FROM_BOT_CAP_BYTES = 10_000_000
_LOG_BUDGET_LEFT: dict[str, int] = {}  # protocol log path -> bytes of the bot's lines it may still take


def usable_log_folder(log: Path) -> Path:
    """Make a --log folder now, so that a bad one is a message before any bot starts, not a
    traceback in the middle of a match (or in a tournament worker). ArenaError says what is wrong."""
    if log.exists() and not log.is_dir():
        raise ArenaError(f"--log {log}: not a folder (log files go into a folder, made if missing)")
    try:
        log.mkdir(parents=True, exist_ok=True)
        probe = log / f".arena-log-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise ArenaError(f"--log {log}: cannot write log files there ({exc.strerror or exc})") from None
    return log


class LoggedTransport(TransportWrapper):
    """Wraps a transport and writes every line with a direction marker (`>` to bot, `<` from bot)."""

    def __init__(self, inner: Transport, path: Path, from_bot_cap_bytes: int = LOG_FROM_BOT_CAP_BYTES) -> None:
        super().__init__(inner)
        self._send_lines = lines_sender(inner)  # once: send_many runs on every move
        self._log = open_log_for_append(path, "a", encoding="utf-8", buffering=1)
        self._from_bot_cap = from_bot_cap_bytes
        # The budget is per log file, kept across restarts of the bot in this process: a bot that
        # floods and crashes would otherwise get a fresh 10 MB with every restart.
        self._path = str(path)
        _LOG_BUDGET_LEFT.setdefault(self._path, from_bot_cap_bytes)

    def send(self, line: str) -> None:
        self._log.write(f"> {line}\n")
        try:
            self.inner.send(line)
        except TransportError as exc:
            self._noticed(exc)
            raise

    def send_many(self, lines: list[str]) -> None:
        self._log.write("".join(f"> {line}\n" for line in lines))
        try:
            self._send_lines(lines)
        except TransportError as exc:  # a bot found gone while written to: the log says so, as on a read
            self._noticed(exc)
            raise

    def receive(self, timeout_s: float) -> str:
        try:
            line = self.inner.receive(timeout_s)
        except TransportError as exc:
            self._noticed(exc)
            raise
        left = _LOG_BUDGET_LEFT[self._path]
        if left > 0:
            left = _LOG_BUDGET_LEFT[self._path] = left - len(line) - 1
            self._log.write(f"< {line}\n" if left > 0 else
                            "! the bot's further lines are not logged: it sent more than "
                            f"{self._from_bot_cap} bytes\n")
        return line

    def _noticed(self, exc: TransportError) -> None:
        """"! what the arena noticed": the message names the bot and what happened."""
        self._log.write(f"! {exc}\n")

    def close(self, grace_s: float = QUIT_GRACE_S) -> None:
        close_transport(self.inner, grace_s)
        with contextlib.suppress(OSError):
            self._log.close()

    @property
    def guard(self) -> BotGuard | None:
        """The sandbox's guard of the bot logged, where it has one (the check describes it)."""
        from arena.sandbox.sandboxed import SandboxedTransport  # lazily: a pipe-only run loads no sandbox

        return self.inner.guard if isinstance(self.inner, SandboxedTransport) else None
