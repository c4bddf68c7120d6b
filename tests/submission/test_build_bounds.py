"""A build is bounded while it runs (issue 39, docs/sandbox.md "Builds"): one that writes without end
is stopped at the ceiling (a scaled-down one here: the real one is 4 GiB and 100,000 entries),
refused with the reason, and leaves nothing in the build cache: a file after file, a file it removed
but keeps writing, a folder of empty files. Under a root arena and an ordinary one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.sandbox.isolation import find_isolation
from arena.submission import build_watch
from arena.submission.lookup import load_manifest
from arena.submission.manifest import ManifestError
from arena.submission.prepared import prepare_bot
from tests.bots_support import BOTS_DIR, ROOT

ISOLATION = find_isolation()
isolated = pytest.mark.skipif(not ISOLATION.active, reason=f"no isolation on this machine: {ISOLATION.why_not}")
as_root_only = pytest.mark.skipif(os.getuid() != 0, reason="runs the arena as another user: needs root (an ordinary "
                                                           "arena runs the same builds as itself)")
CEILING_MB, CEILING_ENTRIES = 24, 3000
BUILDS = {
    "files": "i=0; while :; do head -c 1048576 /dev/zero > f$i; i=$((i+1)); done",
    "removed": "exec 3>big; rm big; while :; do head -c 1048576 /dev/urandom >&3; done",
    "entries": "i=0; while :; do : > e$i; i=$((i+1)); done",
}


def attack_build(folder: str) -> dict:
    """Each endless build prepared under the scaled-down ceilings; what was refused, and what of it
    is left in the cache."""
    build_watch.BUILD_MAX_BYTES, build_watch.BUILD_MAX_ENTRIES = CEILING_MB << 20, CEILING_ENTRIES
    seen = {}
    for kind, script in BUILDS.items():
        bot = Path(folder) / kind
        bot.mkdir()
        shutil.copy(BOTS_DIR / "random_bot" / "bot.py", bot / "bot.py")
        (bot / "bot.toml").write_text(f'name = "{kind}"\ncommand = ["{{python}}", "bot.py"]\n'
                                      f'build = ["sh", "-c", {json.dumps(script)}]\n')
        cache = Path(folder) / f"cache-{kind}"
        try:
            prepare_bot(load_manifest(bot), cache=cache, timeout_s=60.0)
            said = "built"
        except ManifestError as exc:
            said = str(exc).splitlines()[0]
        left = sorted(path.name for path in cache.iterdir() if not path.name.endswith(".lock"))
        seen[kind] = {"said": said, "left": left}
    return seen


def assert_stopped_at_the_ceiling(seen: dict) -> None:
    for kind in ("files", "removed"):
        said = seen[kind]["said"]
        assert f"was stopped: it wrote more than {CEILING_MB} MB" in said, (kind, said)
    assert f"was stopped: it made more than {CEILING_ENTRIES:,} files, folders and links" in seen["entries"]["said"]
    for kind in BUILDS:
        assert "took more than" not in seen[kind]["said"]  # stopped as it wrote, not at the build's time limit
        assert seen[kind]["left"] == [], (kind, seen[kind]["left"])  # nothing of it in the build cache


@pytest.mark.slow
def test_a_build_that_writes_without_end_is_stopped_at_the_ceiling_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(build_watch, "BUILD_MAX_BYTES", build_watch.BUILD_MAX_BYTES)  # put back afterwards
    monkeypatch.setattr(build_watch, "BUILD_MAX_ENTRIES", build_watch.BUILD_MAX_ENTRIES)
    assert_stopped_at_the_ceiling(attack_build(str(tmp_path)))


NON_ROOT_ARENA = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {root!r})
    from tests.submission.test_build_bounds import attack_build
    print(json.dumps(attack_build({folder!r})))
""")


@isolated
@as_root_only
@pytest.mark.slow
def test_the_same_builds_are_stopped_under_an_arena_that_is_not_root(tmp_path):
    code = NON_ROOT_ARENA.format(root=str(ROOT), folder=str(tmp_path))
    command = [shutil.which("bwrap"), "--unshare-user", "--uid", "1000", "--gid", "1000", "--dev-bind", "/", "/", "--",
               sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "user-cache")})
    assert done.returncode == 0, done.stderr[-3000:]
    assert_stopped_at_the_ceiling(json.loads(done.stdout.strip().splitlines()[-1]))


def test_what_a_folder_holds_counts_sparse_files_whole_and_stops_counting_past_the_most(tmp_path):
    with open(tmp_path / "sparse", "wb") as f:
        f.truncate(50 << 20)
    for n in range(20):
        (tmp_path / f"e{n}").touch()
    used, entries = build_watch.folder_use(tmp_path, 100)
    assert used >= 50 << 20 and entries == 21
    assert build_watch.folder_use(tmp_path, 5)[1] == 6
