#!/usr/bin/env python3
"""heuristic_bot: a rule-of-thumb Skitgubbe player (Python, stdlib only, no arena import).

The decisions live in heuristic.py (`choose(fields, moves)`); this file speaks protocol v1:
answers `hello` and `request`, remembers the rule options of the last `game` line (so that
`ace_high` is known), ignores every other message, and exits on `quit` or end of input.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from heuristic import choose, parse_request  # noqa: E402

NAME, VERSION, AUTHOR = "heuristic_bot", "1.0", "skitgubbe-arena"


def options_of(tokens: list[str]) -> dict[str, str]:
    found = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if sep:
            found[key] = value
    return found


def main() -> int:
    out = sys.stdout
    options: dict[str, str] = {}
    for raw in sys.stdin:
        line = raw.rstrip("\r\n")
        tokens = line.split(" ")
        kind = tokens[0]
        if kind == "hello":
            out.write(f"hello name={NAME} version={VERSION} author={AUTHOR}\n")
            out.flush()
        elif kind in ("match", "game"):
            options.update(options_of(tokens[1:]))
        elif kind == "request":
            try:
                request_id, moves, fields = parse_request(line)
            except (IndexError, ValueError):
                print(f"heuristic_bot: malformed request: {line!r}", file=sys.stderr)
                continue
            if not moves:
                continue
            try:
                move = choose({**options, **fields}, moves)
            except Exception as exc:  # never go silent: any legal move beats a timeout
                print(f"heuristic_bot: {exc!r}; playing the first legal move", file=sys.stderr)
                move = moves[0]
            out.write(f"move {request_id} {move}\n")
            out.flush()
        elif kind == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
