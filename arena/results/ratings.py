"""OpenSkill ratings of the bots, beside the points that rank them.

Each game is one Plackett-Luce rating update (the `openskill` package's model for games of more
than two players) with the bots ranked by their finishing order: first out ranks first, the
skitgubbe last. The order of the updates matters to the result, so games are rated in
tournament game-number order, never in the order they were stored: a rating is then the same
however many workers played, in whatever order tables ended, and across interrupted runs.

A rating is mu (the estimated skill) and sigma (how unsure that estimate is); the ordinal
mu - 3 sigma is the conservative figure leaderboards sort by. Every bot starts at mu 25,
sigma 25/3 (openskill's defaults). Points decide the tournament's ranking; ratings only stand
beside them."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from arena.results.standings import Standings, sample_positions
from arena.results.store import ResultStore
from arena.schedule.numbers import GameNumbers


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate mu - 3 sigma (openskill's ordinal)."""
        return self.mu - 3 * self.sigma


NO_RATING = Rating(math.nan, math.nan)
# The reports' one-line gloss.
RATING_NOTE = "rating: OpenSkill mu ± sigma over the games in game order; ordinal: mu - 3 sigma (points decide the ranking)"


def rate_games(games: Iterable[tuple[Sequence[str], Sequence[int]]]) -> dict[str, Rating]:
    """Ratings after `games`, in the order given: each (bot names by seat, finishing order as seats
    first out first). A bot at two seats of one game (self-play) is rated once, at its best place."""
    from openskill.models import PlackettLuce, PlackettLuceRating

    model = PlackettLuce()
    current: dict[str, PlackettLuceRating] = {}
    for bots, order in games:
        place_of: dict[str, int] = {}
        for place, seat in enumerate(order, start=1):
            place_of.setdefault(bots[seat], place)
        if len(place_of) < 2:
            continue  # nobody to be ranked against
        names = list(place_of)
        teams = [[current.get(name) or model.rating(name=name)] for name in names]
        updated = model.rate(teams, ranks=[place_of[name] for name in names])
        for name, (rating,) in zip(names, updated):
            current[name] = rating
    return {name: Rating(r.mu, r.sigma) for name, r in current.items()}


def with_ratings(standings: Standings, ratings: dict[str, Rating]) -> Standings:
    """`standings` with each bot's rating beside its figures (the ranking unchanged)."""
    bots = tuple(dataclasses.replace(b, mu=ratings.get(b.bot, NO_RATING).mu, sigma=ratings.get(b.bot, NO_RATING).sigma)
                 for b in standings.bots)
    return dataclasses.replace(standings, bots=bots)


def compute_ratings(store: ResultStore, numbers: GameNumbers) -> dict[str, Rating]:
    """Ratings of the current games of `store`, rated in game-number order."""
    return in_game_order(store, numbers)[0]


def in_game_order(store: ResultStore,
                  numbers: GameNumbers) -> tuple[dict[str, Rating], list[tuple[int, dict[str, int]]]]:
    """The current games of `store` taken in game-number order, once: the ratings, and the timeline
    of cumulative points (sampled as the standings' is) in that order, which, unlike the order
    games were stored in, does not depend on the workers."""
    with store._read() as db:
        rows = db.execute("SELECT table_no, deal, seating, bots, finishing_order, points FROM games").fetchall()
    rows.sort(key=lambda row: numbers.number(row[0], row[1], row[2]))
    positions = set(sample_positions(len(rows)))
    cumulative: dict[str, int] = {}
    timeline = []
    games = []
    for index, (*_, bots, order, points) in enumerate(rows, start=1):
        names = bots.split(",")
        games.append((names, [int(seat) for seat in order.split(",")]))
        for name, got in zip(names, points.split(",")):
            cumulative[name] = cumulative.get(name, 0) + int(got)
        if index in positions:
            timeline.append((index, dict(cumulative)))
    played = sorted(cumulative)
    timeline = [(index, {name: cum.get(name, 0) for name in played}) for index, cum in timeline]
    return rate_games(games), timeline


def rated_standings(store, config, by_points_per_game: bool | None = None) -> Standings:
    """The standings of `store` under `config` (a TournamentConfig), with every bot's rating and
    the timeline in game-number order;
    ranked as the config says, or by points per game if `by_points_per_game` (a run's live board)."""
    from arena.results.standings_sql import compute_standings

    if by_points_per_game is None:
        by_points_per_game = config.ranks_by_points_per_game
    standings = compute_standings(store, list(config.playing), by_points_per_game, timeline=False)
    ratings, timeline = in_game_order(store, config.game_numbers())
    return dataclasses.replace(with_ratings(standings, ratings), timeline=timeline)


def format_rating(mu: float, sigma: float) -> str:
    """"27.3 ± 1.1" (mu ± sigma), or "n/a" before a bot's first game."""
    return "n/a" if math.isnan(mu) else f"{mu:.1f} ± {sigma:.1f}"


def format_ordinal(ordinal: float) -> str:
    return "n/a" if math.isnan(ordinal) else f"{ordinal:.1f}"


__all__ = ["Rating", "NO_RATING", "RATING_NOTE", "rate_games", "with_ratings", "compute_ratings", "rated_standings", "format_rating", "format_ordinal"]
