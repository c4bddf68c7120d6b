"""What a sandbox shows of the host (docs/sandbox.md, "What a bot sees of the machine"): no counter of
the whole machine that a bot could move and another read, and nothing of the organiser's own.

Two colluding bots at one table passed 150 of 150 bits at 5 bits/s through /proc/sys/fs/file-nr,
the host's count of open files, which one moved by opening files and the other read. Every such
figure of the machine (open files and inodes, load, free memory, processes forked, interrupts, disk
and swap use, pressure, cgroups, locks) is shown by the kernel to every process, whatever its
namespaces. So the sandbox's /proc shows, in their place, figures of the bot's own or none: a
`meminfo` of its own memory limit, a `stat` and `loadavg` of an idle machine with the host's
number of processors, a `cpuinfo` as it was when the arena started, an empty /proc/sys, and an
empty file or folder for each of the others. Each is bound read-only from a folder the arena makes
once per process (`view_folder`): each bind costs about 0.25 ms of a start, so only the entries
that move are masked, not every entry of /proc.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path

from arena.sandbox.outbound import NAMESERVER

# Where a bot finds its own folder, whatever the organiser's folders are called: its working
# folder, its command's path, its build's folder.
BOT_FOLDER = "/bot"
HOSTNAME = "arena"  # the sandbox's host name (its own UTS namespace): not the organiser's machine's

# Entries of /proc that count for the whole machine, which a bot can move (by opening files,
# forking, taking memory, writing to its stderr log) and another can read. Those not readable
# by others (pagetypeinfo, slabinfo on most kernels) and those a kernel lacks are left alone.
MASKED_FILES = ("vmstat", "zoneinfo", "buddyinfo", "pagetypeinfo", "slabinfo", "diskstats", "interrupts", "softirqs",
                "schedstat", "locks", "swaps", "cgroups", "uptime")
MASKED_FOLDERS = ("sys", "pressure", "fs")
# Entries runtimes read (glibc counts processors in `stat` without /sys, a JVM and Node.js read
# `meminfo` and `cpuinfo`), given figures that no bot can move.
FAKED_FILES = ("meminfo", "stat", "loadavg", "cpuinfo")

_EMPTY_FILE, _EMPTY_FOLDER = "empty", "empty.d"
_lock = threading.Lock()
_made: dict[int, str] = {}  # process id -> its view folder (a forked worker makes its own)


def _readable_by_others(name: str) -> bool:
    try:
        return os.stat(f"/proc/{name}").st_mode & 0o004 != 0
    except OSError:
        return False


def meminfo_text(memory_mb: int) -> str:
    """A /proc/meminfo of a machine of `memory_mb`, all of it free: what a runtime that sizes its
    heap by the machine's memory should see, and a figure no other bot can move."""
    total = memory_mb * 1024
    figures = {"MemTotal": total, "MemFree": total, "MemAvailable": total}
    zero = ("Buffers", "Cached", "SwapCached", "Active", "Inactive", "SwapTotal", "SwapFree", "Dirty", "Writeback",
            "AnonPages", "Mapped", "Shmem", "Slab", "SReclaimable", "SUnreclaim", "KernelStack", "PageTables")
    figures.update({key: 0 for key in zero})
    figures.update(CommitLimit=total, Committed_AS=0)
    lines = [f"{key + ':':<16}{value:>8} kB" for key, value in figures.items()]
    lines += ["HugePages_Total:       0", "HugePages_Free:        0", "Hugepagesize:       2048 kB"]
    return "\n".join(lines) + "\n"


def stat_text(processors: int) -> str:
    """A /proc/stat of an idle machine with `processors` processors, booted when this one was."""
    btime = 0
    try:
        with open("/proc/stat") as f:
            btime = next((int(line.split()[1]) for line in f if line.startswith("btime ")), 0)
    except (OSError, ValueError):
        pass
    cpus = ["cpu  0 0 0 0 0 0 0 0 0 0"] + [f"cpu{n} 0 0 0 0 0 0 0 0 0 0" for n in range(processors)]
    return "\n".join(cpus + ["intr 0", "ctxt 0", f"btime {btime}", "processes 1", "procs_running 1",
                             "procs_blocked 0", "softirq 0 0 0 0 0 0 0 0 0 0 0"]) + "\n"


def _write(folder: str, name: str, text: str) -> None:
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o444)


