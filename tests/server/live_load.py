"""Load on a real server on loopback (issue 44's load, without its timing, which
benchmarks/server.py measures): live clients holding /api/events open and readers loading the
leaderboard page one after another, on a thread of their own while the test goes on. What each
saw is kept, so that the test can say that every page was served and every live client fed."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter

import httpx


class LiveLoad:
    """`live` clients on /api/events and `readers` on / at `base`, from `with` to its end."""

    def __init__(self, base: str, live: int = 200, readers: int = 20, every_s: float = 0.2) -> None:
        self.base, self.live, self.readers, self.every_s = base, live, readers, every_s
        self.boards = [0] * live  # board events each live client read
        self.pages: Counter[int] = Counter()  # the leaderboard's answers, by status
        self.errors: list[str] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    def __enter__(self) -> "LiveLoad":
        self._thread.start()
        assert self._started.wait(30), "the load's clients did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(60)
        assert not self._thread.is_alive(), "the load's clients did not stop"

    async def _main(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        limits = httpx.Limits(max_connections=self.live + self.readers + 10)
        async with httpx.AsyncClient(base_url=self.base, timeout=60, limits=limits) as client:
            tasks = [asyncio.create_task(self._follow(client, i)) for i in range(self.live)]
            tasks += [asyncio.create_task(self._read(client)) for _ in range(self.readers)]
            self._started.set()
            await self._stop.wait()
            for task in tasks:
                task.cancel()
            for ended in await asyncio.gather(*tasks, return_exceptions=True):
                if isinstance(ended, BaseException) and not isinstance(ended, asyncio.CancelledError):
                    self.errors.append(repr(ended))

    async def _follow(self, client: httpx.AsyncClient, i: int) -> None:
        async with client.stream("GET", "/api/events") as answer:
            if answer.status_code != 200:
                self.errors.append(f"/api/events answered {answer.status_code}")
                return
            async for line in answer.aiter_lines():
                if line.strip() == "event: board":
                    self.boards[i] += 1
        self.errors.append("the server closed a live client's stream")

    async def _read(self, client: httpx.AsyncClient) -> None:
        while True:
            self.pages[(await client.get("/")).status_code] += 1
            await asyncio.sleep(self.every_s)
