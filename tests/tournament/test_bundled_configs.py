"""The configs under tournaments/ load, name bundled bots, and schedule what their comments say."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.tournament.runner import build_schedule
from arena.tournament.config import load_config, load_entries

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "tournaments").glob("*.toml"))


def test_the_demo_and_the_gauntlet_example_are_there():
    assert {p.name for p in CONFIGS} >= {"demo.toml", "gauntlet.toml"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_a_bundled_config_loads_and_its_schedule_seats_only_its_bots(path):
    config, manifests = load_entries(load_config(path))
    tables = build_schedule(config)
    assert len(tables) == config.table_count()
    if config.kind.open_ended:  # a league lays out no table ahead: each is chosen as it plays
        assert tables == [] and set(config.bots) == set(manifests)
        return
    assert {bot for table in tables for bot in table.entries} == set(config.bots) == set(manifests)


def test_the_gauntlet_example_plays_everybody_phase1_with_its_challenger_at_every_table():
    config, _ = load_entries(load_config(next(p for p in CONFIGS if p.name == "gauntlet.toml")))
    assert config.rules.phase1_mode.value == "all" and config.kind.takes_challengers
    assert all(table.entries[0] == "heuristic_bot" for table in build_schedule(config))
