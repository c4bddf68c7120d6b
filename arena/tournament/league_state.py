"""What a league's matchmaking sees (schedule/matchmaking.py's `LeagueState`), made from its stored
results: each playing bot's fitted strength and variance from the ratings (results/ratings.py),
its games in the standings (a resubmitted bot starts again at 0, so it is owed tables at once),
and its tables, wait and meetings from the league's tables (results/league_queue.py).

The tables still queued are counted as if played (`matchmaking.played`), so that a choice made
while they wait does not pick the same bots again. A bot withdrawn is out; a bot new to the league,
or whose version is new, has no rating yet: theta 0 and the fit's prior variance."""

from __future__ import annotations

import bisect
import itertools
import math
from array import array
from collections import Counter
from typing import Iterable, Mapping, Sequence

from arena.results.league_queue import QUEUED, LeagueTable, played_tables
from arena.results.ratings import Ratings
from arena.results.store import ResultStore
from arena.schedule.matchmaking import PRIOR_VARIANCE, LeagueBot, LeagueState, Matchmaking, pair, played
from arena.tournament.config import TournamentConfig


def matchmaking_of(config: TournamentConfig) -> Matchmaking:
    """The config's settings of its league's matchmaking (the rest are the module's defaults)."""
    return Matchmaking(table_size=config.table_size, focus_ranks=config.focus_ranks)


def games_per_table(config: TournamentConfig) -> int:
    """A table's games: every deal in every seating (duplicate play)."""
    return config.deals * math.factorial(config.table_size)


class LeagueTally:
    """What the matchmaking counts of a league's played tables: each bot's tables, the number of its
    last, and each pair's meetings. A run reads it once and adds each table as it is played: read
    whole at every choice, the tables of a long league (200,000 after some days) had made each
    choice and the league's pace ten times slower (benchmarks/league_long.py)."""

    def __init__(self) -> None:
        self._numbers = array("q")  # the played tables' numbers, ascending
        self.seen = Counter[str]()
        self._last: dict[str, int] = {}  # bot -> the number of its last played table
        self.meetings = Counter[tuple[str, str]]()

    @classmethod
    def read(cls, store: ResultStore) -> "LeagueTally":
        """The tally of the league's played tables as its file has them, summed by SQLite (0.3 s at
        200,000 tables; read as rows and tallied here, 1.5-2.2 s)."""
        numbers, seated = played_tables(store)
        tally = cls()
        tally._numbers = array("q", numbers)
        for bots, tables, last in seated:
            for name in bots:
                tally.seen[name] += tables
                tally._last[name] = max(tally._last.get(name, last), last)
            for a, b in itertools.combinations(bots, 2):
                tally.meetings[pair(a, b)] += tables
        return tally

    def add(self, number: int, bots: Sequence[str]) -> None:
        """Table `number` of `bots` played (they come in about in order: its place found from the end)."""
        bisect.insort(self._numbers, number)
        for name in bots:
            self.seen[name] += 1
            self._last[name] = max(self._last.get(name, number), number)
        self.meetings.update(pair(a, b) for a, b in itertools.combinations(bots, 2))

    @property
    def played(self) -> int:
        return len(self._numbers)

    def waited(self, name: str) -> int:
        """The tables played since the bot's last (0 for a bot yet to play)."""
        if name not in self._last:
            return 0
        return len(self._numbers) - bisect.bisect_right(self._numbers, self._last[name])


def league_state(names: Sequence[str], ratings: Ratings, games: Mapping[str, int], tally: LeagueTally,
                 queued: Iterable[LeagueTable], table_games: int) -> LeagueState:
    """The league as the matchmaking sees it, over the bots `names` (those that may be seated now):
    `tally` of its played tables, `queued` its tables still queued, in order; `table_games`: the
    games of a table, by which a queued table counts as played."""
    bots = tuple(_bot(name, ratings, games.get(name, 0), tally.seen[name], tally.waited(name)) for name in names)
    rated = [name for name in names if name in ratings.bots]
    covariances = {pair(a, b): ratings.covariance_of(a, b) for a, b in itertools.combinations(rated, 2)}
    state = LeagueState(bots, covariances, {key: value for key, value in tally.meetings.items()
                                            if key[0] in names and key[1] in names})
    present = set(names)
    for table in queued:
        if table.status == QUEUED and set(table.bots) <= present:
            state = played(state, table.bots, table_games)
    return state


def _bot(name: str, ratings: Ratings, games: int, tables: int, waited: int) -> LeagueBot:
    rated = ratings.bots.get(name)
    if rated is None or games == 0:
        return LeagueBot(name, 0.0, PRIOR_VARIANCE, games, tables, waited)
    variance = ratings.variance(name)
    return LeagueBot(name, rated.theta, variance if math.isfinite(variance) else PRIOR_VARIANCE, games, tables, waited)


__all__ = ["LeagueTally", "games_per_table", "league_state", "matchmaking_of"]
