"""An author's upload, from the request to the league (issue 44).

Received (in the request): the body is read with a ceiling (MAX_UPLOAD_BYTES; more is refused
with 413 while it arrives, never stored), the archive is unpacked into a fresh folder by the
submission layer's intake (arena/submission/intake.py: every hostile-archive refusal is a 4xx
with its reason), the bot's name must be the author's own (a name another author entered is 403),
and only then is the upload recorded, as `checking`, in one transaction of the server file.

Checked (a child process for the uploads waiting, one after another: `python -m
arena.server.check_upload CONFIG ID...`): each bot is built and checked in the sandbox as `arena bot
check` does, under the league config's ceilings and grants; passing, it enters (its folder put in
place of the old version's in one rename, the check kept so the league's gate lets this version
in, the config's `bots` given the batch's new bots in one write), else it is refused with the
check's reason, kept for the organiser, who may let it in anyway. A server killed at any point
finds each upload `checking` and checks it again: an upload is entered whole or not at all, and
entering twice changes nothing."""

from __future__ import annotations

import asyncio
import logging
import shutil
import subprocess
from pathlib import Path
from typing import Callable

from arena.server.children import start_child
from arena.server.paths import ServerPaths

log = logging.getLogger(__name__)

MAX_UPLOAD_BYTES = 20 * 1024 * 1024  # the archive as sent; the intake bounds what it unpacks to
CHECK_NICE = 15  # an upload's check gives way to the league's games (LEAGUE_NICE, 10) on a busy machine
# The uploads waiting are checked by one child and enter together (one change the league takes,
# one start of the arena, not one each); a batch is bounded so that the first waits only so long.
CHECK_BATCH = 10
# Uploads come in bursts (a class at its deadline, an author's script): the checks wait this long
# after the first for the others, so that a burst enters in one change rather than its first alone.
GATHER_S = 2.0


class BodyTooLarge(Exception):
    pass


class UploadChecks:
    """Checks the uploads waiting, one at a time, each in a child process."""

    def __init__(self, paths: ServerPaths, waiting: Callable[[], list[int]]) -> None:
        self.paths, self.waiting = paths, waiting
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self.child: subprocess.Popen | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())
        self._wake.set()  # uploads left checking by a server that was stopped

    def wake(self) -> None:
        self._wake.set()

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(GATHER_S)
            self._wake.clear()
            while waiting := self.waiting()[:CHECK_BATCH]:
                if await self._check(waiting):
                    continue
                # A batch whose child failed: each alone, so that an upload that breaks its check
                # holds back only itself; those left checking are tried at the next upload or start.
                for upload in waiting if len(waiting) > 1 else ():
                    await self._check([upload])
                break

    async def _check(self, uploads: list[int]) -> bool:
        """Check `uploads` in one child; whether it ended well."""
        log_path = self.paths.logs / f"check-{uploads[0]}.log"
        child = self.child = start_child(["arena.server.check_upload", str(self.paths.config), *map(str, uploads)],
                                         log_path, nice=CHECK_NICE)
        while child.poll() is None:
            await asyncio.sleep(0.2)
        if child.returncode:
            log.warning("the check of uploads %s ended with %s (its log: %s)", uploads, child.returncode, log_path)
        return child.returncode == 0

    async def stop(self) -> None:
        from arena.server.children import stop_child

        if self._task is not None:
            self._task.cancel()
        await asyncio.get_running_loop().run_in_executor(None, stop_child, self.child, 5.0)


def clear_staging(paths: ServerPaths, keep: set[str]) -> None:
    """Folders in staging that no upload waits on: left by a server killed while receiving."""
    if not paths.staging.is_dir():
        return
    for entry in paths.staging.iterdir():
        if entry.name not in keep:
            shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink(missing_ok=True)


__all__ = ["BodyTooLarge", "MAX_UPLOAD_BYTES", "UploadChecks", "clear_staging"]
