"""A bot's build step (the manifest's `build` key): run once in the bot folder before first use.

Split from arena/manifest.py, which reads and checks manifests; this runs their build command.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile

from arena.manifest import PYTHON_PLACEHOLDER, BotManifest, ManifestError


def build_bot(manifest: BotManifest, timeout_s: float = 120) -> None:
    """Run the manifest's build step (if any) in the bot folder; ManifestError with the output tail on failure.

    The build runs in a session of its own, with its output in a file rather than a pipe: a
    build that leaves a background process behind holds a pipe open, and waiting for the pipe's
    end waited out the whole timeout. Whatever the build leaves running (or a timeout, or a
    Ctrl-C or SIGTERM of the arena) is killed with its process group."""
    if not manifest.build:
        return
    args = [arg.replace(PYTHON_PLACEHOLDER, sys.executable) for arg in manifest.build]
    where = manifest.path or manifest.directory
    shown = " ".join(manifest.build)
    with tempfile.TemporaryFile() as output:
        try:
            proc = subprocess.Popen(args, cwd=manifest.directory, stdin=subprocess.DEVNULL, stdout=output,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        except FileNotFoundError:
            raise ManifestError(f"{where}: key 'build': program {args[0]!r} not found (build {shown!r})") from None
        except PermissionError:
            raise ManifestError(f"{where}: key 'build': program {args[0]!r} is not executable") from None
        try:
            returncode = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            returncode = None
        finally:
            _kill_group(proc)
        output.seek(0)
        tail = _tail(output.read()[-65536:])
    if returncode is None:
        raise ManifestError(f"{where}: key 'build': {shown!r} took more than {timeout_s:g} s{tail}")
    if returncode != 0:
        raise ManifestError(f"{where}: key 'build': {shown!r} failed with exit code {returncode}{tail}")


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the group outlives its leader while members remain
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _tail(output: bytes, lines: int = 20) -> str:
    text = output.decode("utf-8", errors="replace").rstrip()
    if not text:
        return ""
    return "; output tail:\n" + "\n".join(text.splitlines()[-lines:])
