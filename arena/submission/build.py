"""A bot's build step (the manifest's `build` key), run in the folder the arena prepared for it
(arena/submission/prepared.py), never in the author's folder.

The build gets what its bot would get (docs/sandbox.md): the same isolation, with its folder
writable for its outputs; the bot's limits, in a cgroup of its own where one can be made; no
network; and never uid 0 (a root arena's build runs as the unprivileged user, as its bot does).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from arena.sandbox.cgroup import _Cgroup
from arena.sandbox.child import make_preexec
from arena.sandbox.isolation import UNPRIVILEGED_UID, Isolation, bot_environment, check_program, sandboxed_command
from arena.sandbox.limits import Limits
from arena.submission.manifest import PYTHON_PLACEHOLDER, BotManifest, ManifestError
from arena.submission.build_watch import BuildWatch
from arena.transport.process_tree import TOKEN_ENV, kill_tree, tree_members

BUILD_TMP_MB = 512  # a compiler's temporary files go to the sandbox's private /tmp
BUILD_TIMEOUT_S = 120
_OUTPUT_TAIL_BYTES = 65536


def build_user(isolation: Isolation) -> int | None:
    """Who a build runs as, when not the arena's own user: the unprivileged user under a root arena
    (with or without isolation), None under an ordinary one."""
    return UNPRIVILEGED_UID if os.getuid() == 0 else None


def run_build(manifest: BotManifest, folder: Path, *, isolation: Isolation, limits: Limits | None = None,
              timeout_s: float = BUILD_TIMEOUT_S, home: Path | None = None) -> None:
    """Run the manifest's build step in `folder` (which the build may write; under isolation it
    sees it at /bot, where its bot will run). ManifestError with the output's tail on failure.

    The build runs in a session of its own, with its output in a file rather than a pipe: a
    build that leaves a background process behind holds a pipe open, and waiting for the pipe's
    end waited out the whole timeout. Whatever the build leaves running (or a timeout, or a
    Ctrl-C or SIGTERM of the arena) is killed, found as a bot's processes are: by session, group,
    descent, and a token in the environment (a step that calls setsid leaves the group). A build
    that fills its folder beyond what a bot may hold is stopped as it does (build_watch.py).
    `home`: a folder of its own for HOME where the build runs without isolation as another user."""
    args = [arg.replace(PYTHON_PLACEHOLDER, sys.executable) for arg in manifest.build]
    where = manifest.path or manifest.directory
    shown = " ".join(manifest.build)
    token = uuid.uuid4().hex
    limits = limits or Limits()
    user = build_user(isolation)
    env = {**os.environ, TOKEN_ENV: token}
    if isolation.active:
        problem = check_program(args, folder)
        if problem:  # said as without a sandbox, not as a failed exec inside one
            raise ManifestError(f"{where}: key 'build': program {args[0]!r} "
                                + ("not found" if "No such file" in problem else "is not executable") + f" (build {shown!r})")
        args = sandboxed_command(isolation, args, folder, writable_folder=True, run_as=user, tmp_mb=BUILD_TMP_MB,
                                 memory_mb=limits.memory_mb)
        env = bot_environment({TOKEN_ENV: token})
    elif user is not None and home is not None:
        env.update(HOME=str(home), TMPDIR=str(home))
    cgroup = _Cgroup.create(limits)
    preexec = make_preexec(limits, cgroup=cgroup, namespaces=not isolation.active,
                           bot_uid=isolation.bot_uid if isolation.active else user,
                           run_as=None if isolation.active else user)
    try:
        with tempfile.TemporaryFile() as output:
            try:
                proc = subprocess.Popen(args, cwd=folder, stdin=subprocess.DEVNULL, stdout=output,
                                        stderr=subprocess.STDOUT, start_new_session=True, env=env, preexec_fn=preexec)
            except FileNotFoundError:
                raise ManifestError(f"{where}: key 'build': program {args[0]!r} not found (build {shown!r})") from None
            except PermissionError:
                raise ManifestError(f"{where}: key 'build': program {args[0]!r} is not executable") from None
            def stop_build() -> None:
                kill_tree(proc, token)
                if cgroup is not None:
                    cgroup.kill_all()

            watch = BuildWatch(folder, lambda: tree_members(proc, token), stop_build)
            try:
                returncode = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                returncode = None
            finally:
                watch.close()
                stop_build()
            # The tail only: a build may print gigabytes.
            output.seek(max(0, output.seek(0, os.SEEK_END) - _OUTPUT_TAIL_BYTES))
            tail = _tail(output.read())
    finally:
        if cgroup is not None:
            cgroup.remove()
    if watch.reason is not None:
        raise ManifestError(f"{where}: key 'build': {shown!r} was stopped: it {watch.reason}; a built bot may hold at "
                            f"most that (docs/sandbox.md){tail}")
    if returncode is None:
        raise ManifestError(f"{where}: key 'build': {shown!r} took more than {timeout_s:g} s{tail}")
    if returncode != 0:
        raise ManifestError(f"{where}: key 'build': {shown!r} failed with exit code {returncode}{tail}")


def seal(folder: Path) -> None:
    """Make a built folder the arena's and read-only, once the build and all it started are gone:
    every entry owned by the arena's user (a root arena's build ran as another), no file writable,
    no set-user-id or set-group-id bit (a hostile build once left a set-uid-root program in the
    organiser's workspace). Links are left as they are, never followed."""
    uid, gid = os.getuid(), os.getgid()
    os.lchown(folder, uid, gid)
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = os.path.join(root, name)
            info = os.lstat(path)
            if info.st_uid != uid or info.st_gid != gid:
                os.lchown(path, uid, gid)
            if stat.S_ISDIR(info.st_mode):
                os.chmod(path, 0o755)
            elif stat.S_ISREG(info.st_mode):
                mode = stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | 0o222)
                os.chmod(path, mode | 0o444)
    os.chmod(folder, 0o755)


def _tail(output: bytes, lines: int = 20) -> str:
    text = output.decode("utf-8", errors="replace").rstrip()
    if not text:
        return ""
    return "; output tail:\n" + "\n".join(text.splitlines()[-lines:])
