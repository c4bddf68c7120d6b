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

from arena.results import rating_checkpoint
from arena.results.rating_checkpoint import Checkpoint
from arena.results.standings import Standings, sample_positions
from arena.results.store import ResultStore
from arena.schedule.numbers import PAIRED, GameNumbers


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
PROVISIONAL_RATING_NOTE = ("rating: OpenSkill mu ± sigma, provisional until the run ends: over the games in the order "
                           "they were played (the tournament's ratings, as arena standings gives them, take them in game "
                           "order); ordinal: mu - 3 sigma (points decide the ranking)")


class _Rater:
    """The Plackett-Luce updates one game at a time, from a given state."""

    def __init__(self, start: dict[str, Rating] | None = None) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        # A rating rebuilt from its two floats rates on exactly as the one it was read from.
        self.current = {name: self.model.rating(mu=r.mu, sigma=r.sigma, name=name) for name, r in (start or {}).items()}

    def add(self, bots: Sequence[str], order: Sequence[int]) -> None:
        place_of: dict[str, int] = {}
        for place, seat in enumerate(order, start=1):
            place_of.setdefault(bots[seat], place)
        if len(place_of) < 2:
            return  # nobody to be ranked against
        names = list(place_of)
        teams = [[self.current.get(name) or self.model.rating(name=name)] for name in names]
        updated = self.model.rate(teams, ranks=[place_of[name] for name in names])
        for name, (rating,) in zip(names, updated):
            self.current[name] = rating

    def ratings(self) -> dict[str, Rating]:
        return {name: Rating(r.mu, r.sigma) for name, r in self.current.items()}


def rate_games(games: Iterable[tuple[Sequence[str], Sequence[int]]], start: dict[str, Rating] | None = None) -> dict[str, Rating]:
    """Ratings after `games`, in the order given, from `start` (every bot new by default): each
    (bot names by seat, finishing order as seats first out first). A bot at two seats of one game
    (self-play) is rated once, at its best place."""
    rater = _Rater(start)
    for bots, order in games:
        rater.add(bots, order)
    return rater.ratings()


def with_ratings(standings: Standings, ratings: dict[str, Rating]) -> Standings:
    """`standings` with each bot's rating beside its figures (the ranking unchanged)."""
    bots = tuple(dataclasses.replace(b, mu=ratings.get(b.bot, NO_RATING).mu, sigma=ratings.get(b.bot, NO_RATING).sigma)
                 for b in standings.bots)
    return dataclasses.replace(standings, bots=bots)


def compute_ratings(store: ResultStore, numbers: GameNumbers) -> dict[str, Rating]:
    """Ratings of the current games of `store`, rated in game-number order."""
    return in_game_order(store, numbers)[0]


def numbering_of(numbers: GameNumbers) -> str:
    """What a checkpoint must have been made under: the numbers of the games it rated."""
    fixed = numbers.layout == PAIRED  # paired numbers stay when tables or deals are added
    return f"{numbers.layout}:{numbers.seatings}" + ("" if fixed else f":{numbers.tables}:{numbers.deals}")


_ROW = "SELECT id, table_no, deal, seating, bots, finishing_order, points FROM games"


class _Pass:
    """The pass in game-number order from a checkpoint's state: ratings, cumulative points, the
    timeline at `positions`, and (`snapshots`) the cumulative points every SNAPSHOT games."""

    def __init__(self, start: Checkpoint, positions: list[int], known: dict[int, dict[str, int]]) -> None:
        """`known`: the cumulative points at the `positions` within the checkpoint's games."""
        self.rater = _Rater({name: Rating(mu, sigma) for name, (mu, sigma) in start.ratings.items()})
        self.cumulative = dict(start.cumulative)
        self.games = start.games
        self.snapshots: list[tuple[int, dict[str, int]]] = []  # those taken by this pass
        self.timeline = [(position, dict(known[position])) for position in positions if position <= start.games]
        self._ahead = [position for position in positions if position > start.games][::-1]

    def take(self, bots: str, order: str, points: str) -> None:
        names = bots.split(",")
        self.rater.add(names, [int(seat) for seat in order.split(",")])
        for name, got in zip(names, points.split(",")):
            self.cumulative[name] = self.cumulative.get(name, 0) + int(got)
        self.games += 1
        if self.games % rating_checkpoint.SNAPSHOT == 0:
            self.snapshots.append((self.games, dict(self.cumulative)))
        if self._ahead and self._ahead[-1] == self.games:
            self.timeline.append((self.games, dict(self.cumulative)))
            self._ahead.pop()


