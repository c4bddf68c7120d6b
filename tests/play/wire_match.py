"""A fixed set of matches whose every protocol line is kept as a transcript (tests/play/data/
wire_transcript.jsonl.gz): whatever makes the referee faster must not change a byte on the wire
(issue 22). Seeded bots, several rule options and table sizes, and faults of every kind a bot can
commit in-process (illegal, malformed, timeout, stale, multi-frame, overlong, a bot gone).

Record it again only for a deliberate change of the protocol: python -m tests.play.wire_match
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from arena.game import Rules
from arena.play.match import play_match
from arena.play.records import TimeLimits
from arena.play.seat import Seat
from tests.fakes import (ScriptedTransport, exited_error, legal_moves_of, multi_frame_error, overlong_error,
                         timeout_error)

TRANSCRIPT = Path(__file__).with_name("data") / "wire_transcript.jsonl.gz"

# (rule options, games): table sizes 2 to 5, and the options that change what bots are sent.
MATCHES = [
    ({}, 4),
    ({"phase1_mode": "all", "draw_timing": "after"}, 3),
    ({"pickup": "top_play", "public_won_piles": "false", "trump_only_if_void": "true"}, 3),
    ({"num_players": "2", "scoring": "pot"}, 3),
    ({"num_players": "4", "fault_policy": "forfeit"}, 3),
    ({"num_players": "5", "ace_high": "true", "max_phase2_actions": "40"}, 2),
]

# Seat 0's faults, by request number: (what it answers instead of a move).
FAULTS = {
    3: lambda tokens: f"move {tokens[1]} ZZ",  # not a card: illegal or malformed
    6: lambda tokens: "debug: thinking...",  # a line that is no move at all
    9: lambda tokens: timeout_error(),
    12: lambda tokens: "move 1 " + legal_moves_of(tokens)[0],  # an old request id: stale
    15: lambda tokens: multi_frame_error(),
    18: lambda tokens: overlong_error(),
    4: lambda tokens: f"move {tokens[1]} {_not_legal(legal_moves_of(tokens))}",  # a card, but not a legal play
}


def _not_legal(legal: list[str]) -> str:
    return next(f"{rank}{suit}" for rank in "A23456789TJQK" for suit in "cdhs" if f"{rank}{suit}" not in legal)


def _policy(seed: int, faulty: bool, log: list):
    rng = random.Random(seed)

    def policy(n: int, tokens: list[str]):
        fault = FAULTS.get(n) if faulty else None
        answer = fault(tokens) if fault else f"move {tokens[1]} {rng.choice(legal_moves_of(tokens))}"
        log.append(answer if isinstance(answer, str) else f"<{type(answer).__name__}: {answer}>")
        return answer

    return policy


def play_all() -> list[dict]:
    """Every match: for each seat, the lines it was sent and what it answered, in order."""
    out = []
    for index, (options, games) in enumerate(MATCHES):
        rules = Rules.from_options(options)
        logs = [[] for _ in range(rules.num_players)]
        transports = [ScriptedTransport(_policy(100 * index + seat, seat == 0, logs[seat]), f"bot{seat}")
                      for seat in range(rules.num_players)]
        seats = [Seat(name=t.name, transport=t) for t in transports]
        if index == len(MATCHES) - 1:
            transports[1].policy = _gone_after(transports[1].policy, 30)  # a bot that dies mid-game
        play_match(seats, rules, seed=7 + index, games=games, limits=TimeLimits(0.5, 1.0), rotate=index % 2 == 1)
        for seat, transport in enumerate(transports):
            out.append({"match": index, "seat": seat, "sent": transport.sent, "answered": logs[seat]})
    return out


def _gone_after(policy, requests: int):
    def gone(n: int, tokens: list[str]):
        return exited_error() if n >= requests else policy(n, tokens)

    return gone


def stored() -> list[dict]:
    with gzip.open(TRANSCRIPT, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def record() -> None:
    TRANSCRIPT.parent.mkdir(exist_ok=True)
    with gzip.open(TRANSCRIPT, "wt", encoding="utf-8", compresslevel=9) as f:
        for entry in play_all():
            f.write(json.dumps(entry) + "\n")


if __name__ == "__main__":
    record()
    print(f"wrote {TRANSCRIPT} ({TRANSCRIPT.stat().st_size:,} bytes)")
