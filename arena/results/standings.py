"""Standings: pure functions of stored games (a `ResultStore`, or `GameRow`s for tests).

Ranking. Bots are ranked by cumulative points (more is better; every scoring of the
rules is "more is better"). Ties are broken, in order, by:

1. points per game (higher first),
2. wins, i.e. games finished first out (more first),
3. times skitgubbe, i.e. finished last (fewer first),
4. faults (fewer first),
5. name (alphabetical), so the order is total and stable.

A bot with no game yet (one just added, say) comes after every bot that has played: it has no
result to rank, and its 0 would otherwise pass the negative totals of `pot` scoring.

A gauntlet ranks by points per game instead (`by_points_per_game`): its challengers play more
games than the others, so their totals say nothing. Ties then go to cumulative points, and on
down the list above.

Confidence interval. Duplicate play makes the games of one deal (same table, same
deal number: every seating of the same cards) strongly dependent, so the unit of
sampling is the *deal set*: for each bot, take its mean points per game within each
deal set it played (x_1..x_k), then the 95% interval of their mean:
``mean(x) ± t(0.975, k-1) · s / √k`` with s the sample standard deviation of x; t comes
from a table for k <= 30 and from a series expansion beyond. The interval is centred on
the mean of deal-set means, which equals points per game once all deal sets are
complete. With fewer than two deal sets there is no spread to estimate: the interval is
(NaN, NaN) (reports show "n/a", JSON writes null).

`compute_standings(store)` (arena/results/standings_sql.py) aggregates in SQL (fast on a million
games); `standings_from_rows(rows)` does the same maths in Python; both end in `ranked_standings`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from arena.play.records import NOT_COUNTED_FAULTS
from arena.results.league_view import LeagueView
from arena.results.ratings import Ratings
from arena.results.sprt import SprtState

Z975 = 1.959963984540054  # the normal quantile of 0.975
# two-sided 95% t quantiles t(0.975, df) for df = 1..29 (k = 2..30 deal sets)
T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
)
# What the ranking is by: `Standings.ranked_by`, and the JSON and CSV reports' `ranked_by`.
RANKED_BY_POINTS = "points"
RANKED_BY_POINTS_PER_GAME = "points_per_game"  # a gauntlet


def t975(k: int) -> float:
    """The t multiplier t(0.975, k - 1) for a mean over k deal sets."""
    if k < 2:
        return math.nan
    if k <= 30:
        return T975[k - 2]
    # Beyond the table, the Cornish-Fisher expansion of t around the normal quantile: within
    # 1e-5 of the exact value from df = 29 on (2.04523 there, 1.99254 at df = 74, 1.97993 at 120).
    # The 1.96 used here before made the interval jump 4% narrower between 30 and 31 deal sets.
    z, v = Z975, k - 1
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4))


@dataclass(frozen=True)
class BotStanding:
    rank: int
    bot: str
    games: int
    points: int
    points_per_game: float
    ci95_low: float
    ci95_high: float
    wins: int  # games finished first out
    skitgubbe: int  # games finished last
    faults: int
    faults_by_kind: dict[str, int]
    places: tuple[int, ...]  # count of finishing places 1..n
    version: str = ""
    deal_sets: int = 0  # k, the number of deal sets behind the interval
    # The rating (arena/results/ratings.py), when computed: NaN (group 0) otherwise.
    rating: float = math.nan
    rating_margin: float = math.nan  # half the 95% interval
    rating_group: int = 0  # 1: the top group of bots these games cannot tell apart

    @property
    def ci95_half_width(self) -> float:
        return (self.ci95_high - self.ci95_low) / 2


@dataclass(frozen=True)
class Standings:
    bots: tuple[BotStanding, ...]  # ranked
    head_to_head: dict[tuple[str, str], tuple[int, int]]  # (a, b) -> (games together, games a finished ahead of b)
    places_by_seat: tuple[tuple[int, ...], ...]  # [seat][place - 1] -> count
    faults_by_kind: dict[str, int]
    games: int
    ranked_by: str = RANKED_BY_POINTS  # or RANKED_BY_POINTS_PER_GAME
    # The ratings whole (arena/results/ratings.py): intervals, groups, covariance, history.
    ratings: Ratings | None = None
    # Figures of the bot versions out of the standings, when asked for (results.history.VersionFigures):
    # earlier versions of resubmitted bots, and withdrawn bots.
    history: tuple = ()
    # A run with stop = "sprt": where its test stands.
    test: SprtState | None = None
    # The tournament's facts, for the reports (arena/report/facts.py): name -> value.
    facts: dict = field(default_factory=dict)
    # A tournament's: how much of it is played (None for a match's standings).
    completeness: Completeness | None = None
    # The tournament's entries in config order, a withdrawn bot in its place (its colour stays with it).
    roster: tuple[str, ...] = ()
    # A league's: its queue of next tables and its latest ones, each with why it was chosen.
    league: LeagueView | None = None

    def games_words(self) -> str:
        """What the reports say of the games: '1392 games', or while any is missing or void,
        '1392 of 1800 games played, 12 void'."""
        if self.completeness is None:
            return f"{self.games} game{'' if self.games == 1 else 's'}"
        return self.completeness.words()

    @property
    def ranks_by_points_per_game(self) -> bool:
        return self.ranked_by == RANKED_BY_POINTS_PER_GAME

    def bot(self, name: str) -> BotStanding:
        for b in self.bots:
            if b.bot == name:
                return b
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class Completeness:
    """How much of the tournament is played: every report says so while games are missing or void."""

    played: int
    scheduled: int  # every game of the schedule (at most: an SPRT run stops when its test decides)
    void: int  # void games (arena/results/voids.py) not played since
    decided: bool = False  # an SPRT run whose test decided: complete at what it played
    ongoing: bool = False  # a league not frozen: never complete; `scheduled` is what it has queued
    counted: str = ""  # which games the standings count, where not all stored ("the final round robin")

    @property
    def complete(self) -> bool:
        return not self.ongoing and (self.decided or (self.played >= self.scheduled and not self.void))

    def words(self) -> str:
        """'1392 games', or '1392 of 1800 games played, 12 void'; a league's '1392 games so far', a
        frozen one's '24 games of the final round robin'."""
        of = f" of {self.counted}" if self.counted else ""
        if self.ongoing:
            return f"{self.played} game{'' if self.played == 1 else 's'} so far" + (f", {self.void} void" if self.void else "")
        if self.complete:
            return f"{self.played} game{'' if self.played == 1 else 's'}{of}"
        return f"{self.played} of {self.scheduled} games{of} played" + (f", {self.void} void" if self.void else "")


