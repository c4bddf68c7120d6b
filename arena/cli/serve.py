"""CLI commands of the league server: `arena serve` (arena/server/app.py) and an author's
`arena submit` (arena/server/submit.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from arena.cli.common import console, fail, note


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.command("submit")(submit)


def serve(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The league's config (schedule = \"league\").")],
    host: Annotated[str, typer.Option(help="The address to listen on (a reverse proxy in front for HTTPS: docs/league.md).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="The port to listen on.")] = 8000,
    url: Annotated[Optional[str], typer.Option(help="The address authors use (sign-up links start with it); default http://HOST:PORT.")] = None,
    secure_cookies: Annotated[bool, typer.Option("--secure-cookies", help="Behind HTTPS: session cookies only over HTTPS.")] = False,
    public: Annotated[bool, typer.Option("--public", help="The leaderboard, bots' pages and replays to anyone, signed in or not.")] = False,
    no_play: Annotated[bool, typer.Option("--no-play", help="Serve the league's results without playing it.")] = False,
) -> None:
    """Serve a league: authors upload bots, the arena checks them and plays the league, everyone watches."""
    from arena.server.app import ServerSettings
    from arena.server.serving import check_league, run_server

    config = check_league(config_path, host)
    for line in config.notes:
        note(line)
    settings = ServerSettings(config.path, url or f"http://{host}:{port}", secure_cookies, public, not no_play)
    console.print(f"serving {config.path} at {settings.base_url} (Ctrl-C stops the server and the league's run; "
                  "the same command resumes both)", highlight=False)
    run_server(settings, host, port)


def submit(
    url: Annotated[str, typer.Argument(help="The league server's address, e.g. http://arena.example.org:8000")],
    folder: Annotated[Path, typer.Argument(help="Your bot's folder (with bot.toml).")],
    token: Annotated[str, typer.Option("--token", envvar="ARENA_TOKEN", help="Your API token (from the organiser; also ARENA_TOKEN).")],
    wait: Annotated[float, typer.Option(min=0, max=3600, help="Seconds to follow the check (0: do not wait).")] = 600,
) -> None:
    """Upload your bot to a league server and follow its check."""
    from arena.server.submit import SubmitError
    from arena.server.submit import submit as send

    try:
        done = send(url, folder.expanduser(), token, wait_s=wait, on_state=lambda state: console.print(f"state: {state}"))
    except SubmitError as exc:
        fail(str(exc))
    console.print(f"{done.bot}: {done.state}{': ' + done.reason if done.reason else ''}; its page: {done.status_url}",
                  highlight=False)
    if done.state == "refused":
        raise typer.Exit(1)
