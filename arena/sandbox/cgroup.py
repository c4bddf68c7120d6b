"""Per-bot cgroups for the sandbox (arena/sandbox/guard.py): v2, or the v1 `pids` and `memory` hierarchies.

A cgroup is what contains a forking bot when the arena runs as root (RLIMIT_NPROC does not
bind root): pids.max refuses the fork, and kill_all reaches every member. Stdlib only.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

from arena.sandbox.limits import Limits

CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_PREFIX = "arena-bot-"


class _Cgroup:
    """One cgroup per bot: v2 (pids + memory controllers) or v1 (pids and memory hierarchies)."""

    def __init__(self, dirs: list[Path], kind: str, pids_dir: Path | None, mem_dir: Path | None) -> None:
        self.dirs = dirs
        self.kind = kind
        self.pids_dir = pids_dir
        self.mem_dir = mem_dir

    @classmethod
    def create(cls, limits: Limits) -> _Cgroup | None:
        name = f"{CGROUP_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            if (CGROUP_ROOT / "cgroup.controllers").is_file():
                return cls._create_v2(name, limits)
            if (CGROUP_ROOT / "pids" / "cgroup.procs").is_file():
                return cls._create_v1(name, limits)
        except OSError:
            return None
        return None

    @classmethod
    def _create_v2(cls, name: str, limits: Limits) -> _Cgroup | None:
        parent = CGROUP_ROOT / _own_cgroup_v2()
        controllers = (parent / "cgroup.subtree_control").read_text().split()
        if "pids" not in controllers:
            try:
                (parent / "cgroup.subtree_control").write_text("+pids +memory")
            except OSError:
                return None
        path = parent / name
        path.mkdir()
        try:
            (path / "pids.max").write_text(str(limits.processes))
            if (path / "memory.max").exists():
                (path / "memory.max").write_text(str(limits.memory_mb << 20))
                (path / "memory.swap.max").exists() and (path / "memory.swap.max").write_text("0")
                # Over its memory the bot ends whole, as the watchdog ends it, not one process of it.
                (path / "memory.oom.group").exists() and (path / "memory.oom.group").write_text("1")
        except OSError:
            _rmdir_quiet(path)
            return None
        return cls([path], "cgroup v2", path, path if (path / "memory.max").exists() else None)

    @classmethod
    def _create_v1(cls, name: str, limits: Limits) -> _Cgroup | None:
        pids = CGROUP_ROOT / "pids" / name
        pids.mkdir()
        try:
            (pids / "pids.max").write_text(str(limits.processes))
        except OSError:
            _rmdir_quiet(pids)
            return None
        dirs, mem = [pids], None
        mem_root = CGROUP_ROOT / "memory"
        if (mem_root / "cgroup.procs").is_file():
            try:
                mem = mem_root / name
                mem.mkdir()
                (mem / "memory.limit_in_bytes").write_text(str(limits.memory_mb << 20))
                dirs.append(mem)
            except OSError:
                if mem is not None:
                    _rmdir_quiet(mem)
                mem = None
        return cls(dirs, "cgroup v1", pids, mem)

    def join_self(self) -> None:
        """Called in the child before exec: move this process into every cgroup of the bot."""
        data = str(os.getpid()).encode()
        for d in self.dirs:
            fd = os.open(str(d / "cgroup.procs"), os.O_WRONLY)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)

    def pids(self) -> set[int]:
        found: set[int] = set()
        for d in self.dirs:
            try:
                found.update(int(x) for x in (d / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return found

    def pids_current(self) -> int | None:
        try:
            return int((self.pids_dir / "pids.current").read_text()) if self.pids_dir else None
        except (OSError, ValueError):
            return None

    def fork_refused(self) -> int:
        """How often a fork/clone was refused because pids.max was reached."""
        if self.pids_dir is None:
            return 0
        try:
            for line in (self.pids_dir / "pids.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def oom_kills(self) -> int:
        """How many of the bot's processes the kernel ended for going over the memory limit."""
        if self.mem_dir is None:
            return 0
        name = "memory.events" if self.kind == "cgroup v2" else "memory.oom_control"
        try:
            for line in (self.mem_dir / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def kill_all(self) -> None:
        kill_file = self.dirs[0] / "cgroup.kill"
        if self.kind == "cgroup v2" and kill_file.exists():
            try:
                kill_file.write_text("1")
            except OSError:
                pass
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.01)

    def remove(self) -> bool:
        ok = True
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)  # zombies not yet reaped still count
            else:
                ok = False
        return ok


def _own_cgroup_v2() -> str:
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                return line[3:].lstrip("/")
    except OSError:
        pass
    return ""


def _rmdir_quiet(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def cleanup_stale_cgroups() -> None:
    """Remove empty cgroups left by earlier arena runs (best effort)."""
    for base in (CGROUP_ROOT / _own_cgroup_v2(), CGROUP_ROOT / "pids", CGROUP_ROOT / "memory"):
        try:
            for d in base.glob(f"{CGROUP_PREFIX}*"):
                owner = d.name[len(CGROUP_PREFIX):].split("-")[0]
                if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
                    _rmdir_quiet(d)
        except OSError:
            pass




_probed: dict[str, str] = {}


def cgroup_available() -> str | None:
    """'cgroup v2' / 'cgroup v1' when a per-bot cgroup can be made here, else None (probed once)."""
    if "kind" not in _probed:
        cg = _Cgroup.create(Limits())  # the default limits
        _probed["kind"] = cg.kind if cg is not None else ""
        if cg is not None:
            cg.remove()
    return _probed["kind"] or None
