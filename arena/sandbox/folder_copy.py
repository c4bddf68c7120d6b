"""The private copy of a bot's folder that a bot with `writable_folder = true` runs in (docs/sandbox.md):
measured and bounded before its start, made inside the sandbox after the bot's ready mark under the
bot's own limits, and counted in the bot's memory.

The copy lives in memory (a tmpfs in the sandbox), so what it takes is counted as the kernel counts
it: each file by its pages, and a page for every entry (a file's, a folder's or a link's inode and
name; a long link's target takes a page of its own). A copy that cannot fit the bot's limits is
refused before the bot starts, with the reason: a file larger than its `file_size_mb`, more entries
than COPY_MAX_ENTRIES, or more than its `memory_mb` in all. A hostile audit voided games with a
copy sized by its regular files alone (25,000 links filled it) and made before the mark (a 2 MB
file under `file_size_mb = 1`, a build output the memory limit killed mid-copy). Stdlib only.
"""

from __future__ import annotations

import os
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from arena.sandbox.isolation import COPY_SOURCE
from arena.sandbox.limits import Limits

PAGE_BYTES = 4096
COPY_MAX_ENTRIES = 100_000  # files, folders and links: as many as a bot's folder may hold at all


@dataclass(frozen=True, slots=True)
class CopySize:
    """What a copy of a folder takes in memory, and what of it decides whether it fits."""

    bytes: int  # pages of its files, and a page per entry
    entries: int
    largest: tuple[str, int] = ("", 0)  # its largest file, relative, and its size
    more: bool = False  # the count stopped past COPY_MAX_ENTRIES


def _pages(size: int) -> int:
    return -(-size // PAGE_BYTES) * PAGE_BYTES


def copy_size(folder: Path) -> CopySize:
    """Measure `folder` as its copy would take it, never following a link; stops counting past
    COPY_MAX_ENTRIES (that alone refuses it)."""
    total = entries = 0
    largest = ("", 0)
    pending = [Path(folder)]
    while pending:
        where = pending.pop()
        try:
            listing = list(os.scandir(where))
        except OSError:
            continue  # what cannot be read here, the copy will not read either: its failure is the bot's
        for item in listing:
            entries += 1
            if entries > COPY_MAX_ENTRIES:
                return CopySize(total, entries, largest, more=True)
            total += PAGE_BYTES
            try:
                info = item.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                pending.append(Path(item.path))
            elif stat.S_ISREG(info.st_mode):
                total += _pages(info.st_size)
                if info.st_size > largest[1]:
                    largest = (os.path.relpath(item.path, folder), info.st_size)
    return CopySize(total, entries, largest)


def _mb(size: int) -> str:
    return f"{size / (1 << 20):.1f} MB"


def copy_problem(size: CopySize, limits: Limits) -> str | None:
    """Why a copy of this size cannot be made under `limits` (None if it can), in a sentence that
    says what to change: the folder, or the limit the organiser grants."""
    name, largest = size.largest
    if largest > limits.file_size_mb << 20:
        return (f"its writable folder cannot be copied under its own limits: {name!r} is {_mb(largest)}, above its "
                f"file_size_mb of {limits.file_size_mb} (ask for more in [limits], within what the organiser grants)")
    if size.more:
        return (f"its writable folder cannot be copied: it holds more than {COPY_MAX_ENTRIES:,} files, folders and "
                "links")
    if size.bytes > limits.memory_mb << 20:
        return (f"its writable folder cannot be copied: the copy, in memory, would take {_mb(size.bytes)} "
                f"({size.entries:,} entries), more than its memory_mb of {limits.memory_mb} (the copy counts in it)")
    return None


def copy_refused(folder: Path, limits: Limits) -> str | None:
    """`copy_problem` of `folder` as it is now: what `bot check`, `bot add` and a run's start say."""
    return copy_problem(copy_size(folder), limits)


def copy_room_mb(size: CopySize, limits: Limits) -> int:
    """The size of the sandbox's in-memory folder: the copy, and `file_size_mb` more to write."""
    return -(-size.bytes >> 20) + 1 + limits.file_size_mb


def copy_words(folder: Path) -> str:
    """bash words that copy COPY_SOURCE into `folder` (an empty tmpfs), run after the bot's ready
    mark under its own limits: a copy that fails is the bot's (exit 126, said on its stderr).
    Entry by entry (dotglob), not "SRC/.": the folder itself is the sandbox's, whose times the bot's
    user may not set."""
    target = shlex.quote(str(folder))
    return (f"shopt -s dotglob nullglob; /bin/cp -a --no-preserve=ownership -- {COPY_SOURCE}/* {target}/ "
            f"&& /bin/chmod -R u+w -- {target}/* "
            "|| { echo 'arena: the copy of the bot folder failed' >&2; exit 126; }; shopt -u dotglob nullglob")


def tmpfs_bytes(pids: Iterable[int], paths: tuple[str, ...]) -> int:
    """What the sandbox's in-memory mounts at `paths` hold (its /tmp, /dev/shm, its folder's copy),
    read through `/proc/PID/root` of the first of `pids` (the bot's processes) inside it: memory the
    bot uses that no process's resident size shows. A process that shares our own mounts is passed
    over (its /tmp would be the host's); 0 when none is inside."""
    try:
        ours = os.readlink("/proc/self/ns/mnt")
    except OSError:
        return 0
    for pid in sorted(pids):
        try:
            if os.readlink(f"/proc/{pid}/ns/mnt") == ours:
                continue
            os.statvfs(f"/proc/{pid}/root/")
        except OSError:
            continue  # gone since it was listed: the next one
        total = 0
        for path in paths:
            try:
                info = os.statvfs(f"/proc/{pid}/root{path}")
            except OSError:
                continue  # not mounted there (yet)
            total += (info.f_blocks - info.f_bfree) * info.f_frsize
        return total
    return 0


__all__ = ["COPY_MAX_ENTRIES", "CopySize", "copy_size", "copy_problem", "copy_refused", "copy_room_mb", "copy_words",
           "tmpfs_bytes"]
