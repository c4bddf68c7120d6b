"""A seccomp filter that closes the covert channels bots could open through what the kernel shares
between them (docs/sandbox.md, collusion): every sandbox binds the same read-only /usr, whose
files' locks, inotify watches and page-cache residency every bot on the machine can see; and every
bot of a root arena is uid 65534, whose kernel keyring they all share (and keep, across runs).
Each was enough for two colluding bots to pass a whole hand.

What it does, call by call:
* succeed and do nothing, so that nothing is there to be seen: flock(2); fcntl(2)'s F_SETLK,
  F_SETLKW, their OFD and 64-bit forms and F_SETLEASE (F_GETLK then finds no lock); fadvise64 and
  readahead; madvise's WILLNEED, COLD and PAGEOUT (a JVM prints a warning on stdout, where the
  protocol runs, when its flock fails; cargo and SQLite stop);
* fail with ENOSYS, as where they do not exist, which programs are written to meet: inotify_init,
  inotify_init1 and fanotify_init (another process's use of a shared file, seen), mincore, preadv2
  and pwritev2 (their RWF_NOWAIT tells a cached page from one on disk; glibc falls back to preadv),
  add_key, request_key, keyctl, cachestat, io_uring_setup, process_madvise, and io_setup (its
  events come from one pool of the machine's, which a bot could empty for another to find so);
* answered by the arena (a user notification, where the kernel has them): sysinfo, whose answer
  holds the whole machine's thread count, free memory and load (arena/sandbox/sysinfo_answer.py);
* everything else is allowed. A process of another architecture than the machine's (but 32-bit x86
  on x86-64, filtered alike) gets ENOSYS for every call: the filter could not tell its calls apart.

What is left is timing (a page read from the cache is faster than one read from disk, and the
machine's load is everyone's): docs/sandbox.md says so.

A classic BPF program over `struct seccomp_data` (linux/seccomp.h): nr at 0, arch at 4, args
from 16, eight bytes each (their low halves at 16 + 8 i on little-endian machines). Installed in
the bot's child just before exec (`install`), so it holds for the sandbox's own wrapper and
everything the bot starts; builds run without it.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct
import sys
from dataclasses import dataclass

_LD_W_ABS, _JEQ_K, _JSET_K, _RET_K = 0x20, 0x15, 0x45, 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_RET_USER_NOTIF = 0x7FC00000
_NO_EFFECT = _RET_ERRNO | 0  # "errno 0": the call returns 0, and nothing was done
_NOT_HERE = _RET_ERRNO | errno.ENOSYS
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_NEW_LISTENER = 1, 1 << 3
_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}
_X32_BIT = 0x40000000
_ARG1_LOW = 24  # offsetof(struct seccomp_data, args[1]), its low half on a little-endian machine

# fcntl commands that take a lock or a lease (asm-generic/fcntl.h): SETLK, SETLKW, their 64-bit
# forms on 32-bit ABIs, the open-file-description forms, and F_SETLEASE.
_LOCK_COMMANDS = (6, 7, 13, 14, 37, 38, 1024)


@dataclass(frozen=True)
class _Calls:
    """One architecture's numbers of the calls the filter looks at."""

    audit_arch: int
    no_effect: tuple[int, ...]  # succeed and do nothing: flock, fadvise64 (and fadvise64_64), readahead
    not_here: tuple[int, ...]  # ENOSYS: inotify, mincore, preadv2/pwritev2, keyrings, fanotify, io_setup, and _NEWER
    fcntl: tuple[int, ...]  # looked at by command (_LOCK_COMMANDS)
    madvise: int  # looked at by advice (_PAGE_CACHE_ADVICE)
    answered: tuple[int, ...]  # by the arena, through a user notification: sysinfo


_NEWER = (451, 425, 440)  # cachestat, io_uring_setup, process_madvise: one number on every architecture
_ARCHES = {
    "x86_64": _Calls(0xC000003E, (73, 221, 187), (253, 294, 27, 327, 328, 248, 249, 250, 300, 206, *_NEWER), (72,), 28,
                     (99,)),
    "i386": _Calls(0x40000003, (143, 250, 272, 225), (291, 332, 218, 378, 379, 286, 287, 288, 338, 245, *_NEWER),
                   (55, 221), 219, (116,)),
    "aarch64": _Calls(0xC00000B7, (32, 223, 213), (26, 232, 286, 287, 217, 218, 219, 262, 0, *_NEWER), (25,), 233,
                      (179,)),
}
# madvise's advice that fills or empties the shared page cache of a mapped file: WILLNEED, COLD, PAGEOUT.
_PAGE_CACHE_ADVICE = (3, 20, 21)
_ARG2_LOW = 32  # offsetof(struct seccomp_data, args[2])
_COMPANION = {"x86_64": "i386"}  # another ABI the same kernel runs, filtered alike


