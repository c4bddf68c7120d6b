"""How many games a league needs before its top 10 are settled, with the league's matchmaking
(arena/schedule/matchmaking.py), uniform random tables, and a balanced round robin (issue 43).

    .venv/bin/python benchmarks/matchmaking.py                  # 30 bots, 4 seeds
    .venv/bin/python benchmarks/matchmaking.py --seeds 2 --spread 1.0

No processes: simulated leagues. The field: 30 bots whose true log-strengths are the quantiles
(i + 0.5) / 30 of a normal distribution of standard deviation --spread (default 1.0, about 174
rating points: the best bot about 370 points above the average, the weakest as far below, most
in the middle; the gaps between neighbours in the top 10 run from 84 points down to 17). Quantiles
rather than random draws, so that every seed plays the same field and only the games vary.

Each table plays one deal in every seating of its three bots (duplicate play: 6 games a table,
as arena/schedule/games.py's `table_games` lays them out); each game's finishing order is its own
Plackett-Luce draw from the true strengths (the Gumbel trick), so the simulation leaves out what
duplicate cards cancel and models only the order's luck. Every scheduler plays tables in batches
of --every tables (default 10, 60 games): after each batch the ratings are refitted with the
arena's own fit (arena/results/plackett_luce.py `fit`, warm-started from the last fit) and the
top 10 checked. The league chooses each batch from the last fit as a league run does: the state
made by the arena's converter (arena/tournament/league_state.py, from the fit as Ratings, each
bot's games and the tables played), then `choose_tables` with the default `Matchmaking` settings
(--focus 0 weighs every rank alike); a run refits more often (whenever a worker is free), so a
batch of 10 is the coarser case. Random: each table three distinct bots uniformly at random.
Round robin: the arena's balanced schedule (arena/schedule/tables.py `balanced_schedule`) of 145
tables a round (every bot at 14 or 15 tables, every pair meeting about once), laid out once (its
search takes seconds) and played round after round, each round's bots relabelled by a new random
permutation and its tables shuffled: every round as balanced as the first, no two alike.

Settled (the same test for all three, checked after each batch): the 10 bots of highest fitted
theta are the true top 10 in their true order, and for each of the 9 neighbours in that order
the 95% interval of the difference of their thetas (from the fit's covariance: theta_i -
theta_j > 1.96 sd) excludes 0. The figure per scheduler is the games played at the first check
that finds the league settled, averaged over the seeds; a run that has not settled by --cap
games counts as the cap (and says so).

The last line reads `matchmaking: bots 30, games to a settled top 10: league L, random R, round robin B`.
Goal: L <= 0.5 x R and L <= 0.5 x B, with no league bot under half the median games.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.results.plackett_luce import fit  # noqa: E402
from arena.results.ratings import Z95  # noqa: E402
from arena.results.ratings import NO_RATINGS, ratings_of  # noqa: E402
from arena.schedule.matchmaking import Matchmaking, choose_tables  # noqa: E402
from arena.tournament.league_state import LeagueTally, league_state  # noqa: E402
from arena.schedule.tables import balanced_schedule  # noqa: E402

BOTS, TOP, TABLE_SIZE = 30, 10, 3
GAMES_PER_TABLE = math.factorial(TABLE_SIZE)  # one deal in every seating
NAMES = tuple(f"bot{i:02d}" for i in range(BOTS))  # bot00 is the truly best
ROUND_TABLES = 145  # a balanced round: 435 pairs, 3 to a table


def true_strengths(spread: float) -> np.ndarray:
    """Best first: the normal quantiles of the module's docstring."""
    normal = statistics.NormalDist(0.0, spread)
    return np.array([normal.inv_cdf(1 - (i + 0.5) / BOTS) for i in range(BOTS)])


