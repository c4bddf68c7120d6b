"""A league's matchmaking (issue 43): which bots sit at the next table, chosen for what its result
would teach the ratings, with fairness so that no bot starves, and a sentence saying why.

Input and output are frozen values, so that the tournament runner can call it between fits: a
`LeagueState` (each bot's fitted log-strength theta and its variance, the covariances of pairs,
its games and tables, how many tables were chosen since it last played, and how often each pair
met) and the config's `Matchmaking`; out comes a `TableChoice`, the same for the same state, seed
and table number. The ratings are results/ratings.py's fit, handed down as plain numbers: this
layer sits below results and imports none of it.

How a table is scored. For each pair (a, b) at it, the predicted closeness of their game,
4 p (1 - p) with p = 1 / (1 + exp(theta_b - theta_a)) the Plackett-Luce chance that a finishes
ahead of b (1 for equals), times the variance of the difference theta_a - theta_b, times the
chance that the fit has their order wrong (erfc(|difference| / sqrt(2 variance)): 1 while it is a
coin toss, towards 0 once they are told apart): a close game between bots whose order is still
uncertain teaches the ranking most (a cheap stand-in for expected information gain, as TrueSkill's
match quality is). Each pair's share is divided by 1 + `meeting_penalty` x the share of the
less-played bot's tables at which the pair already met, so that the same few bots are not matched
again and again, and weighed by the focus: a pair with a bot ranked within the first
`focus_ranks` (the standings' first page: who leads, who is promoted) weighs 1, the others
`outside_focus`, so that the top of the table is settled first (0 ranks: every rank alike). The
table's score is the sum over its pairs.

Which tables are candidates. Each bot in turn is an anchor, and its table-mates come from the
`window` bots above and below it in rank (shifted at the ends, so the leader meets the 2 x window
bots below it): the information table is the best of them all. Then fairness:
- a bot with fewer games than `starve_ratio` x the median, or that has waited `max_wait_rounds`
  rounds of tables (a round: enough tables for every bot once), is anchored first (`starving`);
- a `fair_share` of tables is anchored on the bot with the fewest games, ties to the longest wait
  (`fairness`), its table-mates still the best of its window: the bots outside the focus keep
  playing, and a bot that entered late catches up;
- a `random_share` of tables is drawn at random from the whole league (`exploration`: a bot rated
  in the wrong place meets bots far from it, and a leader is never out of reach).

A table becomes games as every schedule's tables do: arena/schedule/games.py's `table_games`
plays its bots in `deals` deals, each deal in every seating with the same cards (duplicate play;
3! = 6 games a deal at a table of three), its seeds derived from the bots and a copy number.

Between two fits the runner may choose several tables at once (`choose_tables`): each choice is
counted in the state (`played`), and the variances of its bots shrink by the information its
games are expected to bring, so the next choice looks elsewhere."""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import dataclass, field, replace
from random import Random
from types import MappingProxyType
from typing import Callable, Mapping

from arena.game.seeds import derive_seed
from arena.schedule.games import ScheduleError

INFORMATION, FAIRNESS, STARVING, EXPLORATION = "information", "fairness", "starving", "exploration"
PRIOR_VARIANCE = 4.0  # a bot not yet rated: the fit's prior (results/plackett_luce.py, PRIOR_SD = 2)


def pair(a: str, b: str) -> tuple[str, str]:
    """The key of a pair in the state's mappings: the two names in sorted order."""
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True, slots=True)
class LeagueBot:
    """One bot of the league as the matchmaking sees it."""

    name: str
    theta: float = 0.0  # the fitted log-strength (the prior's 0 before its first game)
    variance: float = PRIOR_VARIANCE  # of theta
    games: int = 0
    tables: int = 0
    waited: int = 0  # tables chosen since it last sat at one (or since it entered)


