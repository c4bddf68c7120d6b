"""CLI commands for a league server's authors: `arena author add/list/remove/token`
(arena/server/accounts.py decides; this words it)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.cli.common import console

author_app = typer.Typer(help="The authors of a served league (arena serve): add, list, remove, new token.",
                         no_args_is_help=True)
Config = Annotated[Path, typer.Argument(metavar="CONFIG", help="The league's config.")]
Name = Annotated[str, typer.Argument(help="The author's name (letters, digits, _ . -).")]


def register(app: typer.Typer) -> None:
    app.add_typer(author_app, name="author")


def _store(config: Path):
    from arena.server.paths import ServerPaths
    from arena.server.serving import check_league
    from arena.server.store import ServerStore

    return ServerStore(ServerPaths(check_league(config, "127.0.0.1").path).server_file)


@author_app.command("add")
def add(config: Config, name: Name,
        organiser: Annotated[bool, typer.Option("--organiser", help="May add authors, freeze the league and read every log.")] = False,
        url: Annotated[Optional[str], typer.Option(help="The server's address as authors reach it (default: where it "
                                                    "was last served, else http://127.0.0.1:8000).")] = None) -> None:
    """Add an author: prints their one-time sign-up link and their API token (last line: token: T)."""
    from arena.server.accounts import add_author

    store = _store(config)
    try:
        code, token = add_author(store, name, organiser)
        url = url or store.base_url() or "http://127.0.0.1:8000"
    finally:
        store.close()
    console.print(f"{name} added{' as an organiser' if organiser else ''}; send them both lines below (neither is "
                  f"shown again).\nsign-up link (works once, for 7 days): {url.rstrip('/')}/signup/{code}", highlight=False)
    print(f"token: {token}")


@author_app.command("list")
def list_(config: Config) -> None:
    """The authors, their role and whether they signed up."""
    from arena.server.accounts import list_authors
    from arena.server.store import when

    store = _store(config)
    try:
        authors, owners = list_authors(store), store.bot_owners()
    finally:
        store.close()
    for a in authors:
        bots = ", ".join(sorted(bot for bot, who in owners.items() if who == a.name)) or "no bot yet"
        console.print(f"{a.name}\t{a.role}\t{'signed up' if a.signed_up else 'not signed up'}\t{bots}\t"
                      f"added {when(a.created_at)}", highlight=False)
    if not authors:
        console.print("no author yet: arena author add CONFIG NAME", highlight=False)


@author_app.command("remove")
def remove(config: Config, name: Name) -> None:
    """Remove an author: their token, password and sessions stop at once; their bots stay in the league."""
    from arena.server.accounts import remove_author

    store = _store(config)
    try:
        remove_author(store, name)
    finally:
        store.close()
    console.print(f"{name} removed; their bots stay in the league (take one out of the config's bots to withdraw it)",
                  highlight=False)


@author_app.command("token")
def token(config: Config, name: Name) -> None:
    """A new API token for an author (the old one stops working); last line: token: T."""
    from arena.server.accounts import new_token

    store = _store(config)
    try:
        value = new_token(store, name)
    finally:
        store.close()
    console.print(f"a new token for {name}; the old one no longer works", highlight=False)
    print(f"token: {value}")
