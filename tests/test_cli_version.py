from typer.testing import CliRunner

from arena import __version__
from arena.cli import app
from arena.protocol import PROTOCOL_VERSION


def test_version_names_the_arena_and_the_protocol_it_speaks():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"arena {__version__} (protocol {PROTOCOL_VERSION})"
