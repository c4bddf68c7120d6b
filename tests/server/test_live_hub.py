"""The live hub's events (arena/server/league.py LiveHub): the ratings chart, two thirds of a
board's bytes, goes to the live clients only when the reader drew it again, and always in a
client's first event."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("sse_starlette")

from arena.server import league  # noqa: E402
from arena.server.reader import Board  # noqa: E402


class ScriptedReader:
    """Boards as the reader would hand them, one a poll."""

    def __init__(self, boards: list[Board]) -> None:
        self.boards = boards

    async def run(self, work, *args):
        return work(*args)

    def board(self) -> Board:
        return self.boards.pop(0) if len(self.boards) > 1 else self.boards[0]


def _data(event: bytes) -> dict:
    line = next(line for line in event.decode().splitlines() if line.startswith("data: "))
    return json.loads(line.removeprefix("data: "))


def test_the_chart_goes_live_only_when_drawn_again_and_in_every_first_event(monkeypatch):
    monkeypatch.setattr(league, "POLL_S", 0.01)
    frozen = []  # `arena serve` keeps the objects of its start out of the collector, once: here, counted
    boards = [Board(5, html="t5", chart="<svg>A</svg>", chart_game=5),
              Board(6, html="t6", chart="<svg>A</svg>", chart_game=5),  # the chart kept from game 5
              Board(9, html="t9", chart="<svg>B</svg>", chart_game=9)]  # drawn again
    hub = league.LiveHub(ScriptedReader(list(boards)), on_first_board=lambda: frozen.append(True))
    seen: list[tuple[dict, dict]] = []

    async def watch() -> None:
        hub.start()
        last = -1
        while last != 9:
            board = await hub.next_board(last, timeout_s=5)
            assert board is not None, "the hub told of no new board"
            if board.last_game_id != last:
                last = board.last_game_id
                seen.append((_data(hub.event), _data(hub.first_event)))
        await hub.stop()

    asyncio.run(asyncio.wait_for(watch(), 10))
    assert [event["last_game_id"] for event, _ in seen] == [5, 6, 9]
    assert [event.get("chart") for event, _ in seen] == ["<svg>A</svg>", None, "<svg>B</svg>"]
    assert [first["chart"] for _, first in seen] == ["<svg>A</svg>", "<svg>A</svg>", "<svg>B</svg>"]
    assert [event["html"] for event, _ in seen] == ["t5", "t6", "t9"]
    assert frozen == [True]
