"""Shared fixtures: process-wide state that in-process CLI runs change is put back after each test."""

from __future__ import annotations

import os
import signal

import pytest

# A worker of pytest-xdist (-n 2) is given COLUMNS=80 and LINES=24, which the CLI's console, made
# at import, keeps: a test that widens its output with COLUMNS then saw tables wrapped at 80.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

# As the session started: a module-scoped fixture that runs a command in process runs before a
# test could save them, so the handlers saved per test could already be a run's (ignored).
_SESSION_HANDLERS = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}


def pytest_sessionstart(session):
    """The arena's modules compiled once, before any test starts `python -m arena`: where
    PYTHONDONTWRITEBYTECODE is set (as on these machines) nothing else writes them, and each of
    the suite's hundreds of arena processes compiled its ~150 modules again (0.2-0.6 s each)."""
    import compileall
    from pathlib import Path

    compileall.compile_dir(Path(__file__).resolve().parents[1] / "arena", quiet=1)


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """`arena tournament run` sets SIGINT and SIGTERM handlers for the process it runs in (it
    ignores them once its games are done); through CliRunner that process is pytest's, and every
    subprocess a later test starts would inherit an ignored SIGTERM."""
    yield
    for sig, handler in _SESSION_HANDLERS.items():
        signal.signal(sig, handler)