def _native() -> str | None:
    machine = platform.machine()
    name = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine.lower(), machine)
    return name if name in _ARCHES and sys.byteorder == "little" else None


class _Assembler:
    """Classic BPF with labels: jumps name where they go, resolved to the one-byte offsets BPF takes."""

    def __init__(self) -> None:
        self.code: list[tuple[int, object, object, int]] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def add(self, code: int, k: int, yes: str | None = None, no: str | None = None) -> None:
        self.code.append((code, yes, no, k))

    def bytes(self) -> bytes:
        out = b""
        for index, (code, yes, no, k) in enumerate(self.code):
            jt = 0 if yes is None else self.labels[yes] - index - 1  # type: ignore[index]
            jf = 0 if no is None else self.labels[no] - index - 1  # type: ignore[index]
            if not (0 <= jt < 256 and 0 <= jf < 256):
                raise ValueError("seccomp program jump out of range")
            out += struct.pack("=HBBI", code, jt, jf, k)
        return out


def program(answered: bool = False) -> bytes | None:
    """The filter for this machine, as the bytes of a sock_filter array; None where the filter
    does not know the machine's architecture (then bots run without it: docs/sandbox.md).
    `answered`: sysinfo goes to the arena (a user notification), else through to the kernel."""
    native = _native()
    if native is None:
        return None
    arches = [native, *([_COMPANION[native]] if native in _COMPANION else [])]
    asm = _Assembler()
    asm.add(_LD_W_ABS, 4)  # arch
    for arch in arches:
        asm.add(_JEQ_K, _ARCHES[arch].audit_arch, yes=arch)
    asm.add(_RET_K, _NOT_HERE)  # an architecture the filter does not read
    for arch in arches:
        calls = _ARCHES[arch]
        asm.label(arch)
        asm.add(_LD_W_ABS, 0)  # the call's number
        if arch == "x86_64":
            asm.add(_JSET_K, _X32_BIT, yes="not_here")
        for number in calls.no_effect:
            asm.add(_JEQ_K, number, yes="no_effect")
        for number in calls.not_here:
            asm.add(_JEQ_K, number, yes="not_here")
        for number in calls.fcntl:
            asm.add(_JEQ_K, number, yes="fcntl")
        for number in calls.answered if answered else ():
            asm.add(_JEQ_K, number, yes="answered")
        asm.add(_JEQ_K, calls.madvise, yes="madvise")
        asm.add(_RET_K, _RET_ALLOW)
    asm.label("madvise")
    asm.add(_LD_W_ABS, _ARG2_LOW)  # its advice
    for advice in _PAGE_CACHE_ADVICE:
        asm.add(_JEQ_K, advice, yes="no_effect")
    asm.add(_RET_K, _RET_ALLOW)
    asm.label("fcntl")
    asm.add(_LD_W_ABS, _ARG1_LOW)  # its command
    for command in _LOCK_COMMANDS:
        asm.add(_JEQ_K, command, yes="no_effect")
    asm.add(_RET_K, _RET_ALLOW)
    asm.label("no_effect")
    asm.add(_RET_K, _NO_EFFECT)
    asm.label("answered")
    asm.add(_RET_K, _RET_USER_NOTIF)
    asm.label("not_here")
    asm.add(_RET_K, _NOT_HERE)
    return asm.bytes()


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def installer(answered: bool = False):
    """A function to call in a child just before exec that installs the filter (and sets
    no_new_privs, which a process without CAP_SYS_ADMIN needs for it), returning the listener of
    its answered calls (a descriptor the caller hands to the arena: sysinfo_answer.py), or None when
    it installed the filter without them: not `answered`, or a kernel without user notifications
    (before Linux 5.0), or a filter with a listener above it. None (no installer) where there is no
    filter for this machine. Everything is made here, in the parent: the child only makes calls."""
    plain = program()
    if plain is None:
        return None
    programs = [(program(answered=True), True)] if answered and _native() in _SYS_SECCOMP else []
    programs.append((plain, False))
    made = []
    for code, listens in programs:
        assert code is not None  # program() knows this machine: it gave `plain`
        buffer = ctypes.create_string_buffer(code, len(code))
        fprog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
        made.append((buffer, fprog, ctypes.cast(ctypes.pointer(fprog), ctypes.c_void_p), listens))
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    syscall = libc.syscall
    syscall.argtypes = [ctypes.c_long, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p]
    number = _SYS_SECCOMP.get(_native() or "", -1)

    def install() -> int | None:
        if prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        for _, _, pointer, listens in made:  # the buffers live as long as the closure
            if listens:
                listener = syscall(number, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_NEW_LISTENER, pointer)
                if listener >= 0:
                    return listener
            elif prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, pointer, 0, 0) == 0:
                return None
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")

    return install


__all__ = ["program", "installer"]
