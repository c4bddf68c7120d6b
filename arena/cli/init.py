"""`arena init [DIR]`: a thin command over arena/tournament/workspace_init.py."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from arena.cli.common import command, console, fail


def init(
    folder: Annotated[Path, typer.Argument(help="The folder to make a workspace of (default: the current one).")] = Path("."),
) -> None:
    """Make a workspace: bots/ with a starter bot, a demo tournament, and a .gitignore for results."""
    from arena.submission.scaffold import ScaffoldError
    from arena.tournament.config import ConfigError
    from arena.tournament.workspace_init import (DEMO_OPPONENTS, STARTER_BOT, WorkspaceExists, WorkspaceRefused,
                                                 init_workspace)

    try:
        made = init_workspace(folder)
    except WorkspaceExists as exc:
        console.print(escape(str(exc)), highlight=False)
        return
    except (WorkspaceRefused, ScaffoldError, ConfigError) as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{folder}: cannot make a workspace there ({exc.strerror or exc})")
    console.print(f"workspace made in [bold]{escape(str(made.folder))}[/bold]:", highlight=False)
    if made.inside is not None:
        console.print(escape(f"note: it is inside the workspace {made.inside}; commands run in it use the new one"),
                      highlight=False)
    console.print(f"  bots/{STARTER_BOT}/            your starter bot (Python): it plays legal moves; make it play well",
                  highlight=False)
    console.print(f"  tournaments/demo.toml    {STARTER_BOT} against the bundled {', '.join(DEMO_OPPONENTS)}",
                  highlight=False)
    console.print("  protocol.md              how a bot talks to the arena (also: arena docs protocol)", highlight=False)
    console.print("  .gitignore               results and logs are not source", highlight=False)
    console.print("next:", highlight=False)
    here = Path.cwd().resolve()
    if made.folder != here:
        shown = made.folder.relative_to(here) if made.folder.is_relative_to(here) else made.folder
        console.print("  " + escape(command("cd", shown)), highlight=False)
    for words in (("arena", "bot", "check", STARTER_BOT), ("arena", "tournament", "run", "tournaments/demo.toml"),
                  ("arena", "standings", "tournaments/demo.toml")):
        console.print("  " + escape(command(*words)), highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(init)