@dataclass(frozen=True)
class LeagueState:
    """The league at the moment a table is chosen. `covariances`: of the thetas of pairs (by
    `pair`; a pair not given counts 0); `meetings`: tables each pair shared."""

    bots: tuple[LeagueBot, ...]
    covariances: Mapping[tuple[str, str], float] = field(default_factory=dict)
    meetings: Mapping[tuple[str, str], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "covariances", MappingProxyType(dict(self.covariances)))
        object.__setattr__(self, "meetings", MappingProxyType(dict(self.meetings)))

    def ranked(self) -> tuple[LeagueBot, ...]:
        """Best first by theta (ties by name)."""
        return tuple(sorted(self.bots, key=lambda bot: (-bot.theta, bot.name)))


@dataclass(frozen=True, slots=True)
class Matchmaking:
    """The organiser's settings of a league's matchmaking (the module's docstring says each)."""

    table_size: int = 3
    window: int = 4
    fair_share: float = 0.1
    random_share: float = 0.05
    meeting_penalty: float = 1.0
    starve_ratio: float = 0.55
    max_wait_rounds: float = 3.0
    focus_ranks: int = 10  # 0: every rank weighs alike
    outside_focus: float = 0.1


@dataclass(frozen=True, slots=True)
class TableChoice:
    """The bots of the next table (best rated first), why they were chosen, and the figures behind it."""

    bots: tuple[str, ...]
    reason: str  # INFORMATION, FAIRNESS, STARVING or EXPLORATION
    anchor: str  # the bot the table was built around (the first of an exploration table)
    why: str  # the sentence for people
    closeness: float  # the mean predicted closeness of its pairs, 0..1
    variance: float  # the summed variance of its pairs' differences
    score: float  # the sum of closeness x variance over its pairs, after the meeting penalty


def choose_table(state: LeagueState, settings: Matchmaking, seed: int, number: int) -> TableChoice:
    """The league's table number `number` (its count of tables chosen so far), deterministic
    given the state, the settings, the league's seed and that number."""
    _check(state, settings)
    rng = Random(derive_seed(seed, "league table", number))
    draw = rng.random()
    ranked = state.ranked()
    starving = _starving(state, settings)
    if starving is not None:
        return _best_table(state, settings, ranked, [starving[0]], STARVING, starving[1])
    if draw < settings.fair_share:
        owed = min(state.bots, key=lambda bot: (bot.games, -bot.waited, bot.name))
        return _best_table(state, settings, ranked, [owed], FAIRNESS,
                           f"{owed.name} has the fewest games ({owed.games}) and waited {owed.waited} tables")
    if draw < settings.fair_share + settings.random_share:
        drawn = set(rng.sample([bot.name for bot in ranked], settings.table_size))
        bots = tuple(bot.name for bot in ranked if bot.name in drawn)
        return _choice(state, settings, bots, EXPLORATION, bots[0],
                       f"a random table ({settings.random_share:.0%} of tables explore beyond the rank windows)")
    return _best_table(state, settings, ranked, list(ranked), INFORMATION, "")


def choose_tables(state: LeagueState, settings: Matchmaking, seed: int, first_number: int, count: int,
                  games_per_table: int) -> tuple[tuple[TableChoice, ...], LeagueState]:
    """`count` tables chosen one after another from one fit, each counted in the state (`played`)
    before the next; returns them and the state after them."""
    choices = []
    for number in range(first_number, first_number + count):
        choice = choose_table(state, settings, seed, number)
        choices.append(choice)
        state = played(state, choice.bots, games_per_table)
    return tuple(choices), state


