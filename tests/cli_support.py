"""The arena CLI run in process (Typer's CliRunner), for the tests of its commands."""

from __future__ import annotations

from typer.testing import CliRunner

from arena.cli.app import app

runner = CliRunner()


def invoke(*args: str):
    """Run `arena ARGS...`; whatever it does, it must not end in a traceback."""
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result
