"""Isolation (docs/sandbox.md): a bot, and its build step, see only their own folder, through
Debian's bubblewrap (`bwrap`).

What a sandboxed bot sees: the system's read-only runtime (/usr, a few entries of /etc, the
arena's own Python), its bot folder read-only at /bot (or a private writable copy, if its
manifest says `writable_folder = true`), an empty private /tmp that is also its HOME, and its
own /proc (no figure of the machine a bot could move: host_view.py) and /dev. Not the other bots'
folders, the tournament's folder, results or logs, nor the organiser's home. It has its own PID,
IPC, UTS and network namespaces (a granted network joined to the world by outbound.py), and an
environment of PATH, LANG, HOME and the arena's own variables only.

Who it runs as: when the arena is root, bubblewrap runs privileged (so it can reach any path the
arena can) and `setpriv` turns the bot into uid 65534 (nobody) with no capabilities and no new
privileges before it starts; when the arena is an ordinary user, bubblewrap makes an unprivileged
user namespace, where the kernel allows one, and the bot keeps the arena's uid outside it.

Where bubblewrap is missing or refused, bots run without isolation; `find_isolation` says why,
and a tournament with `isolation = "required"` refuses to start.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Sequence

from arena.sandbox.host_view import BOT_FOLDER, HOSTNAME, network_binds, neutral_source, proc_binds, users_binds

UNPRIVILEGED_UID = 65534  # nobody: who bots run as when the arena is root
# Read-only folders beyond the system's, for runtimes installed elsewhere (a JDK in /opt, rustup
# in a home folder): the organiser's, never a bot author's, so not a manifest key.
RUNTIME_PATHS_ENV = "ARENA_SANDBOX_PATHS"


class IsolationMode(str, Enum):
    """Whether bots are isolated: where bubblewrap works (auto), always (required: refused without
    it), or never (off). A tournament's `isolation` key, `arena play --isolation`."""

    AUTO = "auto"
    REQUIRED = "required"
    OFF = "off"


ISOLATION_MODES = tuple(mode.value for mode in IsolationMode)
# What of /etc a program needs to start and run: the dynamic linker's cache, the name service
# switch (users and groups themselves are the sandbox's own: host_view.py, a JVM looks up its
# home), Debian's alternatives links (awk, java), TLS settings and certificates (Node.js reads
# openssl.cnf at start), the time zone, and the JDK's settings. No network files: a granted
# network gets its own (host_view.py). Each bind costs about 0.25 ms of every start
# (benchmarks/sandbox.py), so the list is kept to what runtimes use.
ETC_ENTRIES = ("ld.so.cache", "alternatives", "nsswitch.conf", "ssl", "localtime", "java-*")
SYSTEM_LINKS = ("bin", "lib", "lib32", "lib64", "libx32", "sbin")  # /bin -> usr/bin on merged-/usr systems
PATH_INSIDE = "/usr/local/bin:/usr/bin:/bin"
PROBE_TIMEOUT_S = 10.0
# Where a bot with a writable folder finds its own folder, read-only, to copy from at its start.
COPY_SOURCE = "/run/arena-folder"


@dataclass(frozen=True)
class Isolation:
    """How bots are isolated on this machine: the tool, and who bots run as."""

    tool: str = ""  # bubblewrap's path; "" when bots run without isolation
    version: str = ""
    bot_uid: int | None = None  # who bots run as outside (the arena is root); None: the arena's own uid
    why_not: str = ""  # why there is no isolation, when there is none

    @property
    def active(self) -> bool:
        return bool(self.tool)

    def summary(self) -> str:
        """One line for people: a run's first line, `arena bot check`'s sandbox row."""
        if not self.active:
            return f"none: bots can read whatever the arena's user can ({self.why_not})"
        who = f"as uid {self.bot_uid}" if self.bot_uid is not None else "in a user namespace of their own"
        return f"{self.version}: each bot sees only its own folder, {who}"

    def record(self) -> dict[str, Any]:
        """What a stored game keeps of it."""
        if not self.active:
            return {"tool": "none", "why": self.why_not}
        return {"tool": self.version, "bot_uid": self.bot_uid}


