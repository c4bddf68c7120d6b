"""A run is decided once (issue 41): the session finds the isolation and makes the run's record a
single time, and hands them down in a frozen RunPlan; the runner and the local pool act on the
plan as given and probe nothing again."""

from __future__ import annotations

import dataclasses
import json

import pytest

import arena.sandbox.isolation as isolation_module
from arena.results.store import ResultStore
from arena.sandbox.isolation import Isolation
from arena.tournament.config import load_config, load_entries
from arena.tournament.run_plan import RunPlan, plan_run
from arena.tournament.runner import run_tournament
from arena.tournament.session import RunOptions, TournamentSession
from tests.db_support import connected

BOTS = 'seed = 5\nbots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 1\nworkers = 1\n'


def stored_isolations(database) -> list[dict]:
    with connected(database) as db:
        return [json.loads(extra)["isolation"] for (extra,) in db.execute("SELECT extra FROM games")]


def test_a_run_probes_its_isolation_once_and_every_game_records_what_was_found(tmp_path, monkeypatch):
    probes = []

    def probe() -> Isolation:
        probes.append(1)
        return Isolation(why_not=f"the test's probe number {len(probes)}")

    monkeypatch.setattr(isolation_module, "_probe", probe)
    config = tmp_path / "t.toml"
    config.write_text(BOTS)
    said: list[str] = []
    with TournamentSession(config, RunOptions(), say=said.append) as session:
        assert isinstance(session.plan, RunPlan) and session.plan.isolation.why_not == "the test's probe number 1"
        assert session.plan.record["isolation"] == {"tool": "none", "why": "the test's probe number 1"}
        outcome = session.play()
    assert outcome.summary.played == 6
    assert len(probes) == 1  # the session's; not the runner's, the pool's or a bot start's again
    assert said[0] == "isolation: none: bots can read whatever the arena's user can (the test's probe number 1)"
    assert stored_isolations(tmp_path / "t.sqlite") == [{"tool": "none", "why": "the test's probe number 1"}] * 6


def test_the_runner_and_its_pool_play_the_plan_as_given_and_probe_nothing(tmp_path, monkeypatch):
    config_path = tmp_path / "t.toml"
    config_path.write_text(BOTS)
    config, manifests = load_entries(load_config(config_path))
    given = Isolation(why_not="given by the plan")
    plan = plan_run(config, manifests, isolation=given)

    def no_probe() -> Isolation:
        raise AssertionError("the isolation was probed again below the plan")

    monkeypatch.setattr(isolation_module, "_probe", no_probe)
    with ResultStore(config.database) as store:
        summary = run_tournament(plan, store)
    assert summary.played == 6
    assert stored_isolations(config.database) == [given.record()] * 6


def test_an_sprt_wave_is_the_same_plan_for_fewer_tables_and_a_plan_cannot_change(tmp_path):
    config_path = tmp_path / "t.toml"
    config_path.write_text(BOTS)
    config, manifests = load_entries(load_config(config_path))
    plan = plan_run(config, manifests, isolation=Isolation(why_not="given"), workers=2)
    wave = plan.with_tables(plan.tables[:1])
    assert wave.tables == plan.tables[:1] and wave.record is plan.record and wave.isolation is plan.isolation
    assert (wave.worker_count(1), plan.worker_count(5)) == (1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.workers = 3  # type: ignore[misc]
