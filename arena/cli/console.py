"""The `arena` console script's entry: a Ctrl-C while the CLI is still loading ends it quietly."""

from __future__ import annotations

import os
import signal
import sys


def _stop_while_loading(signum, frame) -> None:  # noqa: ARG001
    # Nothing is started or open yet. A KeyboardInterrupt raised mid-import would print a
    # traceback, or be swallowed by an import-lock callback and let the command run on.
    os._exit(130)


def main() -> None:
    signal.signal(signal.SIGINT, _stop_while_loading)
    from arena.cli.app import main as cli_main

    try:
        # From here each command handles Ctrl-C; inside the `try`, so that one landing just
        # after the swap ends quietly too (a trace of the arena caught one there).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        cli_main()
    except KeyboardInterrupt:  # one no command caught: while Typer was still reading its commands
        sys.exit(130)
