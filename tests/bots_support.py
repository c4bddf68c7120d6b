"""Helpers for the bundled-bot tests: realistic request lines and a tiny line driver.

Request lines come from a real engine state, formatted by arena.protocol.format_request.
"""

from __future__ import annotations

import os
import random
import select
import subprocess
import time
from pathlib import Path

from arena.game import Game, Rules, format_move
from arena.protocol import format_request

ROOT = Path(__file__).resolve().parents[1]
BOTS_DIR = ROOT / "bots"
HOSTILE_BOTS = ROOT / "tests" / "bots" / "hostile"


def hostile_bot(mode: str) -> Path:
    """The manifest of a misbehaving test bot (tests/bots/hostile/hostile.py MODE)."""
    return HOSTILE_BOTS / f"{mode}.toml"


def request_line(game: Game, request_id: int) -> str:
    return format_request(request_id, game.view(game.to_act), game.legal_moves())


def sample_states(seed: int = 7, rules: Rules | None = None) -> list[tuple[str, set[str]]]:
    """(request line, legal move tokens) for a phase-1 source step, a phase-1 play, a phase-2
    lead and a phase-2 response with several choices, from one random game."""
    rules = rules or Rules()
    rng = random.Random(seed)
    for attempt in range(50):
        game = Game.new(rules, seed=seed * 100 + attempt)
        wanted: dict[str, tuple[str, set[str]]] = {}
        rid = 0
        while not game.is_over and len(wanted) < 4:
            moves = game.legal_moves()
            tokens = [format_move(m) for m in moves]
            if game.phase == 1:
                key = "source" if "draw" in tokens else "play"
            else:
                key = "respond" if "pickup" in tokens else "lead"
            if key not in wanted and (len(tokens) > 1):
                rid += 1
                wanted[key] = (request_line(game, rid), set(tokens))
            game.apply(rng.choice(moves))
        if len(wanted) == 4:
            return [wanted[k] for k in ("source", "play", "lead", "respond")]
    raise AssertionError("no game gave every kind of request")


class LineBot:
    """A bot process driven line by line over pipes, with a deadline per answer."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self._buf = b""

    def send(self, line: str) -> None:
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout_s: float = 5.0) -> str:
        deadline = time.monotonic() + timeout_s
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no line within {timeout_s} s (got {self._buf!r})")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise EOFError(f"bot closed stdout; stderr: {self.proc.stderr.read()!r}")
                self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode().rstrip("\r")

    def wait(self, timeout_s: float = 5.0) -> int:
        return self.proc.wait(timeout_s)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass


def live_processes_with(proc_file: str, item: str) -> list[int]:
    """Pids of the live (not zombie) processes whose /proc/<pid>/<proc_file> (`environ` or
    `cmdline`: NUL-separated) holds `item` as one of its entries: how the process-table checks
    find what a bot, the arena or a test marked."""
    wanted = item.encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/{proc_file}", "rb") as f:
                if wanted not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{name}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                    continue
        except (OSError, IndexError):
            continue
        found.append(int(name))
    return found