def view_folder() -> str:
    """This process's folder of what sandboxes see in /proc's place, made on first use (again if
    something removed it), readable by every user (the bots of a root arena), writable by none
    but the arena's, removed when the process ends."""
    pid = os.getpid()
    with _lock:
        folder = _made.get(pid)
        if folder is not None and os.path.isdir(folder):
            return folder
        # In memory where there is a /dev/shm: its binds then name no disk device in the bot's mountinfo.
        if not _made:
            _sweep()
        folder = tempfile.mkdtemp(prefix=f"{VIEW_PREFIX}{pid}-", dir=_in_memory())
        _write(folder, _EMPTY_FILE, "")
        os.mkdir(os.path.join(folder, _EMPTY_FOLDER), 0o555)
        _write(folder, "stat", stat_text(os.cpu_count() or 1))
        _write(folder, "loadavg", "0.00 0.00 0.00 1/1 1\n")
        _write(folder, "resolv.conf", f"nameserver {NAMESERVER}\n")  # a granted network's (outbound.py)
        _write(folder, "hosts", "127.0.0.1\tlocalhost\n::1\tlocalhost\n")
        passwd, group = _users()
        _write(folder, "passwd", passwd)
        _write(folder, "group", group)
        try:
            shutil.copyfile("/proc/cpuinfo", os.path.join(folder, "cpuinfo"))
            os.chmod(os.path.join(folder, "cpuinfo"), 0o444)
        except OSError:
            _write(folder, "cpuinfo", "")
        os.chmod(folder, 0o755)
        if not _made and not _staged:
            atexit.register(_remove_own)
        _made[pid] = folder
        return folder


VIEW_PREFIX, STAGE_PREFIX = "arena-view-", "arena-bot-"  # then the process id, which the sweep reads


def _sweep() -> None:
    """Remove the views and stages of this user's arena processes that are gone: a worker process
    ends without its exit handlers (os._exit), and a killed arena has none run either."""
    where = _in_memory() or tempfile.gettempdir()
    try:
        names = os.listdir(where)
    except OSError:
        return
    for name in names:
        prefix = next((p for p in (VIEW_PREFIX, STAGE_PREFIX) if name.startswith(p)), None)
        owner = name[len(prefix):].split("-", 1)[0] if prefix else ""
        if not owner.isdigit() or os.path.exists(f"/proc/{owner}"):
            continue
        path = os.path.join(where, name)
        try:
            if os.lstat(path).st_uid == os.getuid() and os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            continue


def _remove_own() -> None:
    """At exit: this process's view folder and bot stages (a forked worker's are its own)."""
    folder = _made.pop(os.getpid(), None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    for (pid, *_), staged in list(_staged.items()):
        if pid == os.getpid():
            shutil.rmtree(os.path.dirname(staged), ignore_errors=True)


def _meminfo(folder: str, memory_mb: int) -> str:
    name = f"meminfo-{memory_mb}"
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        with _lock:
            if not os.path.exists(path):
                temp = f"{path}.{threading.get_ident()}"
                _write(folder, os.path.basename(temp), meminfo_text(memory_mb))
                os.replace(temp, path)
    return path


_present: list[tuple[list[str], list[str]]] = []


def _entries() -> tuple[list[str], list[str]]:
    """The masked files and folders this kernel has, readable by others (known once per process)."""
    if not _present:
        files = [name for name in MASKED_FILES if _readable_by_others(name)]
        folders = [name for name in MASKED_FOLDERS if os.path.isdir(f"/proc/{name}")]
        _present.append((files, folders))
    return _present[0]


def proc_binds(memory_mb: int) -> list[str]:
    """bubblewrap's words that put the view over the sandbox's /proc, after its `--proc /proc`:
    the faked entries, then an empty file or folder over each masked one."""
    folder = view_folder()
    files, folders = _entries()
    words = ["--ro-bind", _meminfo(folder, memory_mb), "/proc/meminfo"]
    for name in FAKED_FILES[1:]:
        if os.path.exists(f"/proc/{name}"):
            words += ["--ro-bind", os.path.join(folder, name), f"/proc/{name}"]
    for name in files:
        words += ["--ro-bind", os.path.join(folder, _EMPTY_FILE), f"/proc/{name}"]
    for name in folders:
        words += ["--ro-bind", os.path.join(folder, _EMPTY_FOLDER), f"/proc/{name}"]
    return words


_staged: dict[tuple[int, str, int, int], str] = {}  # (process id, a bot folder's real path, inode, time) -> its stage
STAGE_MAX_BYTES = 64 << 20  # a bot folder larger than this is bound where it lies
STAGE_MAX_ENTRIES = 10_000


def neutral_source(folder: Path | str) -> str:
    """Where to bind a read-only bot folder from, so that the sandbox's mountinfo (which names the
    path of each bind's source) shows no folder of the organiser's, nor a disk: a copy in a stage
    of this process's in memory (/dev/shm, else the system's temporary folder), made once per folder
    and process, in a folder only the arena's user may enter (the sandbox binds it, the bot never
    walks there). Files, folders and links are copied, anything else a build left (a FIFO) is made
    anew, never opened. A folder of more than STAGE_MAX_BYTES or STAGE_MAX_ENTRIES is bound from
    where it lies."""
    real = os.path.realpath(folder)
    try:
        info = os.stat(real)
    except OSError:
        return real
    key = (os.getpid(), real, info.st_ino, info.st_mtime_ns)  # a folder made anew at that path is staged anew
    staged = _staged.get(key)
    if staged is not None and os.path.isdir(staged):
        return staged
    try:
        stage = tempfile.mkdtemp(prefix=f"{STAGE_PREFIX}{os.getpid()}-", dir=_in_memory())
    except OSError:
        return real
    target = os.path.join(stage, os.path.basename(real) or "bot")
    try:
        if not _copy_small(real, target):
            shutil.rmtree(stage, ignore_errors=True)
            return real
    except OSError:
        shutil.rmtree(stage, ignore_errors=True)
        return real
    if not _staged and not _made:
        atexit.register(_remove_own)
    _staged[key] = target
    return target


def _in_memory() -> str | None:
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK | os.X_OK) else None