def find_isolation(mode: str = "auto") -> Isolation:
    """The isolation bots get here: bubblewrap, once a probe sandbox has run, else none (with why).
    `mode` "off" turns it off; "auto" and "required" look for it (the caller refuses to run
    without it under "required")."""
    if mode == "off":
        return Isolation(why_not='isolation = "off"')
    return _probe()


@functools.lru_cache(maxsize=1)
def _probe() -> Isolation:
    tool = shutil.which("bwrap")
    if tool is None:
        return Isolation(why_not="bubblewrap is not installed: apt-get install bubblewrap")
    if os.getuid() == 0 and shutil.which("setpriv") is None:
        return Isolation(why_not="setpriv (util-linux) is not installed, so bots could not leave root")
    try:
        version = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return Isolation(why_not=f"{tool} --version failed: {exc}")
    found = Isolation(tool=tool, version=version or "bubblewrap", bot_uid=UNPRIVILEGED_UID if os.getuid() == 0 else None)
    with tempfile.TemporaryDirectory(prefix="arena-isolation-probe-") as folder:
        argv = sandboxed_command(found, ["/bin/true"], Path(folder), tmp_mb=1)
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, env=bot_environment())
        except (OSError, subprocess.SubprocessError) as exc:
            return Isolation(why_not=f"bubblewrap could not run: {exc}")
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return Isolation(why_not=f"bubblewrap refused a sandbox here: {said}")
    return found


def bot_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A sandboxed process's whole environment: nothing of the organiser's but LANG."""
    env = {"PATH": PATH_INSIDE, "HOME": "/tmp", "LANG": os.environ.get("LANG") or "C.UTF-8"}
    env.update(extra or {})
    return env


def runtime_paths() -> list[str]:
    """Read-only folders every sandbox gets: the arena's Python (a bot's `{python}`), unless it is
    under /usr already, and the organiser's ARENA_SANDBOX_PATHS."""
    paths = []
    for prefix in dict.fromkeys((sys.base_prefix, sys.prefix)):
        if not prefix.startswith("/usr/"):
            paths.append(prefix)
    paths += [p for p in os.environ.get(RUNTIME_PATHS_ENV, "").split(":") if p]
    return [p for p in paths if os.path.isdir(p)]


def seen_by_bots(path: Path | str) -> str | None:
    """The folder bound into every sandbox (the system's, the arena's Python, the organiser's
    ARENA_SANDBOX_PATHS) that holds `path`, or None: a tournament's results, config or logs there
    would be read by every bot (a workspace made inside the arena's venv was)."""
    real = os.path.realpath(path)
    bound = ["/usr", *(f"/{name}" for name in SYSTEM_LINKS if not os.path.islink(f"/{name}")),
             *(entry for pattern in ETC_ENTRIES for entry in glob.glob(f"/etc/{pattern}")), *runtime_paths()]
    for folder in bound:
        root = os.path.realpath(folder)
        if real == root or real.startswith(root.rstrip("/") + "/"):
            return folder
    return None


