"""Leagues with known strengths for the ratings' tests: Plackett-Luce finishing orders drawn with
numpy (the Gumbel trick: sorting strength plus Gumbel noise draws a Plackett-Luce order exactly),
and the same orders stored as games in a results file, fast (one real game's record, its
finishing order and points replaced)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import zlib

import numpy as np

from arena.game import Rules, game_points
from arena.play.records import GameRecord
from arena.play.selfplay import play_random_game
from arena.results.rows import compress_transcript, encode_game
from arena.results.store import ResultStore
from arena.schedule.games import table_games


def league_orders(theta: np.ndarray, games: int, rng: np.random.Generator, table_size: int = 3) -> np.ndarray:
    """(games, table_size) bot indices in finishing order, first out first: each game at a table of
    distinct bots drawn at random, its order a Plackett-Luce draw with strengths exp(theta)."""
    tables = np.array(list(itertools.combinations(range(len(theta)), table_size)))
    seated = tables[rng.integers(0, len(tables), games)]
    noise = rng.gumbel(size=seated.shape)
    return np.take_along_axis(seated, np.argsort(-(theta[seated] + noise), axis=1), axis=1)


def stored_league(path, names: list[str], theta: np.ndarray, deals: int, seed: int = 5,
                  order=None) -> ResultStore:
    """A results file of a round robin of `names` at tables of 3 over `deals` deals, each game's
    finishing order a Plackett-Luce draw of its own (the same whatever the order); `order`: a
    function that reorders the specs before they are stored (the order a run stores them in)."""
    rules = Rules()
    game = play_random_game(rules, 1, 0)
    blob = compress_transcript(game.transcript)
    specs = [spec for index, bots in enumerate(itertools.combinations(names, 3))
             for spec in table_games(index, bots, deals, 42)]
    if order is not None:
        specs = order(specs)
    strength = dict(zip(names, theta))
    encoded = []
    for spec in specs:
        noise = np.random.default_rng([seed, zlib.crc32(spec.key.encode())]).gumbel(size=3)
        keys = np.array([strength[name] for name in spec.bots]) + noise
        finishing = tuple(int(seat) for seat in np.argsort(-keys))
        outcome = dataclasses.replace(game.outcome, finishing_order=finishing)
        record = GameRecord(1, spec.bots, outcome, game.transcript, game_points(outcome, rules), (),
                            ((0.001,),) * 3, len(game.moves))
        encoded.append(encode_game(spec, record, {}, transcript_blob=blob))
    store = ResultStore(path)
    for first in range(0, len(encoded), 5000):
        store.add_encoded(encoded[first:first + 5000])
    return store


def centred(theta: np.ndarray) -> np.ndarray:
    return theta - theta.mean()


ELO = 400 / math.log(10)  # rating points per unit of log-strength
