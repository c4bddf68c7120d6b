"""The arena's types are checked, not hoped: mypy over arena/, strict on the per-move path
(game, protocol, play, transport) and in its default mode elsewhere (pyproject.toml, [tool.mypy])."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_mypy_finds_nothing_to_say():
    if shutil.which("mypy", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("mypy is not installed: pip install -e '.[test]' (the README's test command does)")
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