def in_game_order(store: ResultStore, numbers: GameNumbers, settled_upto: int | None = None
                  ) -> tuple[dict[str, Rating], list[tuple[int, dict[str, int]]]]:
    """The current games of `store` taken in game-number order, once: the ratings, and the timeline
    of cumulative points (sampled as the standings' is) in that order, which, unlike the order
    games were stored in, does not depend on the workers.

    From the results' checkpoint where it holds (arena/results/rating_checkpoint.py), only the
    games numbered beyond it are rated, on top: the same floats. `settled_upto`: a game number up
    to which no game can be stored any more (the run's first game still to play, less one; a
    complete tournament's highest): the checkpoint is moved up to it."""
    signature = numbering_of(numbers)
    with store._read() as db:
        held = held_checkpoint(db, numbers)
        rows: list = []
        known: dict[int, dict[str, int]] | None = None
        if held is not None:
            start, since, beyond = held
            rows = since + beyond
            new_since = len(since)
            positions = sample_positions(start.games + len(rows))
            # It holds the timeline's samples within it, unless a small tournament samples at counts
            # between its snapshots (the full pass is cheap there).
            known = rating_checkpoint.snapshots_at(db, start, [p for p in positions if p <= start.games])
        if held is None or known is None:
            rows = db.execute(_ROW).fetchall()
            new_since = len(rows)
            start = rating_checkpoint.Checkpoint(signature, 0, 0, 0, 0)
            positions = sample_positions(len(rows))
            known = {}
    numbered = sorted((numbers.number(row[1], row[2], row[3]), row) for row in rows)
    walk = _Pass(start, positions, known)
    upto = settled_upto if settled_upto is not None and settled_upto > start.upto else None
    settled = [row for number, row in numbered if upto is not None and number <= upto]  # a prefix of the order
    for _, _, _, _, bots, order, points in settled:
        walk.take(bots, order, points)
    if upto is not None:
        ids = [row[0] for row in rows]
        max_id = max([start.max_id, *ids])
        rating_checkpoint.save(store.path, Checkpoint(
            signature, upto, walk.games, max_id, start.count_to_max_id + new_since,
            sorted(row[0] for number, row in numbered if number > upto),
            {name: (r.mu, r.sigma) for name, r in walk.rater.ratings().items()}, dict(walk.cumulative),
            walk.snapshots))
    for _, (_, _, _, _, bots, order, points) in numbered[len(settled):]:
        walk.take(bots, order, points)
    played = sorted(walk.cumulative)
    timeline = [(index, {name: cum.get(name, 0) for name in played}) for index, cum in walk.timeline]
    return walk.rater.ratings(), timeline


def held_checkpoint(db, numbers: GameNumbers) -> tuple[Checkpoint, list, list] | None:
    """The results' checkpoint (rating_checkpoint.load), if it still holds: no game stored since it
    was made is numbered up to its `upto`; with the rows (as `_ROW` reads them) stored since, in
    stored order, and those it left beyond `upto`, in stored order. None when it does not hold."""
    start = rating_checkpoint.load(db, numbering_of(numbers))
    if start is None:
        return None
    since = db.execute(f"{_ROW} WHERE id > ? ORDER BY id", (start.max_id,)).fetchall()
    if any(numbers.number(row[1], row[2], row[3]) <= start.upto for row in since):
        return None
    beyond: list = []
    for first in range(0, len(start.beyond), 500):
        chunk = start.beyond[first:first + 500]
        beyond += db.execute(f"{_ROW} WHERE id IN ({','.join('?' * len(chunk))}) ORDER BY id", chunk).fetchall()
    return start, since, beyond


def rated_standings(store, config, by_points_per_game: bool | None = None, settled_upto: int | None = None,
                    live=None, head_to_head: bool = True) -> Standings:
    """The standings of `store` under `config` (a TournamentConfig), with every bot's rating and
    the timeline in game-number order;
    ranked as the config says, or by points per game if `by_points_per_game` (a run's live board).
    `settled_upto`: see `in_game_order`. `live`: a run's PlayOrderRatings (results/live_ratings.py),
    for its live views while it goes on: the ratings and timeline in the order games were stored,
    marked provisional. Without `head_to_head`: none (the live board shows none)."""
    from arena.results.standings_sql import compute_standings

    if by_points_per_game is None:
        by_points_per_game = config.ranks_by_points_per_game
    standings = compute_standings(store, list(config.playing), by_points_per_game, timeline=False,
                                  head_to_head=head_to_head)
    if live is not None:
        ratings, timeline = live.update(store, config.game_numbers())
    else:
        ratings, timeline = in_game_order(store, config.game_numbers(), settled_upto)
    return dataclasses.replace(with_ratings(standings, ratings), timeline=timeline,
                               ratings_in_play_order=live is not None)


def rating_note(standings: Standings) -> str:
    """The reports' gloss on the ratings: RATING_NOTE, or what a live view's provisional ones are."""
    return PROVISIONAL_RATING_NOTE if standings.ratings_in_play_order else RATING_NOTE


def format_rating(mu: float, sigma: float) -> str:
    """"27.3 ± 1.1" (mu ± sigma), or "n/a" before a bot's first game."""
    return "n/a" if math.isnan(mu) else f"{mu:.1f} ± {sigma:.1f}"


def format_ordinal(ordinal: float) -> str:
    return "n/a" if math.isnan(ordinal) else f"{ordinal:.1f}"


__all__ = ["held_checkpoint", "Rating", "NO_RATING", "RATING_NOTE", "PROVISIONAL_RATING_NOTE", "rating_note", "rate_games", "with_ratings", "compute_ratings", "rated_standings", "format_rating", "format_ordinal"]