@dataclass
class BotTally:
    """One bot's running totals while the standings are summed."""

    games: int = 0
    points: int = 0
    wins: int = 0
    skitgubbe: int = 0
    faults: int = 0
    places: list[int] = field(default_factory=lambda: [0] * 5)
    # deal-set means: count, sum, sum of squares
    k: int = 0
    s1: float = 0.0
    s2: float = 0.0
    faults_by_kind: dict[str, int] = field(default_factory=dict)
    version: str = ""


@dataclass
class Tally:
    """Running totals of every game while the standings are summed (in SQL or in Python)."""

    bots: dict[str, BotTally] = field(default_factory=dict)
    h2h: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    places_by_seat: list[list[int]] = field(default_factory=list)
    faults_by_kind: dict[str, int] = field(default_factory=dict)
    games: int = 0
    n: int = 0  # the largest table seen

    def bot(self, name: str) -> BotTally:
        agg = self.bots.get(name)
        if agg is None:
            agg = self.bots[name] = BotTally()
        return agg

    def add_order(self, bots: Sequence[str], order: Sequence[int], count: int) -> None:
        """`count` games with these bots by seat and this finishing order: head-to-head, places by seat."""
        n = len(bots)
        while len(self.places_by_seat) < n:
            self.places_by_seat.append([0] * 5)
        for i, seat in enumerate(order):
            self.places_by_seat[seat][i] += count
            a = bots[seat]
            for later in order[i + 1:]:
                b = bots[later]
                ab = self.h2h.setdefault((a, b), [0, 0])
                ab[0] += count
                ab[1] += count
                self.h2h.setdefault((b, a), [0, 0])[0] += count