def _copy_small(source: str, target: str) -> bool:
    """Copy `source` to `target` as neutral_source says; False (nothing kept) past the stage's bounds."""
    total, entries = 0, 0
    modes: list[tuple[str, os.stat_result]] = []  # each folder's, set once its entries are made (a 0555 one takes none)
    for root, dirs, files in os.walk(source):
        where = os.path.join(target, os.path.relpath(root, source))
        os.makedirs(where, exist_ok=True)
        modes.append((where, os.lstat(root)))
        for name in [*dirs, *files]:
            entries += 1
            path, copy = os.path.join(root, name), os.path.join(where, name)
            info = os.lstat(path)
            total += info.st_size
            if entries > STAGE_MAX_ENTRIES or total > STAGE_MAX_BYTES:
                return False
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(path), copy)
                if name in dirs:
                    dirs.remove(name)  # a link to a folder is a link: os.walk does not go down it anyway
            elif stat.S_ISREG(info.st_mode):
                shutil.copyfile(path, copy, follow_symlinks=False)
                os.chmod(copy, stat.S_IMODE(info.st_mode))
            elif stat.S_ISFIFO(info.st_mode):
                os.mkfifo(copy, stat.S_IMODE(info.st_mode))
            else:
                continue
            _own_as(copy, info)
    for where, info in reversed(modes):
        os.chmod(where, stat.S_IMODE(info.st_mode))
        _own_as(where, info)
    return True


def _own_as(path: str, info: os.stat_result) -> None:
    """A root arena's copy keeps each entry's owner: a folder of mode 0700 made the unprivileged
    bot's own (isolation.py's private copy) must stay its to enter."""
    if os.getuid() == 0 and (info.st_uid, info.st_gid) != (0, 0):
        os.lchown(path, info.st_uid, info.st_gid)


def users_binds() -> list[str]:
    """bubblewrap's words for the sandbox's own /etc/passwd and /etc/group: root, nobody (a root
    arena's bots) and the arena's own uid as `bot`, at home in /tmp; not the machine's, which name
    its users and their homes (the organiser's among them)."""
    folder = view_folder()
    return ["--ro-bind", os.path.join(folder, "passwd"), "/etc/passwd",
            "--ro-bind", os.path.join(folder, "group"), "/etc/group"]


def _users() -> tuple[str, str]:
    uid, gid = os.getuid(), os.getgid()
    passwd = ["root:x:0:0:root:/root:/usr/sbin/nologin", "nobody:x:65534:65534:nobody:/tmp:/usr/sbin/nologin"]
    group = ["root:x:0:", "nogroup:x:65534:"]
    if uid not in (0, 65534):
        passwd.append(f"bot:x:{uid}:{gid}:bot:/tmp:/bin/sh")
    if gid not in (0, 65534):
        group.append(f"bot:x:{gid}:")
    return "\n".join(passwd) + "\n", "\n".join(group) + "\n"


def network_binds() -> list[str]:
    """bubblewrap's words for what a bot granted the network needs of /etc: a resolver (slirp4netns's)
    and localhost; not the host's own resolv.conf or hosts, which name its loopback and its neighbours."""
    folder = view_folder()
    return ["--ro-bind", os.path.join(folder, "resolv.conf"), "/etc/resolv.conf",
            "--ro-bind", os.path.join(folder, "hosts"), "/etc/hosts"]


__all__ = ["users_binds", "neutral_source", "network_binds", "BOT_FOLDER", "HOSTNAME", "MASKED_FILES", "MASKED_FOLDERS", "FAKED_FILES", "meminfo_text", "stat_text",
           "view_folder", "proc_binds"]
