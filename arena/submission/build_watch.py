"""The disk a build may fill while it runs (docs/sandbox.md, "Builds"): at most BUILD_MAX_BYTES and
BUILD_MAX_ENTRIES in its folder, what a built bot may hold at all. A build once wrote 4.7 GB into
the build cache in 14 s (40 GB within its 120 s) and was refused only after it ended.

A thread looks at the build's folder every WATCH_INTERVAL_S (less often when a look takes longer):
the bytes its files take on disk or say they hold, whichever is more (a sparse file is read whole
later), and its entries; and the files the build's processes hold open after removing them, which
fill the disk unseen in any folder. Over a ceiling, the build is stopped then and there, and its
folder is removed by its caller: nothing of it is left."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Callable

from arena.submission.folder import MAX_ENTRIES, MAX_TOTAL_BYTES

BUILD_MAX_BYTES = MAX_TOTAL_BYTES  # 4 GiB
BUILD_MAX_ENTRIES = MAX_ENTRIES  # files, folders and links
WATCH_INTERVAL_S = 0.1


def _size(info: os.stat_result) -> int:
    return max(info.st_size, info.st_blocks * 512)


def folder_use(folder: Path, max_entries: int) -> tuple[int, int]:
    """(bytes, entries) of everything under `folder`, links not followed; the count stops past
    `max_entries` (the caller needs no more to say it is over)."""
    total, entries = 0, 0
    pending = [str(folder)]
    while pending and entries <= max_entries:
        try:
            with os.scandir(pending.pop()) as listing:
                for entry in listing:
                    entries += 1
                    if entries > max_entries:
                        break
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue  # removed since it was listed
                    total += _size(info)
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
        except OSError:
            continue
    return total, entries


def removed_but_open(pids: set[int]) -> int:
    """Bytes of the files that `pids` hold open after removing them (each counted once)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for pid in pids:
        try:
            names = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for name in names:
            path = f"/proc/{pid}/fd/{name}"
            try:
                if not os.readlink(path).endswith(" (deleted)"):
                    continue
                info = os.stat(path)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) not in seen:
                seen.add((info.st_dev, info.st_ino))
                total += _size(info)
    return total


class BuildWatch:
    """Watches a running build's folder and processes; `stop_build` is called once, when it is over
    a ceiling, and `reason` then says which."""

    def __init__(self, folder: Path, members: Callable[[], set[int]], stop_build: Callable[[], None]) -> None:
        self.folder, self.members, self.stop_build = folder, members, stop_build
        self.reason: str | None = None
        self.started = time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="build-watch", daemon=True)
        self._thread.start()

    def _over(self) -> str | None:
        max_bytes, max_entries = BUILD_MAX_BYTES, BUILD_MAX_ENTRIES
        used, entries = folder_use(self.folder, max_entries)
        if entries > max_entries:
            return f"made more than {max_entries:,} files, folders and links in its folder"
        used += removed_but_open(self.members())
        if used > max_bytes:
            return f"wrote more than {_words(max_bytes)} (its folder, and files it removed but kept open)"
        return None

    def _watch(self) -> None:
        wait = WATCH_INTERVAL_S
        while not self._done.wait(wait):
            looked = time.monotonic()
            reason = self._over()
            if reason is not None:
                self.reason = f"{reason}, after {time.monotonic() - self.started:.1f} s"
                self.stop_build()
                return
            wait = max(WATCH_INTERVAL_S, 2 * (time.monotonic() - looked))  # a big folder: looked at less often

    def close(self) -> None:
        self._done.set()
        self._thread.join(timeout=5.0)


def _words(size: int) -> str:
    return f"{size >> 30} GiB" if size >= 1 << 30 and size % (1 << 30) == 0 else f"{size >> 20} MB"


__all__ = ["BUILD_MAX_BYTES", "BUILD_MAX_ENTRIES", "BuildWatch", "folder_use", "removed_but_open"]
