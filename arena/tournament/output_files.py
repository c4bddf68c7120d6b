"""Files the arena writes for the organiser where the organiser names them: a report (`standings
-o`), the live page (`tournament run --html`), a config (`tournament new`), the results database.

Each is a regular file, or a new one: never a device, FIFO, socket, folder or link named in its
place. A page written by renaming a finished copy onto its name once replaced /dev/null itself
(as root) with a regular file; one written through its name would have followed a link anywhere.
So the name is looked at first (without following it), and the file is written aside, in a name
no one else can hold, and renamed onto it whole."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from arena.errors import ArenaError

_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def output_problem(path: Path) -> str | None:
    """Why the arena must not write a file at `path`, in words ("is a FIFO (named pipe)"), or None
    when it may: a regular file, or no file yet (a missing folder is the write's to say). A link
    is refused even to a regular file: the organiser names the file itself."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be looked at ({exc.strerror or exc})"
    if stat.S_ISREG(info.st_mode):
        return None
    for test, words in _KINDS:
        if test(info.st_mode):
            if words == "a symbolic link":
                return f"is {words} (to {os.readlink(path)}); name the file itself"
            return f"is {words}, not a regular file"
    return "is not a regular file"


def refuse_unwritable(path: Path, option: str) -> None:
    """ArenaError (exit code 2) naming the option and the path when `output_problem` says why not."""
    problem = output_problem(path)
    if problem is not None:
        raise ArenaError(f"{option} {path}: {problem}; the arena writes only a regular file or a new one")


def write_output(path: Path, text: str, option: str) -> None:
    """Write `text` as the whole file at `path`: refused (ArenaError) unless `output_problem`
    allows it; written aside in a fresh file of the same folder, then renamed onto the name, so a
    reader never sees half of it. OSError when the disk refuses."""
    refuse_unwritable(path, option)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)  # as a file opened for writing would be, not mkstemp's 0600
        refuse_unwritable(path, option)  # what stood there may have changed while it was written
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


__all__ = ["output_problem", "refuse_unwritable", "write_output"]
