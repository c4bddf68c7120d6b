"""Shared fixtures: process-wide state that in-process CLI runs change is put back after each test."""

from __future__ import annotations

import signal

import pytest


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """`arena tournament run` sets SIGINT and SIGTERM handlers for the process it runs in (it
    ignores them once its games are done); through CliRunner that process is pytest's."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)