def played(state: LeagueState, bots: tuple[str, ...], games: int) -> LeagueState:
    """The state once `bots` played a table of `games` games, before the next fit: their games,
    tables and meetings counted, every other bot's wait one longer, and their variances shrunk by
    the games' expected information (each pair's closeness / 4 per game shared, as a pair's
    Fisher information is p (1 - p)), the covariances of their pairs scaled alike."""
    at = set(bots)
    theta = {bot.name: bot.theta for bot in state.bots}
    shrink = {}
    for name in bots:
        information = games * sum(_closeness(theta[name], theta[other]) / 4 for other in bots if other != name)
        variance = next(bot.variance for bot in state.bots if bot.name == name)
        shrink[name] = 1.0 / (1.0 + variance * information)
    new_bots = tuple(
        replace(bot, games=bot.games + games, tables=bot.tables + 1, waited=0, variance=bot.variance * shrink[bot.name])
        if bot.name in at else replace(bot, waited=bot.waited + 1)
        for bot in state.bots)
    covariances = dict(state.covariances)
    for key, value in state.covariances.items():
        if key[0] in at or key[1] in at:
            covariances[key] = value * math.sqrt(shrink.get(key[0], 1.0) * shrink.get(key[1], 1.0))
    meetings = dict(state.meetings)
    for a, b in itertools.combinations(sorted(bots), 2):
        meetings[(a, b)] = meetings.get((a, b), 0) + 1
    return LeagueState(new_bots, covariances, meetings)


def _check(state: LeagueState, settings: Matchmaking) -> None:
    names = [bot.name for bot in state.bots]
    if len(set(names)) != len(names):
        raise ScheduleError("a league's bots must have distinct names")
    if not 2 <= settings.table_size <= 5:
        raise ScheduleError(f"table size must be 2 to 5, not {settings.table_size}")
    if len(names) < settings.table_size:
        raise ScheduleError(f"a league needs at least {settings.table_size} bots for tables of "
                            f"{settings.table_size}; it has {len(names)}")


def _starving(state: LeagueState, settings: Matchmaking) -> tuple[LeagueBot, str] | None:
    """The bot most owed a table if one is under the floor: too few games, or too long a wait."""
    median = statistics.median(bot.games for bot in state.bots)
    floor = settings.starve_ratio * median
    longest = settings.max_wait_rounds * len(state.bots) / settings.table_size
    owed = [bot for bot in state.bots if bot.games < floor or bot.waited >= longest]
    if not owed:
        return None
    bot = min(owed, key=lambda b: (b.games, -b.waited, b.name))
    if bot.games < floor:
        return bot, f"{bot.name} has {bot.games} games, under {settings.starve_ratio:.0%} of the median {median:g}"
    return bot, f"{bot.name} waited {bot.waited} tables, {settings.max_wait_rounds:g} rounds of the league"


def _best_table(state: LeagueState, settings: Matchmaking, ranked: tuple[LeagueBot, ...], anchors: list[LeagueBot],
                reason: str, because: str) -> TableChoice:
    """The best-scoring table of any anchor's window (ties to the first found, in rank order)."""
    rank = {bot.name: i for i, bot in enumerate(ranked)}
    by_name = {bot.name: bot for bot in ranked}
    best: tuple[float, tuple[str, ...], str] | None = None
    known: dict[tuple[str, str], tuple[float, float, float]] = {}
    weight = _focus(settings, rank)
    seen: set[tuple[str, ...]] = set()
    for anchor in anchors:
        mates = _window(ranked, rank[anchor.name], settings.window, settings.table_size)
        for others in itertools.combinations(mates, settings.table_size - 1):
            bots = tuple(sorted((anchor.name, *others), key=rank.__getitem__))
            if bots in seen:
                continue
            seen.add(bots)
            score = _score(state, by_name, bots, settings.meeting_penalty, known, weight)[2]
            if best is None or score > best[0]:
                best = (score, bots, anchor.name)
    assert best is not None  # a window always holds table_size - 1 mates (_check)
    _, bots, chosen = best
    if reason == INFORMATION:
        because = f"the most to learn about the ranking near {chosen}"
    return _choice(state, settings, bots, reason, chosen, because)