class Counts:
    """The fit's counts (results/plackett_luce.py), kept as games come: each stage's set of bots
    still in play and how often it was met, and each bot's stages won."""

    def __init__(self) -> None:
        self.row_of: dict[tuple[int, ...], int] = {}
        self.incidence = np.zeros((256, BOTS))  # the first len(row_of) rows are the sets met
        self.set_games = np.zeros(256)
        self.wins = np.zeros(BOTS)
        self.start: np.ndarray | None = None

    def add(self, order: tuple[int, ...]) -> None:
        for stage in range(len(order) - 1):
            self.wins[order[stage]] += 1
            members = tuple(sorted(order[stage:]))
            row = self.row_of.get(members)
            if row is None:
                row = self.row_of[members] = len(self.row_of)
                if row == len(self.set_games):  # full: twice the room
                    self.incidence = np.vstack([self.incidence, np.zeros_like(self.incidence)])
                    self.set_games = np.concatenate([self.set_games, np.zeros_like(self.set_games)])
                self.incidence[row, list(members)] = 1
            self.set_games[row] += 1

    def fit(self):
        used = len(self.row_of)
        result = fit(self.incidence[:used], self.set_games[:used], self.wins, start=self.start)
        self.start = result.theta
        return result


def settled(result) -> bool:
    """The module docstring's test: the true top 10 first, in true order, neighbours separated."""
    if not result.rated.all():
        return False
    theta, covariance = result.theta, result.covariance  # every bot rated: covariance in bot order
    top = list(np.argsort(-theta, kind="stable")[:TOP])
    if top != list(range(TOP)):
        return False
    for a, b in zip(top, top[1:]):
        spread = covariance[a, a] + covariance[b, b] - 2 * covariance[a, b]
        if theta[a] - theta[b] <= Z95 * math.sqrt(max(spread, 0.0)):
            return False
    return True


def play_table(bots: tuple[int, ...], truth: np.ndarray, rng: np.random.Generator, counts: Counts,
               games: np.ndarray) -> None:
    """One deal in every seating: GAMES_PER_TABLE finishing orders, each a Plackett-Luce draw."""
    seated = np.array(bots)
    noise = rng.gumbel(size=(GAMES_PER_TABLE, len(bots)))
    for row in np.argsort(-(truth[seated] + noise), axis=1):
        counts.add(tuple(int(x) for x in seated[row]))
    games[seated] += GAMES_PER_TABLE


class League:
    """The league's matchmaking as a league run uses it (arena/tournament/league_run.py): after each
    fit, its state made by the arena's own converter (`league_state`: the fit as Ratings, each bot's
    games, the tally of the tables played so far), then `choose_tables`."""

    def __init__(self, seed: int, settings: Matchmaking) -> None:
        self.seed, self.settings = seed, settings
        self.played = LeagueTally()

    def tables(self, result, count: int, games: np.ndarray) -> list[tuple[int, ...]]:
        ratings = ratings_of(NAMES, result) if result is not None else NO_RATINGS
        state = league_state(NAMES, ratings, {name: int(games[i]) for i, name in enumerate(NAMES)}, self.played,
                             (), GAMES_PER_TABLE)
        first = self.played.played
        choices, _ = choose_tables(state, self.settings, self.seed, first, count, GAMES_PER_TABLE)
        for i, choice in enumerate(choices):
            self.played.add(first + i, choice.bots)
        return [tuple(NAMES.index(name) for name in choice.bots) for choice in choices]


class RandomTables:
    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng([seed, 7])

    def tables(self, result, count: int, games: np.ndarray) -> list[tuple[int, ...]]:
        return [tuple(int(x) for x in self.rng.choice(BOTS, TABLE_SIZE, replace=False)) for _ in range(count)]


_ROUND: list[tuple[int, ...]] = []


def balanced_round() -> list[tuple[int, ...]]:
    """The balanced schedule's round, laid out once (its search takes seconds)."""
    if not _ROUND:
        specs = balanced_schedule(list(NAMES), TABLE_SIZE, ROUND_TABLES, 1, seed=1)
        _ROUND.extend(tuple(NAMES.index(name) for name in spec.entries) for spec in specs)
    return _ROUND


