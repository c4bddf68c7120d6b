"""The ratings' checkpoint (arena/results/rating_checkpoint.py): a report rates only the games beyond
it, and gets the full pass's ratings and timeline float for float, however the games were stored,
resumed, resubmitted, withdrawn or grown (issue 34).

The checkpoint serves a large tournament's timeline from its snapshots; the tests shrink the
snapshot interval and the timeline's size so that a few hundred games are "large"."""

from __future__ import annotations

import json
import random
import shutil

import pytest

from arena.game import Rules, game_points
from arena.play.records import GameRecord
from arena.play.selfplay import play_random_game
from arena.results import rating_checkpoint, standings
from arena.results.ratings import in_game_order
from arena.results.store import ResultStore
from arena.schedule.numbers import GameNumbers
from arena.schedule.tables import round_robin
from arena.tournament.runner import SettledNumbers

pytest.importorskip("openskill")


@pytest.fixture(autouse=True)
def small_snapshots(monkeypatch):
    monkeypatch.setattr(rating_checkpoint, "SNAPSHOT", 2)
    monkeypatch.setattr(standings, "TIMELINE_POINTS", 12)


def full_pass(store, numbers, monkeypatch):
    """The ratings and timeline with no checkpoint at all: every game, in number order."""
    with monkeypatch.context() as patch:
        patch.setattr(rating_checkpoint, "load", lambda db, numbering: None)
        return in_game_order(store, numbers)


def stored_checkpoint(store, numbers):
    with store._read() as db:
        return rating_checkpoint.load(db, f"{numbers.layout}:{numbers.seatings}")


def test_a_shuffled_store_rated_from_checkpoints_as_it_fills_equals_the_full_pass(tmp_path, monkeypatch):
    tables = round_robin(["a", "b", "c", "d", "e"], 3, 3, seed=5)
    numbers = GameNumbers(len(tables), 3, 6)
    specs = [game for table in tables for game in table.games]
    random.Random(4).shuffle(specs)  # as workers finish them
    settled = SettledNumbers(numbers, tables)
    store = ResultStore(tmp_path / "r.db")
    rules = Rules()
    advanced = []
    try:
        for first in range(0, len(specs), 25):
            for spec in specs[first:first + 25]:
                g = play_random_game(rules, spec.seed ^ spec.seating, spec.dealer)
                store.add_game(spec, GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, rules), (),
                                                ((0.001,),) * 3, len(g.moves)), {})
                settled.stored(spec)
            got = in_game_order(store, numbers, settled.upto)
            assert got == full_pass(store, numbers, monkeypatch)
            checkpoint = stored_checkpoint(store, numbers)
            advanced.append(0 if checkpoint is None else checkpoint.games)
            assert in_game_order(store, numbers) == got  # read again from the checkpoint alone
        assert advanced[-1] == len(specs) and settled.upto == numbers.highest
        assert 0 < min(games for games in advanced if games) < len(specs)  # it settled part way too
    finally:
        store.close()


def test_a_checkpoint_that_no_longer_fits_is_not_used(tmp_path, monkeypatch):
    tables = round_robin(["a", "b", "c", "d"], 3, 2, seed=9)
    numbers = GameNumbers(len(tables), 2, 6)
    specs = [game for table in tables for game in table.games]
    store = ResultStore(tmp_path / "r.db")
    rules = Rules()

    def add(spec, salt=0):
        g = play_random_game(rules, spec.seed ^ spec.seating ^ salt, spec.dealer)
        store.add_game(spec, GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, rules), (),
                                        ((0.001,),) * 3, len(g.moves)), {})

    try:
        for spec in specs[:30]:
            add(spec)
        in_game_order(store, numbers, numbers.number(0, 0, 0) + 1000)  # a wrong promise: settles past games to come
        for spec in specs[30:]:
            add(spec)  # numbered below the checkpoint's bound: it no longer describes the file
        assert in_game_order(store, numbers) == full_pass(store, numbers, monkeypatch)
    finally:
        store.close()


# ---- a real tournament: stored, resumed, resubmitted, withdrawn, grown -----------------------

def _ratings_json(config):
    from tests.cli_support import invoke

    shown = invoke("standings", str(config), "--format", "json")
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.output)
    return {b["bot"]: (b["mu"], b["sigma"]) for b in data["bots"]}, data["timeline"]


def _full_pass_json(config, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(rating_checkpoint, "load", lambda db, numbering: None)
        patch.setattr(rating_checkpoint, "save", lambda path, checkpoint: False)
        return _ratings_json(config)


def test_a_tournaments_reports_equal_the_full_pass_through_resubmission_withdrawal_and_growth(tmp_path, monkeypatch):
    from tests.tournament.test_resubmission import put_bot, run, tournament

    folder = tmp_path / "league"
    put_bot(folder / "mybot", "mybot", "random_bot")
    bots = ["heuristic_bot", "random_bot", "shell_bot", "./mybot"]
    config = tournament(folder, bots, deals=2)

    def agree() -> None:
        reported = _ratings_json(config)
        assert reported == _full_pass_json(config, monkeypatch)
        assert _ratings_json(config) == reported  # again, from the checkpoint it left

    assert run(config)[0] == 0
    agree()
    with ResultStore(folder / "t.sqlite", read_only=True) as store:
        with store._read() as db:
            assert db.execute("SELECT COUNT(*) FROM rating_checkpoint").fetchone()[0] == 1

    put_bot(folder / "mybot", "mybot", "heuristic_bot")  # resubmitted: its games are played again
    assert run(config, "--update")[0] == 0
    agree()

    tournament(folder, bots[:3], deals=2)  # withdrawn
    assert run(config, "--update")[0] == 0
    agree()

    tournament(folder, bots, deals=3)  # back, and a deal more: new games numbered among the old
    assert run(config, "--update")[0] == 0
    agree()
    shutil.rmtree(folder / "mybot")