def standings_from_rows(rows: Iterable, entries: Sequence[str] | None = None, by_points_per_game: bool = False) -> Standings:
    """Standings from `GameRow`-like objects (fields table, deal, bots, finishing_order, points, faults, extra)."""
    rows = list(rows)
    agg = Tally(games=len(rows))
    deal_sets: dict[tuple[str, int, int], list[float]] = {}  # (bot, table, deal) -> [points sum, games]
    for row in rows:
        bots, order, points = row.bots, row.finishing_order, row.points
        n = len(bots)
        agg.n = max(agg.n, n)
        fault_count = [0] * n
        for f in row.faults:
            kind = f["kind"]
            if kind in NOT_COUNTED_FAULTS:
                continue
            fault_count[f["seat"]] += 1
            agg.faults_by_kind[kind] = agg.faults_by_kind.get(kind, 0) + 1
            per_bot = agg.bot(bots[f["seat"]]).faults_by_kind
            per_bot[kind] = per_bot.get(kind, 0) + 1
        for place, seat in enumerate(order, start=1):
            b = agg.bot(bots[seat])
            b.games += 1
            b.points += points[seat]
            b.places[place - 1] += 1
            b.wins += place == 1
            b.skitgubbe += place == n
            b.faults += fault_count[seat]
            ds = deal_sets.setdefault((bots[seat], row.table, row.deal), [0.0, 0])
            ds[0] += points[seat]
            ds[1] += 1
        agg.add_order(bots, order, 1)
        versions = (getattr(row, "extra", None) or {}).get("versions") or {}
        for name, version in versions.items():
            if name in agg.bots:
                agg.bots[name].version = str(version)
    for (name, _table, _deal), (total, games) in deal_sets.items():
        b = agg.bots[name]
        mean = total / games
        b.k += 1
        b.s1 += mean
        b.s2 += mean * mean
    return ranked_standings(agg, entries, by_points_per_game)


def ranked_standings(agg: Tally, entries: Sequence[str] | None, by_points_per_game: bool) -> Standings:
    """The totals as ranked standings, with points per game and each bot's interval (module docstring)."""
    n = agg.n or 3  # places tuple length: the table size (3 before any game)
    for name in entries or ():
        agg.bot(name)
    standings = []
    for name, b in agg.bots.items():
        ppg = b.points / b.games if b.games else 0.0
        if b.k >= 2:
            mean = b.s1 / b.k
            var = max(0.0, (b.s2 - b.s1 * b.s1 / b.k) / (b.k - 1))
            half = t975(b.k) * math.sqrt(var / b.k)
            low, high = mean - half, mean + half
        else:
            low = high = math.nan
        standings.append(
            BotStanding(
                rank=0, bot=name, games=b.games, points=b.points, points_per_game=ppg, ci95_low=low, ci95_high=high,
                wins=b.wins, skitgubbe=b.skitgubbe, faults=b.faults, faults_by_kind=dict(sorted(b.faults_by_kind.items())),
                places=tuple(b.places[:n]), version=b.version, deal_sets=b.k,
            )
        )
    if by_points_per_game:
        standings.sort(key=lambda s: (not s.games, -s.points_per_game, -s.points, -s.wins, s.skitgubbe, s.faults, s.bot))
    else:
        standings.sort(key=lambda s: (not s.games, -s.points, -s.points_per_game, -s.wins, s.skitgubbe, s.faults, s.bot))
    ranked = tuple(
        BotStanding(**{**s.__dict__, "rank": i}) for i, s in enumerate(standings, start=1)
    )
    return Standings(
        bots=ranked,
        head_to_head={pair: (v[0], v[1]) for pair, v in sorted(agg.h2h.items())},
        places_by_seat=tuple(tuple(row[:n]) for row in agg.places_by_seat),
        faults_by_kind=dict(sorted(agg.faults_by_kind.items())),
        games=agg.games,
        ranked_by=RANKED_BY_POINTS_PER_GAME if by_points_per_game else RANKED_BY_POINTS,
    )
