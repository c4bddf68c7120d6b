"""What the league server's pages and API show of one bot or one game, read on the results'
thread (arena/server/reader.py) from the one results object (arena/tournament/results.py), with
what only the bot's author and the organiser may see taken out for everyone else: a bot's stderr,
which may hold its own debugging of its code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.errors import ArenaError
from arena.tournament.results import GameQuery, TournamentResults

GAMES_SHOWN = 30


@dataclass(frozen=True)
class BotView:
    name: str
    standing: dict[str, Any] | None  # its row of the standings (None before its first game)
    rank: int | None
    history: list[tuple[int, float]] = field(default_factory=list)  # (games stored, rating) as they came in
    head_to_head: list[dict[str, Any]] = field(default_factory=list)  # against each bot: ahead, games
    games: list[dict[str, Any]] = field(default_factory=list)  # newest first
    faults: list[dict[str, Any]] = field(default_factory=list)  # games with its faults, newest first


def bot_view(results: TournamentResults, name: str) -> BotView:
    """The bot's page's figures from the results (ArenaError: no such bot in the league)."""
    from arena.report.export import to_dict

    if name not in results.config.bots:
        raise ArenaError(f"no bot {name} in this league")
    found = results.standings(with_history=False)
    standings = to_dict(found)
    rows = standings.get("bots") or []
    rank = next((i for i, row in enumerate(rows, start=1) if row.get("bot") == name), None)
    standing = rows[rank - 1] if rank is not None else None
    history = [(games, by_bot[name]) for games, by_bot in (found.ratings.history if found.ratings else ()) if name in by_bot]
    head = [{"bot": row["opponent"], "games": row["games"], "ahead": row["ahead"]}
            for row in standings.get("head_to_head") or [] if row.get("bot") == name]
    games = [line.as_dict() for line in results.newest_games((name,), GAMES_SHOWN)]
    faulted = [line.as_dict() for line in results.games(GameQuery(bots=(name,), faults_only=True, by_number=False,
                                                                  limit=GAMES_SHOWN))]
    return BotView(name, standing, rank, history, head, games, faulted)


def game_data(results: TournamentResults, number: str, may_see: set[str] | None) -> dict[str, Any]:
    """A game's replay data (`arena replay --format json`'s); the stderr of each bot not in `may_see`
    (None: every bot's, for the organiser) left out (ArenaError: no such game, said why)."""
    replay = results.replay(number)
    data = replay.data(results.config.name)
    if may_see is None:
        return data
    names = {entry["seat"]: entry["name"] for entry in data.get("bots", [])}
    for fault in data.get("faults", []):
        if names.get(fault.get("seat")) not in may_see and fault.get("stderr"):
            fault["stderr"] = None
            fault["stderr_hidden"] = True
    return data


__all__ = ["BotView", "GAMES_SHOWN", "bot_view", "game_data"]
