"""The `arena` command line (Typer): the app, its --version, and its commands, each group in a module
of its own and each command a thin call into the layers below. `main` is what the console
script (arena/cli/console.py) and `python -m arena` run."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli import author, bot, docs, games, init, play, reports, serve, tournament
from arena.cli.common import UsageError, console, fail, word_every_command
from arena.logs import show_logs

app = typer.Typer(
    help="Skitgubbe Arena: referee and tournament runner for Skitgubbe bots in any language.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Click's help, not Typer's Rich panels: those show a type even for a flag ("--update <bool>")
    # and keep the docstrings' line ends, breaking sentences mid-line. Click rewraps each paragraph
    # to the terminal, up to 120 columns rather than its 80, which cut the command list's summaries
    # short. Set here, both hold for every command and group under the app.
    rich_markup_mode=None,
    context_settings={"max_content_width": 120},
)


def _print_version(asked: bool) -> None:
    if asked:
        from arena import __version__
        from arena.protocol import PROTOCOL_VERSION

        console.print(f"arena {__version__} (protocol {PROTOCOL_VERSION})", highlight=False)
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print the arena's version and protocol version, then exit.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="Show what the arena logs, on stderr: what it passed "
                                                           "over and why (also: ARENA_LOG=debug).")] = False,
) -> None:
    """Skitgubbe Arena: referee and tournament runner for Skitgubbe bots in any language."""
    show_logs("debug" if verbose else None)


# In the order `arena --help` lists them.
init.register(app)
play.register(app)
tournament.register(app)
reports.register_standings(app)
games.register(app)
reports.register_replay(app)
bot.register(app)
docs.register(app)
serve.register(app)
author.register(app)
word_every_command(app)  # every command's ArenaError ends it in its sentence (cli/common.py)


def main() -> None:
    try:
        app()
    except UsageError as exc:
        fail(str(exc))
