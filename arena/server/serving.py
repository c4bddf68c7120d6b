"""What `arena serve` checks before it serves: a league's config (schedule = "league") that loads,
and a word when it listens beyond loopback without HTTPS in front."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError


@dataclass(frozen=True)
class Served:
    path: Path
    notes: tuple[str, ...] = ()


def check_league(config_path: Path, host: str) -> Served:
    from arena.tournament.config import load_config
    from arena.tournament.opening import config_file

    path = config_file(config_path)
    config = load_config(path)
    if not config.kind.open_ended:
        raise ArenaError(f"{path}: the server plays a league (schedule = \"league\"); this is {config.kind.words}")
    notes: tuple[str, ...] = ()
    if host not in ("127.0.0.1", "localhost", "::1"):
        notes = (f"--host {host}: listening beyond this machine; put an HTTPS reverse proxy in front and add "
                 "--secure-cookies (docs/league.md), or passwords travel in the clear",)
    return Served(path.resolve(), notes)


def run_server(settings: Any, host: str, port: int) -> None:
    """Serve until Ctrl-C or SIGTERM (uvicorn's: the league's run and any check are stopped first)."""
    import dataclasses
    import sys

    import uvicorn

    from arena.server.app import build_app

    # The results' thread (a board, a bot's page) hands the GIL to the pages' event loop after 1 ms,
    # not Python's 5: a page's many small waits on it added up to the slowest pages under load.
    sys.setswitchinterval(0.001)
    settings = dataclasses.replace(settings, own_process=True)
    uvicorn.run(build_app(settings), host=host, port=port, log_level="warning", timeout_graceful_shutdown=15)


__all__ = ["Served", "check_league", "run_server"]
