"""A bot's build step (the manifest's `build` key): run once in the bot folder before first use.

Apart from arena/submission/manifest.py, which reads and checks manifests: this runs their build
command, under the same isolation as the bot (arena/sandbox/isolation.py), with its folder writable.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import uuid

from arena.sandbox.isolation import Isolation, bot_environment, check_program, find_isolation, sandboxed_command
from arena.submission.manifest import PYTHON_PLACEHOLDER, BotManifest, ManifestError
from arena.transport.process_tree import TOKEN_ENV, kill_tree

BUILD_TMP_MB = 512  # a compiler's temporary files go to the sandbox's private /tmp


def build_bot(manifest: BotManifest, timeout_s: float = 120, isolation: Isolation | None = None) -> None:
    """Run the manifest's build step (if any) in the bot folder; ManifestError with the output tail on failure.

    The build runs in a session of its own, with its output in a file rather than a pipe: a
    build that leaves a background process behind holds a pipe open, and waiting for the pipe's
    end waited out the whole timeout. Whatever the build leaves running (or a timeout, or a
    Ctrl-C or SIGTERM of the arena) is killed, found as a bot's processes are: by session, group,
    descent, and a token in the environment (a step that calls setsid leaves the group).

    Under isolation (`find_isolation()` unless given) the build sees what its bot would, with the
    bot folder writable, where it must leave its outputs: when the arena is root, it runs as the
    folder's owner (uid 65534 could not write an organiser's folder), without capabilities."""
    if not manifest.build:
        return
    args = [arg.replace(PYTHON_PLACEHOLDER, sys.executable) for arg in manifest.build]
    where = manifest.path or manifest.directory
    shown = " ".join(manifest.build)
    token = uuid.uuid4().hex
    env = {**os.environ, TOKEN_ENV: token}
    isolation = find_isolation() if isolation is None else isolation
    if isolation.active:
        problem = check_program(args, manifest.directory)
        if problem:  # said as without a sandbox, not as a failed exec inside one
            raise ManifestError(f"{where}: key 'build': program {args[0]!r} "
                                + ("not found" if "No such file" in problem else "is not executable") + f" (build {shown!r})")
        owner = manifest.directory.stat().st_uid if isolation.bot_uid is not None else None
        args = sandboxed_command(isolation, args, manifest.directory, writable_folder=True, run_as=owner,
                                 tmp_mb=BUILD_TMP_MB)
        env = bot_environment({TOKEN_ENV: token})
    with tempfile.TemporaryFile() as output:
        try:
            proc = subprocess.Popen(args, cwd=manifest.directory, stdin=subprocess.DEVNULL, stdout=output,
                                    stderr=subprocess.STDOUT, start_new_session=True, env=env)
        except FileNotFoundError:
            raise ManifestError(f"{where}: key 'build': program {args[0]!r} not found (build {shown!r})") from None
        except PermissionError:
            raise ManifestError(f"{where}: key 'build': program {args[0]!r} is not executable") from None
        try:
            returncode = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            returncode = None
        finally:
            kill_tree(proc, token)
            _strip_set_id_bits(manifest.directory)
        # The tail only: a build that printed gigabytes made the arena read them all (a hostile trial).
        output.seek(max(0, output.seek(0, os.SEEK_END) - 65536))
        tail = _tail(output.read())
    if returncode is None:
        raise ManifestError(f"{where}: key 'build': {shown!r} took more than {timeout_s:g} s{tail}")
    if returncode != 0:
        raise ManifestError(f"{where}: key 'build': {shown!r} failed with exit code {returncode}{tail}")


def _strip_set_id_bits(folder) -> None:
    """Take set-user-id and set-group-id bits off every file in the bot's folder, once the build
    and all it started are gone. A root arena runs the build as the folder's owner, root for a
    root-owned folder (without capabilities), and an owner may chmod 4755 a file it made: a
    hostile build left a set-uid-root copy of a program in the organiser's workspace, a way to
    root for anyone who could reach it (the sandbox mounts the folder nosuid; the host does not)."""
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            try:
                mode = os.lstat(path).st_mode
                if stat.S_ISREG(mode) and mode & (stat.S_ISUID | stat.S_ISGID):
                    os.chmod(path, stat.S_IMODE(mode) & ~(stat.S_ISUID | stat.S_ISGID))
            except OSError:
                pass  # gone, or not ours to change


def _tail(output: bytes, lines: int = 20) -> str:
    text = output.decode("utf-8", errors="replace").rstrip()
    if not text:
        return ""
    return "; output tail:\n" + "\n".join(text.splitlines()[-lines:])
