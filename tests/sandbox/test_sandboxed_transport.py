"""The sandboxed transport is a typed wrapper (issue 41): it declares what it passes on, and a
bot's transport error reaches the referee as the transport raised it, the same object and class,
carrying the sandbox's reason (`sandbox_reason`) that its message, and so the fault, ends with."""

from __future__ import annotations

from dataclasses import replace

import pytest

from arena.play.records import FaultKind
from arena.play.startup import BotSettings, start_bot
from arena.sandbox.sandboxed import SandboxedTransport
from arena.submission.lookup import load_manifest
from arena.transport.base import BotExited, BotTimeout, Transport, TransportError


class Inner:
    """A transport whose next call fails with the error given."""

    no_hello_hint = "a hint of the inner transport"
    process = None

    def __init__(self, error: TransportError) -> None:
        self.error = error
        self.closed = False

    def send(self, line: str) -> None:
        raise self.error

    def receive(self, timeout_s: float) -> str:
        raise self.error

    def close(self, grace_s: float = 1.0) -> None:
        self.closed = True

    def stderr_tail(self, n_bytes: int = 2000) -> str:
        return "the inner's stderr"


class Guard:
    def __init__(self, violation: str | None, memory: str = "") -> None:
        self.violation, self.memory, self.closed = violation, memory, False

    def out_of_memory(self) -> str:
        return self.memory

    def close(self) -> None:
        self.closed = True


def test_a_sandbox_kill_is_named_on_the_transports_own_error_raised_as_it_is():
    error = BotExited("bot pid 7 exited (killed by signal SIGKILL)", returncode=-9)
    wrapped = SandboxedTransport(Inner(error), Guard("sandbox: more than 40 processes; the bot was killed"))
    with pytest.raises(BotExited) as caught:
        wrapped.receive(1.0)
    assert caught.value is error and caught.value.returncode == -9  # no clone: the same error
    assert caught.value.sandbox_reason == "sandbox: more than 40 processes; the bot was killed"
    assert str(caught.value) == ("bot pid 7 exited (killed by signal SIGKILL) "
                                 "[sandbox: more than 40 processes; the bot was killed]")


def test_a_memory_kill_seen_first_by_the_exit_is_asked_of_the_cgroup_and_said():
    error = BotExited("bot pid 8 exited (killed by signal SIGKILL)", returncode=-9)
    guard = Guard(None, memory="more than 128 MB of memory")
    with pytest.raises(BotExited) as caught:
        SandboxedTransport(Inner(error), guard).send("hello")  # type: ignore[arg-type]
    assert caught.value is error
    assert str(caught.value).endswith("[sandbox: more than 128 MB of memory; the bot was killed]")


def test_an_error_without_a_sandbox_kill_passes_unchanged_and_the_wrapper_is_a_transport():
    error = BotTimeout("no line within 1 s", unfinished="'mov'")
    inner, guard = Inner(error), Guard(None)
    wrapped = SandboxedTransport(inner, guard)  # type: ignore[arg-type]
    with pytest.raises(BotTimeout) as caught:
        wrapped.receive(1.0)
    assert caught.value is error and str(error) == "no line within 1 s" and error.sandbox_reason == ""
    assert isinstance(wrapped, Transport)
    assert (wrapped.no_hello_hint, wrapped.stderr_tail(), wrapped.process) == (
        "a hint of the inner transport", "the inner's stderr", None)
    wrapped.close()
    assert inner.closed and guard.closed


def test_a_manifest_asking_beyond_its_ceiling_cannot_start_and_is_charged_not_void():
    manifest = replace(load_manifest("random_bot"), limits=(("memory_mb", 100_000),))
    seat = start_bot(manifest, BotSettings(sandbox_limits={"memory_mb": 512}), "seat0")
    assert not seat.alive and seat.transport is None
    assert seat.dead_kind is FaultKind.NO_HELLO and not seat.void
    assert seat.dead_reason.startswith(f"cannot start: {manifest.path}: ")
    assert "above the ceiling of 512" in seat.dead_reason
