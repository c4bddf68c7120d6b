"""sysinfo(2) answered by the arena, not the kernel (docs/sandbox.md, "What a bot sees of the machine").

The kernel's answer holds three figures of the whole machine that any bot can move and any other
read, whatever its namespaces: its number of threads (a bot that starts 40 threads moves it by 40),
its free memory and its load. /proc's copies of them are masked (host_view.py); this call is not a
file. The seccomp filter (seccomp.py) hands each sysinfo call of a bot to the arena (a user
notification, Linux 5.0 and later); a thread of the arena writes the answer into the caller's
memory: the bot's own memory limit, all of it free, no load, one process, and the machine's
uptime. Failing the call instead (ENOSYS) left glibc's sysconf(_SC_PHYS_PAGES) reading stack
garbage (Python's os.sysconf gave -7655153375278670048), which a runtime sizes its heap by.

Where the kernel has no user notifications, the filter lets the call through (`describe` says so).
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import select
import socket
import struct
import threading
import time

log = logging.getLogger(__name__)

_NOTIF_RECV, _NOTIF_SEND, _NOTIF_ID_VALID = 0xC0502100, 0xC0182101, 0x40082102  # linux/seccomp.h ioctls
_NOTIF = struct.Struct("=QII iIQ6Q")  # seccomp_notif: id, pid, flags, then seccomp_data: nr, arch, ip, args
_RESPONSE = struct.Struct("=QqiI")  # seccomp_notif_resp: id, val, error, flags
_LP64 = struct.Struct("=q3Q6QHH4xQQI4x")  # struct sysinfo of a 64-bit process: 112 bytes
_COMPAT = struct.Struct("=i3I6IHHIII8x")  # of a 32-bit one (i386 on x86-64): 64 bytes
_ARCH_I386 = 0x40000003
_libc = ctypes.CDLL(None, use_errno=True)  # an instance of its own: the prototypes below are its alone
_libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
_libc.process_vm_writev.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong,
                                    ctypes.c_ulong]
_libc.process_vm_writev.restype = ctypes.c_ssize_t


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def answer(memory_mb: int, compat: bool) -> bytes:
    """The struct sysinfo a bot gets: its own memory, all free, no load, no swap, one process."""
    uptime = int(time.clock_gettime(time.CLOCK_BOOTTIME))
    if compat:  # 32-bit fields: memory in pages, as the kernel gives it to such a process past 4 GiB
        pages = (memory_mb << 20) // 4096
        return _COMPAT.pack(uptime, 0, 0, 0, pages, pages, 0, 0, 0, 0, 1, 0, 0, 0, 4096)
    total = memory_mb << 20
    return _LP64.pack(uptime, 0, 0, 0, total, total, 0, 0, 0, 0, 1, 0, 0, 0, 1)


def _write_into(pid: int, address: int, data: bytes) -> bool:
    """Write `data` at `address` of process `pid` (process_vm_writev); False when it cannot be."""
    buffer = ctypes.create_string_buffer(data, len(data))
    local = _IoVec(ctypes.addressof(buffer), len(data))
    remote = _IoVec(address, len(data))
    return _libc.process_vm_writev(pid, ctypes.addressof(local), 1, ctypes.addressof(remote), 1, 0) == len(data)


class _Answerer:
    """One thread per arena process that answers every registered filter's sysinfo calls."""

    def __init__(self) -> None:
        self.poll = select.poll()
        self.lock = threading.Lock()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        self.poll.register(self.wake_r, select.POLLIN)
        self.memory: dict[int, int] = {}  # listener fd -> the memory its bot's answers give
        self.pending: list[tuple[int, int | None]] = []  # (listener fd, memory_mb, or None: drop it)
        self.thread = threading.Thread(target=self._run, name="arena-sysinfo", daemon=True)
        self.thread.start()

    def change(self, fd: int, memory_mb: int | None) -> None:
        with self.lock:
            self.pending.append((fd, memory_mb))
        os.write(self.wake_w, b"x")

    def _apply(self) -> None:
        try:
            os.read(self.wake_r, 4096)
        except BlockingIOError:
            pass
        with self.lock:
            pending, self.pending = self.pending, []
        for fd, memory_mb in pending:
            if memory_mb is not None:
                self.memory[fd] = memory_mb
                self.poll.register(fd, select.POLLIN)
            elif fd in self.memory:
                self._drop(fd)

    def _drop(self, fd: int) -> None:
        self.memory.pop(fd, None)
        self.poll.unregister(fd)
        os.close(fd)

    def _run(self) -> None:
        while True:
            for fd, events in self.poll.poll():
                if fd == self.wake_r:
                    self._apply()
                elif fd not in self.memory:
                    continue
                elif events & select.POLLIN:  # a call waits: the ioctl that takes it cannot block
                    try:
                        self._answer_one(fd, self.memory[fd])
                    except OSError as exc:  # ENOENT: its caller was killed while it waited
                        if exc.errno != errno.ENOENT:
                            log.warning("answering a bot's sysinfo call failed: %s", exc)
                    except Exception:  # noqa: BLE001 - said; a dead answerer would hang every bot in sysinfo
                        log.warning("answering a bot's sysinfo call failed", exc_info=True)
                else:  # POLLHUP: every process of the filter is gone (the fd stays until stop())
                    self.poll.modify(fd, 0)

    def _answer_one(self, fd: int, memory_mb: int) -> None:
        notif = ctypes.create_string_buffer(_NOTIF.size)  # zeroed, as the kernel requires
        if _libc.ioctl(fd, _NOTIF_RECV, ctypes.addressof(notif)) != 0:
            raise OSError(ctypes.get_errno(), "SECCOMP_IOCTL_NOTIF_RECV")
        ident, pid, _, _, arch, _, address, *_ = _NOTIF.unpack(notif.raw)
        data = answer(memory_mb, compat=arch == _ARCH_I386)
        written = _write_into(pid, address, data)
        # Still the same call of the same process (its pid not reused since): then answer it.
        valid = ctypes.c_uint64(ident)
        if _libc.ioctl(fd, _NOTIF_ID_VALID, ctypes.addressof(valid)) != 0:
            return
        response = _RESPONSE.pack(ident, 0, 0 if written else -errno.EFAULT, 0)
        sent = ctypes.create_string_buffer(response, len(response))
        if _libc.ioctl(fd, _NOTIF_SEND, ctypes.addressof(sent)) != 0:
            raise OSError(ctypes.get_errno(), "SECCOMP_IOCTL_NOTIF_SEND")


