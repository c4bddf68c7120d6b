"""What a league's matchmaking sees (schedule/matchmaking.py's `LeagueState`), made from its stored
results: each playing bot's fitted strength and variance from the ratings (results/ratings.py),
its games in the standings (a resubmitted bot starts again at 0, so it is owed tables at once),
and its tables, wait and meetings from the league's tables (results/league_queue.py).

The tables still queued are counted as if played (`matchmaking.played`), so that a choice made
while they wait does not pick the same bots again. A bot withdrawn is out; a bot new to the league,
or whose version is new, has no rating yet: theta 0 and the fit's prior variance."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import Iterable, Mapping, Sequence

from arena.results.league_queue import DROPPED, QUEUED, LeagueTable
from arena.results.ratings import Ratings
from arena.schedule.matchmaking import PRIOR_VARIANCE, LeagueBot, LeagueState, Matchmaking, pair, played
from arena.tournament.config import TournamentConfig


def matchmaking_of(config: TournamentConfig) -> Matchmaking:
    """The config's settings of its league's matchmaking (the rest are the module's defaults)."""
    return Matchmaking(table_size=config.table_size, focus_ranks=config.focus_ranks)


def games_per_table(config: TournamentConfig) -> int:
    """A table's games: every deal in every seating (duplicate play)."""
    return config.deals * math.factorial(config.table_size)


def league_state(names: Sequence[str], ratings: Ratings, games: Mapping[str, int], tables: Iterable[LeagueTable],
                 table_games: int) -> LeagueState:
    """The league as the matchmaking sees it, over the bots `names` (those that may be seated now);
    `table_games`: the games of a table, by which a queued table counts as played."""
    counted = [table for table in tables if table.status != DROPPED]
    done = [table for table in counted if table.status != QUEUED]
    seen, last = Counter[str](), {}
    meetings = Counter[tuple[str, str]]()
    for at, table in enumerate(done):
        for name in table.bots:
            seen[name] += 1
            last[name] = at
        meetings.update(pair(a, b) for a, b in itertools.combinations(table.bots, 2))
    bots = tuple(_bot(name, ratings, games.get(name, 0), seen[name], len(done) - 1 - last[name] if name in last else 0)
                 for name in names)
    rated = [name for name in names if name in ratings.bots]
    covariances = {pair(a, b): ratings.covariance_of(a, b) for a, b in itertools.combinations(rated, 2)}
    state = LeagueState(bots, covariances, {key: value for key, value in meetings.items()
                                            if key[0] in names and key[1] in names})
    present = set(names)
    for table in counted:
        if table.status == QUEUED and set(table.bots) <= present:
            state = played(state, table.bots, table_games)
    return state


def _bot(name: str, ratings: Ratings, games: int, tables: int, waited: int) -> LeagueBot:
    rated = ratings.bots.get(name)
    if rated is None or games == 0:
        return LeagueBot(name, 0.0, PRIOR_VARIANCE, games, tables, waited)
    variance = ratings.variance(name)
    return LeagueBot(name, rated.theta, variance if math.isfinite(variance) else PRIOR_VARIANCE, games, tables, waited)


__all__ = ["games_per_table", "league_state", "matchmaking_of"]
