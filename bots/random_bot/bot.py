#!/usr/bin/env python3
"""random_bot: answers every request with a uniformly random legal move.

A starting point for a Skitgubbe Arena bot in Python (stdlib only, no arena import).
Protocol v1 in short (see protocol.md):
  arena -> bot:  hello protocol=1 arena=<version>
                 request <id> <count> <move_1> ... <move_count> <field>=<value> ...
                 quit            (and game/match/event/fault/gameover/matchover, ignored here)
  bot -> arena:  hello name=<name> version=<v> author=<a>
                 move <id> <move>
The random generator is reseeded at the start of every game from the game's number and
this bot's seat (plus BOT_SEED when set), so the same game is played the same way
however the tournament was interrupted and resumed.
Diagnostics go to stderr only; stdout carries protocol lines, flushed one by one.
"""

import os
import random
import sys

NAME, VERSION, AUTHOR = "random_bot", "1.0", "skitgubbe-arena"


def main() -> int:
    base_seed = os.environ.get("BOT_SEED", "")
    rng = random.Random(base_seed)
    out = sys.stdout
    for raw in sys.stdin:
        tokens = raw.rstrip("\r\n").split(" ")
        kind = tokens[0]
        if kind == "hello":
            out.write(f"hello name={NAME} version={VERSION} author={AUTHOR}\n")
            out.flush()
        elif kind == "request":
            try:
                request_id, count = tokens[1], int(tokens[2])
                moves = tokens[3:3 + count]
            except (IndexError, ValueError):
                print(f"random_bot: malformed request: {raw.strip()!r}", file=sys.stderr)
                continue
            if moves:
                out.write(f"move {request_id} {rng.choice(moves)}\n")
                out.flush()
        elif kind == "game":
            # "game <number> seat=<s> ...": a fresh, reproducible stream for this game and seat
            seat = next((t for t in tokens if t.startswith("seat=")), "")
            rng.seed(f"{base_seed}/{tokens[1] if len(tokens) > 1 else ''}/{seat}")
        elif kind == "quit":
            return 0
        # everything else (match, game, event, fault, gameover, matchover, unknown) is ignored
    return 0


if __name__ == "__main__":
    sys.exit(main())