def _focus(settings: Matchmaking, rank: Mapping[str, int]) -> Callable[[str, str], float]:
    """A pair's weight in a table's score: 1 if either bot ranks within the focus, else `outside_focus`."""
    def weight(a: str, b: str) -> float:
        in_focus = not settings.focus_ranks or min(rank[a], rank[b]) < settings.focus_ranks
        return 1.0 if in_focus else settings.outside_focus
    return weight


def _window(ranked: tuple[LeagueBot, ...], at: int, window: int, table_size: int) -> list[str]:
    """The names within `window` ranks of rank `at`, the span shifted at either end to keep its width."""
    width = max(window, table_size - 1)
    low = max(0, min(at - width, len(ranked) - 1 - 2 * width))
    return [bot.name for i, bot in enumerate(ranked[low:low + 2 * width + 1], start=low) if i != at]


def _choice(state: LeagueState, settings: Matchmaking, bots: tuple[str, ...], reason: str, anchor: str,
            because: str) -> TableChoice:
    ranked = state.ranked()
    by_name = {bot.name: bot for bot in ranked}
    weight = _focus(settings, {bot.name: i for i, bot in enumerate(ranked)})
    closeness, variance, score = _score(state, by_name, bots, settings.meeting_penalty, None, weight)
    why = (f"{reason}: {because}; predicted closeness {closeness:.2f}, variance of their differences "
           f"{variance:.3f}, score {score:.3f}")
    return TableChoice(bots, reason, anchor, why, closeness, variance, score)


def _score(state: LeagueState, by_name: Mapping[str, LeagueBot], bots: tuple[str, ...], penalty: float,
           known: dict[tuple[str, str], tuple[float, float, float]] | None = None,
           weight: Callable[[str, str], float] | None = None) -> tuple[float, float, float]:
    """The table's mean closeness, summed difference variance, and score (module docstring);
    `known`: the terms of pairs already worked out for this state (a search scores each pair once);
    `weight`: each pair's weight in the score (the focus), else 1."""
    closeness_sum = variance_sum = score = 0.0
    pairs = list(itertools.combinations(bots, 2))
    for a, b in pairs:
        terms = None if known is None else known.get((a, b))
        if terms is None:
            terms = _pair_terms(state, by_name[a], by_name[b], penalty, 1.0 if weight is None else weight(a, b))
            if known is not None:
                known[(a, b)] = terms
        closeness_sum += terms[0]
        variance_sum += terms[1]
        score += terms[2]
    return closeness_sum / len(pairs), variance_sum, score


def _pair_terms(state: LeagueState, x: LeagueBot, y: LeagueBot, penalty: float,
                weight: float) -> tuple[float, float, float]:
    """A pair's closeness, the variance of its difference, and its share of a table's score: their
    product with the chance their fitted order is wrong (erfc: 1 while it is a coin toss, towards 0
    once they are told apart), over the meeting penalty."""
    close = _closeness(x.theta, y.theta)
    spread = max(x.variance + y.variance - 2 * state.covariances.get(pair(x.name, y.name), 0.0), 0.0)
    unsure = math.erfc(abs(x.theta - y.theta) / math.sqrt(2 * spread)) if spread > 0 else 0.0
    met = state.meetings.get(pair(x.name, y.name), 0) / max(1, min(x.tables, y.tables))
    return close, spread, weight * close * spread * unsure / (1.0 + penalty * met)


def _closeness(theta_a: float, theta_b: float) -> float:
    """4 p (1 - p), p the chance a finishes ahead of b: 1 for equals, towards 0 for a mismatch."""
    p = 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, theta_b - theta_a))))
    return 4.0 * p * (1.0 - p)


__all__ = ["INFORMATION", "FAIRNESS", "STARVING", "EXPLORATION", "PRIOR_VARIANCE", "pair", "LeagueBot",
           "LeagueState", "Matchmaking", "TableChoice", "choose_table", "choose_tables", "played"]
