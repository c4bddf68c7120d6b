"""stop = "sprt" (arena/tournament/early_stop.py): a real gauntlet of two challengers is decided in
deal order, the same with one worker or two; the config's keys are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.results.sprt import H1, MIN_DEAL_SETS
from arena.results.store import ResultStore
from arena.tournament.config import ConfigError, config_from_dict, load_config, load_entries
from arena.tournament.early_stop import WAVE_DEALS, run_until_decided, sprt_state, sprt_tables
from arena.tournament.run_plan import plan_run
from arena.tournament.runner import build_schedule
from tests.load_support import GENEROUS_LIMITS


def write(tmp_path: Path, name: str) -> Path:
    # Tables of two: each challenger meets shell_bot alone, so a deal set is 2 tables x 2 seatings.
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\nseed = 9\ntable_size = 2\ndeals = 200\nschedule = "gauntlet"\n'
                    'challengers = 2\nbots = ["heuristic_bot", "random_bot", "shell_bot"]\n'
                    'stop = "sprt"\nsprt_delta1 = 0.05\n' + GENEROUS_LIMITS)
    return path


def run(path: Path, workers: int):
    config, manifests = load_entries(load_config(path))
    tables = build_schedule(config)
    with ResultStore(config.database) as store:
        summary, state = run_until_decided(plan_run(config, manifests, tables=tables, workers=workers), store)
        keys = store.done_keys()
        again = sprt_state(store, config, sprt_tables(config))  # read back from the file, as a report does
    return summary, state, keys, again


@pytest.fixture(scope="module")
def decided(tmp_path_factory) -> tuple[Path, tuple]:
    """The gauntlet run to its decision by one worker, once for the tests of this module that read it
    (a rerun of a decided run writes nothing)."""
    path = write(tmp_path_factory.mktemp("sprt"), "one")
    return path, run(path, 1)


def test_heuristic_beats_random_decided_early_and_the_same_with_any_number_of_workers(decided, tmp_path):
    _, one = decided
    two = run(write(tmp_path, "two"), 2)
    summary, state, keys, again = one
    assert state.decision == H1 and state.challenger == "heuristic_bot" and state.baseline == "random_bot"
    assert MIN_DEAL_SETS <= state.deal_sets < 200 and state.games == 4 * state.deal_sets
    # Played: whole waves up to the deciding deal, nothing beyond.
    waves = -(-state.deal_sets // WAVE_DEALS)
    assert summary.played == len(keys) == 4 * WAVE_DEALS * waves
    assert again == state
    assert two[1] == state and two[2] == keys  # same decision, same deal, same games


def test_a_decided_run_plays_nothing_more(decided):
    path, first = decided
    summary, state, keys, _ = run(path, 1)
    assert summary.played == 0 and state == first[1] and keys == first[2]


@pytest.mark.parametrize("extra, message", [
    ({"stop": "early"}, "key 'stop': expected none or sprt"),
    ({"stop": "sprt"}, "key 'sprt_delta1' is missing"),
    ({"stop": "sprt", "sprt_delta1": 0.1, "sprt_alpha": 0.7}, "key 'sprt_alpha'"),
    ({"stop": "sprt", "sprt_delta1": -0.1}, "key 'sprt_delta1'"),
    ({"sprt_delta1": 0.1}, 'only used with stop = "sprt"'),
    ({"stop": "sprt", "sprt_delta1": 0.1, "deals": 5}, "key 'deals': the SPRT decides from 20 deal sets on"),
])
def test_config_keys_are_checked(extra, message):
    data = {"bots": ["a", "b", "c", "d"], "schedule": "gauntlet", "challengers": 2, "deals": 40, **extra}
    with pytest.raises(ConfigError, match=message):
        config_from_dict(data, Path("t/s.toml"))


def test_sprt_needs_a_gauntlet_of_one_or_two_challengers():
    with pytest.raises(ConfigError, match="needs schedule = \"gauntlet\""):
        config_from_dict({"bots": ["a", "b", "c"], "stop": "sprt", "sprt_delta1": 0.1, "deals": 40}, Path("t/s.toml"))
    config = config_from_dict({"bots": ["a", "b", "c"], "schedule": "gauntlet", "stop": "sprt", "deals": 40,
                               "sprt_delta1": 0.1}, Path("t/s.toml"))
    assert config.sprt is not None and config.sprt.delta1 == 0.1 and config.sprt.alpha == 0.05


def test_one_challenger_is_tested_against_the_field_deal_set_by_deal_set(tmp_path):
    from arena.game import Rules, game_points
    from arena.play.records import GameRecord
    from arena.play.selfplay import play_random_game

    config = config_from_dict({"bots": ["a", "b", "c", "d"], "schedule": "gauntlet", "deals": 20, "stop": "sprt",
                               "sprt_delta1": 0.1}, tmp_path / "g.toml")
    tables = build_schedule(config)
    rules = Rules()
    expected = []
    with ResultStore(tmp_path / "g.sqlite") as store:
        for deal in range(5):  # deal 5 left unplayed: the test reads deals 0-4 only
            mine, field = [], []
            for table in tables:
                for spec in (g for g in table.games if g.deal == deal):
                    game = play_random_game(rules, spec.seed ^ spec.seating, spec.dealer)
                    points = game_points(game.outcome, rules)
                    store.add_game(spec, GameRecord(1, spec.bots, game.outcome, game.transcript, points, (),
                                                    ((0.001,),) * 3, len(game.moves)), {})
                    for seat, name in enumerate(spec.bots):
                        (mine if name == "a" else field).append(points[seat])
            expected.append(sum(mine) / len(mine) - sum(field) / len(field))
        state = sprt_state(store, config, sprt_tables(config))
    assert state.challenger == "a" and state.baseline == "the field"
    assert state.deal_sets == 5 and state.games == 5 * len(tables) * 6
    assert state.mean_difference == pytest.approx(sum(expected) / 5)
    assert not state.decided  # fewer than MIN_DEAL_SETS


def test_two_identical_challengers_decide_h0_at_the_first_deal_set_the_test_may(tmp_path):
    """Issue 33: the challengers get the same cards in the same seats, so two copies of the same
    deterministic code differ by nothing on every deal set, and the test says H0 at once."""
    import shutil

    from arena.results.sprt import H0
    from arena.submission.lookup import BUNDLED_BOTS_DIR

    for copy in ("twin_a", "twin_b"):
        shutil.copytree(BUNDLED_BOTS_DIR / "heuristic_bot", tmp_path / copy)
        manifest = tmp_path / copy / "bot.toml"
        manifest.write_text(manifest.read_text().replace('name = "heuristic_bot"', f'name = "{copy}"'))
    path = tmp_path / "twins.toml"
    path.write_text('name = "twins"\nseed = 4\ntable_size = 2\ndeals = 200\nschedule = "gauntlet"\n'
                    'challengers = 2\nbots = ["twin_a", "twin_b", "shell_bot"]\nstop = "sprt"\nsprt_delta1 = 0.05\n'
                    + GENEROUS_LIMITS)
    summary, state, keys, again = run(path, 1)
    assert state.decision == H0 and state.deal_sets == MIN_DEAL_SETS and state.mean_difference == 0.0
    assert state.no_spread and again == state


@pytest.mark.parametrize("size, challengers, withdrawn", [(2, 2, ()), (3, 1, ()), (3, 2, ("e",)), (4, 1, ("b",))])
def test_the_tests_tables_are_the_schedules_without_laying_out_its_games(tmp_path, size, challengers, withdrawn):
    """sprt_tables gives each table's bots as build_schedule lays them out (a withdrawn bot's left
    out), and every table plays size! seatings of each deal, as sprt_state counts them."""
    import dataclasses
    import math

    config = config_from_dict({"name": "g", "seed": 3, "deals": 20, "table_size": size, "schedule": "gauntlet",
                               "challengers": challengers, "bots": ["a", "b", "c", "d", "e"], "stop": "sprt",
                               "sprt_delta1": 0.1}, tmp_path / "g.toml")
    config = dataclasses.replace(config, withdrawn=withdrawn)  # as the stored fingerprint says
    tables = build_schedule(config)
    assert sprt_tables(config) == [table.entries for table in tables] and tables
    assert all(len(table.games) == 20 * math.factorial(size) for table in tables)