_answerers: dict[int, _Answerer] = {}
_answerers_lock = threading.Lock()


def answer_for(listener_fd: int, memory_mb: int) -> None:
    """Answer the sysinfo calls that reach `listener_fd` (a filter's listener, now the arena's)
    with `memory_mb`, until `stop(listener_fd)`."""
    with _answerers_lock:
        answerer = _answerers.get(os.getpid())
        if answerer is None:  # a forked worker has no thread of its parent's
            answerer = _answerers[os.getpid()] = _Answerer()
    answerer.change(listener_fd, memory_mb)


def stop(listener_fd: int) -> None:
    """No more answers through `listener_fd`, which is closed (its bot's calls, if any, fail)."""
    answerer = _answerers.get(os.getpid())
    if answerer is not None:
        answerer.change(listener_fd, None)
    else:
        os.close(listener_fd)


class Answering:
    """One bot's sysinfo answers: `theirs` goes to its child (child.py's `listener_to`), which sends
    its filter's listener back; `started()` once the bot runs, `close()` when it is gone."""

    def __init__(self, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        self._ours, self.theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.listener: int | None = None

    def started(self) -> bool:
        """Take the listener the child sent (it did before its exec, so before Popen returned) and
        answer its calls; False when none came (a kernel without user notifications)."""
        self.theirs.close()
        self._ours.setblocking(False)
        try:
            _, fds, _, _ = socket.recv_fds(self._ours, 1, 1)
        except (BlockingIOError, OSError):
            fds = []
        self._ours.close()
        if not fds:
            return False
        self.listener = fds[0]
        answer_for(self.listener, self.memory_mb)
        return True

    def close(self) -> None:
        self.theirs.close()
        self._ours.close()
        if self.listener is not None:
            stop(self.listener)
            self.listener = None


__all__ = ["answer", "answer_for", "stop", "Answering"]
