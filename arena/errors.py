"""The arena's errors for people: bad input (a config, a manifest, an argument, a bot's folder) or a
run that had to stop. Each carries its whole sentence, worded where the fact is known, and the
exit code its command ends with; the CLI prints them in one place (arena/cli/common.py). Every
layer may raise them; it imports nothing of the project."""

from __future__ import annotations


class ArenaError(Exception):
    """A sentence for the person at the terminal, and how the command ends: 2 for input that cannot
    be used (the default), 1 for a run stopped by what happened to it."""

    exit_code = 2

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


__all__ = ["ArenaError"]
