from typer.testing import CliRunner

from arena import __version__
from arena.cli.app import app
from arena.protocol import PROTOCOL_VERSION


def test_version_names_the_arena_and_the_protocol_it_speaks():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"arena {__version__} (protocol {PROTOCOL_VERSION})"


def _commands(typer_app):
    for info in typer_app.registered_commands:
        yield info.callback
    for group in typer_app.registered_groups:
        yield from _commands(group.typer_instance)


def test_every_command_summary_is_one_line_of_its_docstring():
    # `arena --help` shows a command's first docstring paragraph as written: a line break inside it
    # splits the summary mid-sentence in the command list.
    callbacks = list(_commands(app))
    assert len(callbacks) >= 10
    for callback in callbacks:
        summary = (callback.__doc__ or "").strip().split("\n\n")[0]
        assert summary and "\n" not in summary, f"{callback.__name__}: {summary!r}"
