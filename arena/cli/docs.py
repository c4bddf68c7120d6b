"""`arena docs protocol|rules|sandbox`: the bot protocol, the rules page and the sandbox page, as the
repository has them and as the installed package carries them (package data `arena.guide`)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.common import console, fail
from arena.submission.workspace import GUIDES, guide_path


def docs(
    name: Annotated[str, typer.Argument(help="protocol (for bot authors), rules (the game, numbered), sandbox (what a bot runs under), organising (the organiser's guide: tournaments, every config key), cluster (across machines) or league (a class league on a server).")],
) -> None:
    """Print a document: the bot protocol, the rules, the sandbox, the organiser's guide or the cluster's (Markdown; redirect it to a file)."""
    if name not in GUIDES:
        fail(f"no document {name!r}: the documents are {', '.join(GUIDES)}")
    try:
        text = guide_path(name).read_text(encoding="utf-8")
    except OSError as exc:
        fail(f"cannot read {guide_path(name)} ({exc.strerror or exc})", code=1)
    console.out(text, end="", highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(docs)
