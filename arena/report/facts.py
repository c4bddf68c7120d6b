"""The tournament's facts that every report gives (terminal, Markdown, HTML, JSON, CSV) under the
same names: when it ran, how it was set up, what played."""

from __future__ import annotations

import datetime as dt

from arena.protocol import PROTOCOL_VERSION

# Rule options that are shown under their own names, or that a tournament does not use (each game
# is scored on its own; the schedule sets the dealer): left out of `rules`.
_NOT_RULES = ("num_players", "scoring", "fault_policy", "next_dealer", "games", "max_games", "target_points")


def when_text(timestamp: float | None) -> str:
    """A stored time.time() as reports write it, in UTC; "" for none."""
    if timestamp is None:
        return ""
    return dt.datetime.fromtimestamp(timestamp, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def tournament_facts(config, first_game_at: float | None, last_game_at: float | None,
                     versions: dict[str, str], capped_games: int = 0, games_played: int = 0,
                     games_void: int = 0) -> dict[str, object]:
    """The facts, in the order reports show them; values are text, numbers or (rules, bots) a dict."""
    import arena

    options = config.rules.to_options()
    facts: dict[str, object] = {
        "tournament": config.name,
        "first_game": when_text(first_game_at),
        "last_game": when_text(last_game_at),
        "seed": config.seed,
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


def fact_text(value: object) -> str:
    """A fact as one line of text: a dict as "key=value, ..." (rules, bots)."""
    if isinstance(value, dict):
        return ", ".join(f"{k}={_plain(v)}" for k, v in value.items())
    return _plain(value)


def shown_facts(facts: dict[str, object]) -> dict[str, object]:
    """The facts a report for people lists: those with a value ("challengers" of a round robin,
    the `sprt_*` of a run without early stopping are empty; the CSV keeps them, as columns)."""
    return {key: value for key, value in facts.items() if fact_text(value) != ""}


def _plain(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def flat_facts(facts: dict[str, object]) -> dict[str, str]:
    """One value per name, for a CSV's columns: rules as rule_<option>, bots left out (each row has its version)."""
    flat: dict[str, str] = {}
    for key, value in facts.items():
        if key == "bots":
            continue
        if isinstance(value, dict):
            flat.update({f"rule_{k}": _plain(v) for k, v in value.items()})
        else:
            flat[key] = _plain(value)
    return flat


__all__ = ["tournament_facts", "fact_text", "flat_facts", "shown_facts"]