class RoundRobin:
    """Round after round of the balanced layout, its bots relabelled by a new random permutation
    each round (each round as balanced as the first, no two alike) and its tables shuffled."""

    def __init__(self, seed: int) -> None:
        self.rng, self.queue = np.random.default_rng([seed, 13]), []

    def tables(self, result, count: int, games: np.ndarray) -> list[tuple[int, ...]]:
        while len(self.queue) < count:
            relabel = self.rng.permutation(BOTS)
            layout = [tuple(int(relabel[x]) for x in table) for table in balanced_round()]
            self.queue += [layout[i] for i in self.rng.permutation(len(layout))]
        taken, self.queue = self.queue[:count], self.queue[count:]
        return taken


def run(scheduler, truth: np.ndarray, seed: int, every: int, cap: int) -> tuple[int, np.ndarray, bool]:
    """Games played when first settled (or the cap), and each bot's games then."""
    rng = np.random.default_rng([seed, 11])
    counts, games, result = Counts(), np.zeros(BOTS, dtype=np.int64), None
    while games.sum() // TABLE_SIZE < cap:
        for bots in scheduler.tables(result, every, games):
            play_table(bots, truth, rng, counts, games)
        result = counts.fit()
        if settled(result):
            return int(games.sum() // TABLE_SIZE), games, True
    return int(games.sum() // TABLE_SIZE), games, False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--spread", type=float, default=1.0, help="sd of the true log-strengths")
    parser.add_argument("--every", type=int, default=10, help="tables between fits")
    parser.add_argument("--focus", type=int, default=Matchmaking().focus_ranks,
                        help="the league's focus_ranks (0: every rank alike)")
    parser.add_argument("--cap", type=int, default=400_000, help="games after which a run stops unsettled")
    args = parser.parse_args()
    truth = true_strengths(args.spread)
    gaps = np.diff(truth[:TOP]) * -400 / math.log(10)
    print(f"field: {BOTS} bots, log-strength sd {args.spread} (top-10 neighbour gaps {gaps.max():.0f} to "
          f"{gaps.min():.0f} rating points); tables of {TABLE_SIZE}, {GAMES_PER_TABLE} games a table; "
          f"a fit every {args.every} tables; seeds {args.seeds}")
    started = time.perf_counter()
    settings = Matchmaking(table_size=TABLE_SIZE, focus_ranks=args.focus)
    print(f"league: {settings}; load average {os.getloadavg()[0]:.2f} at the start")
    figures: dict[str, list[int]] = {"league": [], "random": [], "round robin": []}
    league_games: list[np.ndarray] = []
    for seed in range(1, args.seeds + 1):
        for label, scheduler in (("league", League(seed, settings)), ("random", RandomTables(seed)),
                                 ("round robin", RoundRobin(seed))):
            clock = time.perf_counter()
            played, games, done = run(scheduler, truth, seed, args.every, args.cap)
            figures[label].append(played)
            if label == "league":
                league_games.append(games)
            print(f"seed {seed} {label:>11}: {played:>7} games{'' if done else ' (cap: not settled)'}, "
                  f"per bot min {games.min()} median {np.median(games):.0f} max {games.max()}, "
                  f"{time.perf_counter() - clock:.1f} s", flush=True)
    mean = {label: statistics.mean(values) for label, values in figures.items()}
    ratios = [float(games.min() / np.median(games)) for games in league_games]
    print("median over the seeds (the mean is what the last line gives): " + ", ".join(
        f"{label} {statistics.median(values):.0f}" for label, values in figures.items()))
    print(f"league per bot: least games / median, worst seed {min(ratios):.2f} (goal >= 0.5)")
    print(f"league / random {mean['league'] / mean['random']:.2f}, league / round robin "
          f"{mean['league'] / mean['round robin']:.2f} (goal <= 0.5 each); {time.perf_counter() - started:.0f} s, "
          f"load average {os.getloadavg()[0]:.2f} at the end")
    print(f"matchmaking: bots {BOTS}, games to a settled top 10: league {mean['league']:.0f}, "
          f"random {mean['random']:.0f}, round robin {mean['round robin']:.0f}")


if __name__ == "__main__":
    main()