def sandboxed_command(isolation: Isolation, argv: Sequence[str], folder: Path, *, writable_folder: bool = False,
                      copy_mb: int = 0, writable_paths: Sequence[str] = (), network: bool = False,
                      run_as: int | None = None, tmp_mb: int = 64, memory_mb: int = 2048,
                      before: Sequence[str] = ()) -> list[str]:
    """`argv` to run inside a sandbox whose working folder is the host's `folder`, seen at
    BOT_FOLDER (/bot) whatever its name here: read-only; writable (a build, in the folder the arena
    prepared for it); or, with `copy_mb`, an empty private folder of that size in memory, with the
    folder bound read-only at COPY_SOURCE for `before` to copy from (a bot with `writable_folder =
    true`). An argument naming a path in `folder` (a program started by its path) names it at
    /bot. `writable_paths` are bound writable at their own place (a ZeroMQ ipc folder). `network`:
    a granted network, which the caller joins to the world (outbound.py). `run_as`:
    the uid and gid to run as when the arena is root (default: the unprivileged one; never 0).
    `memory_mb`: the memory its /proc/meminfo shows (host_view.py). `before`: a command that runs
    argv in the sandbox (the transport's stdio shim)."""
    folder = Path(folder)
    # A network of its own always: a granted one comes through slirp4netns, outbound only (outbound.py).
    cmd = [isolation.tool, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
           "--unshare-cgroup-try", "--unshare-net", "--hostname", HOSTNAME]
    if isolation.bot_uid is None:
        cmd.append("--unshare-user")  # an ordinary arena: bwrap needs a user namespace of its own
    cmd += ["--ro-bind", "/usr", "/usr"]
    for name in SYSTEM_LINKS:
        path = f"/{name}"
        if os.path.islink(path):
            cmd += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            cmd += ["--ro-bind", path, path]
    for pattern in ETC_ENTRIES:
        for path in sorted(glob.glob(f"/etc/{pattern}")):
            cmd += ["--ro-bind", path, path]
    cmd += users_binds()
    if network:
        cmd += network_binds()
    # Its own /proc, with the machine's counters and the kernel's settings masked (host_view.py);
    # a /dev/shm of the sandbox's own, bounded as /tmp is, in a /dev nothing else can be written in
    # (a bot in a user namespace owns that /dev: it filled /dev/shm with 480 MB of the host's RAM).
    # /tmp: sticky and writable by all, as a /tmp is: the bot under root runs as another user than bwrap.
    size = str(tmp_mb << 20)
    cmd += ["--proc", "/proc", *proc_binds(memory_mb), "--dev", "/dev",
            "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
            "--perms", "1777", "--size", size, "--tmpfs", "/tmp"]
    for path in runtime_paths():  # after the private /tmp, which would hide an arena installed under /tmp
        cmd += ["--ro-bind", path, path]
    if copy_mb:
        cmd += ["--ro-bind", neutral_source(folder), COPY_SOURCE, "--perms", "0777", "--size", str(copy_mb << 20),
                "--tmpfs", BOT_FOLDER]
    elif writable_folder:  # a build: its outputs land in the folder itself
        cmd += ["--bind", str(folder), BOT_FOLDER]
    else:
        cmd += ["--ro-bind", neutral_source(folder), BOT_FOLDER]
    for path in writable_paths:
        cmd += ["--bind", path, path]
    cmd += ["--chdir", BOT_FOLDER]
    cmd += _open_parents(cmd)
    uid = None if isolation.bot_uid is None else (isolation.bot_uid if run_as is None else run_as)
    if uid == 0:
        raise ValueError("a sandboxed process never runs as uid 0")
    if uid is None:
        # The sandbox's own root (where bubblewrap made /etc, /bot ... to hold the mounts) is the
        # user's in a user namespace, and root's: read-only then, so that the process may write in
        # /tmp and, where it is so bound, its own folder, nowhere else. Uid 65534 cannot write it
        # anyway (root's, mode 0755), and the remount costs about 3 ms of every start.
        cmd += ["--remount-ro", "/"]
    if uid is not None:
        # Only what setpriv needs to change users; it drops them all before the bot starts.
        cmd += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP", "--",
                shutil.which("setpriv") or "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    return cmd + ["--", *before, *inside(argv, folder)]


def inside(argv: Sequence[str], folder: Path) -> list[str]:
    """`argv` as the sandbox sees it: an argument naming `folder` or a path in it (a manifest's
    "./c_bot", made absolute against the host's folder) names it at BOT_FOLDER."""
    roots = list(dict.fromkeys((str(folder).rstrip("/"), os.path.realpath(folder).rstrip("/"))))
    seen = []
    for arg in argv:
        for root in roots:
            if arg == root or arg.startswith(root + "/"):
                arg = BOT_FOLDER + arg[len(root):]
                break
        seen.append(arg)
    return seen


