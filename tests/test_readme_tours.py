"""The README's two five-minute tours, run as a newcomer runs them: each command of their blocks,
in order, in a fresh folder, must succeed (issue 35: every command the README shows is run)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _tour(heading: str) -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, f"no command block under {heading!r}"
    lines = []
    for line in block.group(1).splitlines():
        line = line.split("  #", 1)[0].strip()  # the README's comments start after two spaces
        lines += [part.strip() for part in line.split("&&")] if line else []
    return lines


def _run(lines: list[str], cwd: Path, env: dict[str, str]) -> Path:
    for line in lines:
        argv = shlex.split(line)
        if argv[0] == "cd":
            cwd = cwd / argv[1]
            continue
        assert argv[0] == "arena", line
        done = subprocess.run([sys.executable, "-m", "arena", *argv[1:]], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-2000:])
        assert "Traceback" not in done.stderr, (line, done.stderr)
    return cwd


@pytest.mark.skipif(shutil.which("bwrap") is None,
                    reason="the organiser's tour runs a tournament that requires isolation: bubblewrap is not installed")
def test_the_readme_tours_run_as_written(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "100"}
    env.pop("PYTHONPATH", None)
    author = _tour("Five minutes as a bot author")
    organiser = _tour("Five minutes as an organiser")
    assert any(line.startswith("arena init") for line in author) and any("tournament run" in line for line in organiser)
    workspace = _run(author, tmp_path, env)
    _run(organiser, workspace, env)
    assert (workspace / "standings.html").is_file()
