"""Folders for ZeroMQ ipc endpoints: one per arena-started bot, locked while in use.

Each is private: an outer folder only the arena's user can enter (mode 0700), holding the lock and
the socket folder (`SOCKET_FOLDER`) that the bot's sandbox binds writable, given to the user the
bot runs as. Another process of that user on the host (uid 65534 under a root arena: any program
running as nobody) cannot reach the socket: the outer folder is not theirs to enter.

A sandboxed bot binds its socket in the socket folder, which it may write; the arena never follows
a path there (a bot replaced its socket with a link to a root-only socket of the host, and the
arena connected to it). `SocketAdopter` moves the bot's socket, once it is one, into the outer
folder, where the bot cannot reach, and the arena connects there.

Split from arena/transport/zmq.py, which starts the bots and talks to them.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import stat
import tempfile
import threading
import time

# ipc endpoints live in a folder of their own, locked (flock) by the arena process that made it
# for as long as it uses it: the folders of an arena killed with SIGKILL, whose clean-up never
# ran, are then unlocked, and the next arena removes them. A lock rather than a process id: an
# arena in another PID namespace (a container sharing /tmp) is alive though its pid is not.
log = logging.getLogger(__name__)
IPC_FOLDER_PREFIX = "arena-zmq-"
IPC_LOCK_NAME = ".lock"
SOCKET_FOLDER = "sock"
IPC_UNLOCKED_GRACE_S = 60.0  # a folder made but not yet locked is new: left alone this long
_ipc_locks: dict[str, int] = {}  # folder -> the descriptor holding its lock
_stale_ipc_removed = False


def new_ipc_folder() -> str:
    """A fresh private folder (mode 0700, locked); its sockets go in `socket_folder` of it."""
    global _stale_ipc_removed
    if not _stale_ipc_removed:
        _stale_ipc_removed = True
        remove_stale_ipc_folders()
    folder = tempfile.mkdtemp(prefix=IPC_FOLDER_PREFIX)
    fd = os.open(os.path.join(folder, IPC_LOCK_NAME), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    _ipc_locks[folder] = fd
    os.mkdir(socket_folder(folder), 0o700)
    return folder


def socket_folder(folder: str) -> str:
    """Where a private ipc folder's sockets are: the one part of it a bot's sandbox binds."""
    return os.path.join(folder, SOCKET_FOLDER)


def release_ipc_folder(folder: str) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    fd = _ipc_locks.pop(folder, None)
    if fd is not None:
        os.close(fd)


class SocketAdopter(threading.Thread):
    """Moves the socket `name` a bot binds in `folder`'s socket folder to `folder` itself, once it
    is a socket: first aside, where the bot cannot change it, checked there, then to its name,
    where the arena's connection looks for it. Anything else of that name is removed, never
    followed. Ends when done, or when stopped (the bot closed)."""

    def __init__(self, folder: str, name: str) -> None:
        super().__init__(name=f"ipc-adopt-{os.path.basename(folder)}", daemon=True)
        self.source = os.path.join(socket_folder(folder), name)
        self.aside = os.path.join(folder, f".{name}.adopting")
        self.target = os.path.join(folder, name)
        self.stopped = threading.Event()

    def run(self) -> None:
        wait_s = 0.002
        while not self.stopped.wait(wait_s):
            wait_s = min(2 * wait_s, 0.02)  # a bot binds in milliseconds: looked for often, at first
            try:
                if not stat.S_ISSOCK(os.lstat(self.source).st_mode):
                    log.warning("a bot's ipc endpoint %s is not a socket: removed, not followed", self.source)
                    os.unlink(self.source)
                    continue
                os.rename(self.source, self.aside)
                if stat.S_ISSOCK(os.lstat(self.aside).st_mode):  # still one, now out of the bot's reach
                    os.rename(self.aside, self.target)
                    if os.getuid() == 0:  # and the folder is no longer the bot's to write in
                        os.chown(os.path.dirname(self.source), 0, 0)
                        os.chmod(os.path.dirname(self.source), 0o755)
                    return
                os.unlink(self.aside)  # swapped in between: never connected to
            except FileNotFoundError:
                continue  # not bound yet
            except OSError:
                log.debug("adopting %s", self.source, exc_info=True)

    def stop(self) -> None:
        self.stopped.set()


def remove_stale_ipc_folders(where: str | None = None) -> None:
    """Remove our ipc folders that no live arena holds (best effort)."""
    base = where or tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(base) if n.startswith(IPC_FOLDER_PREFIX)]
    except OSError:
        return
    for name in names:
        path = os.path.join(base, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():  # a folder, and ours
            continue
        try:
            fd = os.open(os.path.join(path, IPC_LOCK_NAME), os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:  # no lock: an older arena's folder, or one just being made
            if time.time() - info.st_mtime > IPC_UNLOCKED_GRACE_S:
                shutil.rmtree(path, ignore_errors=True)
            continue
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: a live arena's
            continue
        finally:
            os.close(fd)  # (had we taken the lock, closing gives it back: the folder goes anyway)
        shutil.rmtree(path, ignore_errors=True)