def check_program(argv: Sequence[str], folder: Path) -> str | None:
    """Why `argv[0]` cannot be started in a sandbox (None if it can): said before the sandbox
    starts, as for a bot started without one, rather than as a failed exec inside it."""
    program = argv[0]
    if "/" in program:
        path = Path(program) if os.path.isabs(program) else Path(folder) / program
        if not path.exists():
            return "No such file or directory"
        return None if os.access(path, os.X_OK) else "Permission denied"
    return None if shutil.which(program, path=PATH_INSIDE) else "No such file or directory (PATH inside the sandbox: " \
        + PATH_INSIDE + ")"


_readable: dict[str, bool] = {}


def readable_by_others(folder: Path) -> bool:
    """Whether every folder and file of `folder` can be read by any user (what the unprivileged bot
    of a root arena is): else the bot gets a private copy. Known once per folder and arena."""
    key = str(folder)
    if key not in _readable:
        ok = os.stat(folder).st_mode & 0o005 == 0o005
        for root, dirs, files in os.walk(folder):
            if not ok:
                break
            for name in dirs:
                mode = os.lstat(os.path.join(root, name)).st_mode
                ok = ok and (stat.S_ISLNK(mode) or mode & 0o005 == 0o005)
            for name in files:
                mode = os.lstat(os.path.join(root, name)).st_mode
                ok = ok and (stat.S_ISLNK(mode) or mode & 0o004 == 0o004)
        _readable[key] = ok
    return _readable[key]


def _open_parents(cmd: Sequence[str]) -> list[str]:
    """`--chmod 0755` for the folders bubblewrap made to hold its mount points (/etc for /etc/ssl;
    /work, /work/main for /work/main/bots/x): it makes them 0700, and a bot that is not root could
    not walk down to its own folder by an absolute path (how Python opens a script). They exist
    only in the sandbox's own root (or its private /tmp), never on the host."""
    binds = [cmd[i + 2] for i, word in enumerate(cmd) if word in ("--bind", "--ro-bind") and i + 2 < len(cmd)]
    mounts = set(binds) | {cmd[i + 1] for i, word in enumerate(cmd) if word in ("--tmpfs", "--proc", "--dev")}
    parents: list[str] = []
    for target in binds:
        for parent in list(Path(target).parents)[::-1][1:]:  # from the top, without "/"
            text = str(parent)
            inside_a_bind = any(text == b or text.startswith(b.rstrip("/") + "/") for b in binds)
            if not inside_a_bind and text not in mounts and text not in parents:
                parents.append(text)
    return [word for parent in parents for word in ("--chmod", "0755", parent)]


def private_copy(folder: Path, uid: int | None) -> Path:
    """A fresh copy of a bot folder, its own to write in, owned by the user the bot runs as (a bot
    that writes in its folder, run without isolation; a folder the unprivileged user could not
    read); the caller removes it when the bot is gone."""
    root = Path(tempfile.mkdtemp(prefix="arena-bot-folder-"))
    copy = root / "folder"
    shutil.copytree(folder, copy, symlinks=True)
    for where, dirs, files in os.walk(copy):
        for name in [*dirs, *files]:
            path = os.path.join(where, name)
            if not os.path.islink(path):
                os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) | stat.S_IWUSR)
    if uid is not None:
        give_to(copy, uid)
    return copy


def give_to(path: Path | str, uid: int) -> None:
    """Make `path` (and everything in it) the unprivileged bot's: a folder it must write in."""
    os.chown(path, uid, uid, follow_symlinks=False)
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(root, name), uid, uid, follow_symlinks=False)


def remove_private_copy(copy: Path) -> None:
    shutil.rmtree(Path(copy).parent, ignore_errors=True)
