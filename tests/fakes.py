"""Scripted in-process transports: protocol tests of the referee without any process."""

from __future__ import annotations

import random
from collections import deque
from typing import Callable

from arena.transport.base import BadMessage, BotExited, BotTimeout, LineTooLong

# A policy sees each request line's tokens and returns what the fake bot "prints":
# a line, or an exception instance the transport raises instead (timeout, exit...).
Policy = Callable[[int, list[str]], "str | Exception | None"]


class ScriptedTransport:
    """Answers `request` lines through a policy; records everything it was sent."""

    def __init__(self, policy: Policy, name: str = "fake") -> None:
        self.policy = policy
        self.name = name
        self.sent: list[str] = []
        self.pending: deque = deque()
        self.requests = 0
        self.closed = False

    def send(self, line: str) -> None:
        if self.closed:
            raise BotExited(f"{self.name}: closed")
        self.sent.append(line)
        tokens = line.split(" ")
        if tokens[0] == "hello":
            self.pending.append(f"hello name={self.name}")
        elif tokens[0] == "request":
            self.requests += 1
            answer = self.policy(self.requests, tokens)
            if answer is not None:
                self.pending.append(answer)

    def send_many(self, lines: list[str]) -> None:
        for line in lines:
            self.send(line)

    def receive(self, timeout_s: float) -> str:
        if not self.pending:
            raise BotTimeout(f"{self.name}: no line within {timeout_s:g}s")
        item = self.pending.popleft()
        if isinstance(item, Exception):
            raise item
        return item

    def close(self, grace_s: float = 0.0) -> None:
        self.closed = True


def legal_moves_of(tokens: list[str]) -> list[str]:
    count = int(tokens[2])
    return tokens[3:3 + count]


def random_policy(seed: int = 0) -> Policy:
    rng = random.Random(seed)

    def policy(n: int, tokens: list[str]) -> str:
        return f"move {tokens[1]} {rng.choice(legal_moves_of(tokens))}"

    return policy


def faulty_at(fault_on: int, fault: Callable[[list[str]], "str | Exception"], seed: int = 0) -> Policy:
    """Random legal play, except that the `fault_on`-th request gets `fault(tokens)`."""
    good = random_policy(seed)

    def policy(n: int, tokens: list[str]):
        return fault(tokens) if n == fault_on else good(n, tokens)

    return policy


def timeout_error() -> Exception:
    return BotTimeout("no line")


def exited_error() -> Exception:
    return BotExited("exited (exit code 3)", returncode=3)


def multi_frame_error() -> Exception:
    return BadMessage("zbot sent a multi-frame message; one frame per line")


def overlong_error() -> Exception:
    return LineTooLong("sent more than 8192 bytes without a newline")
