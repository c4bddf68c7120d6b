"""The tournament's facts that every report gives under the same names: when it ran, how it was
set up, what played (the report layer writes them: arena/report/facts.py)."""

from __future__ import annotations

from arena.protocol import PROTOCOL_VERSION
from arena.tournament.config import TournamentConfig
from arena.wording import when_text

# Rule options that are shown under their own names, or that a tournament does not use (each game
# is scored on its own; the schedule sets the dealer): left out of `rules`.
_NOT_RULES = ("num_players", "scoring", "fault_policy", "next_dealer", "games", "max_games", "target_points")

# The seed deals every hand (the dealing is public code): while games are still to be played, a
# report that authors may read (the live page, a published standings page) must not give it.
SEED_WITHHELD = "shown when the tournament is complete"


def tournament_facts(config: TournamentConfig, first_game_at: float | None, last_game_at: float | None,
                     versions: dict[str, str], capped_games: int = 0, games_played: int = 0,
                     games_void: int = 0, complete: bool = False) -> dict[str, object]:
    """The facts, in the order reports show them; values are text, numbers or (rules, bots) a dict.
    The seed only once the tournament is `complete`, else SEED_WITHHELD in its place."""
    import arena

    options = config.rules.to_options()
    facts: dict[str, object] = {
        "tournament": config.name,
        "first_game": when_text(first_game_at),
        "last_game": when_text(last_game_at),
        "seed": config.seed if complete else SEED_WITHHELD,
        "schedule": config.schedule,
        # One value per fact (a CSV cell each): what only some schedules have is left empty.
        "challengers": config.challenger_count if config.kind.takes_challengers else "",
        "tables": config.tables_in_play(),  # a withdrawn bot's tables are no longer played
        "table_size": config.table_size,
        "deals": config.deals,  # at most, under stop = "sprt"
        "games_played": games_played,
        "games_scheduled": config.games_scheduled(),  # at most, under stop = "sprt"
        "games_void": games_void,  # could not be played, to be played again (arena games --void)
        "capped_games": capped_games,  # ended by the phase-2 action cap (R51): no real finish
        "scoring": options.get("scoring", ""),
        "fault_policy": options.get("fault_policy", ""),
        "move_timeout_s": config.move_timeout_s,
        "startup_timeout_s": config.startup_timeout_s,
        "start_retry_s": config.start_retry_s,  # how long a start failing outside the bot is retried before void
        "stop": "sprt" if config.sprt else "none",
        "sprt_delta0": config.sprt.delta0 if config.sprt else "",
        "sprt_delta1": config.sprt.delta1 if config.sprt else "",
        "sprt_alpha": config.sprt.alpha if config.sprt else "",
        "sprt_beta": config.sprt.beta if config.sprt else "",
        "arena_version": arena.__version__,
        "protocol_version": PROTOCOL_VERSION,
        "rules": {key: value for key, value in options.items() if key not in _NOT_RULES},
        "bots": {name: versions.get(name, "") for name in config.playing},
    }
    return facts


__all__ = ["SEED_WITHHELD", "tournament_facts"]
