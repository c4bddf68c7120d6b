"""Issue 33: a gauntlet's challengers meet each field combination with the same cards, so the
SPRT's difference per deal set carries no luck of the deal. Played in process by the players of
benchmarks/sprt_pairing.py (which measures the same on more deals, for docs/organising.md)."""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path

from arena.schedule.games import SEEDS_BY_BOTS, SEEDS_BY_FIELD

ROOT = Path(__file__).resolve().parents[2]


def _pairing():
    spec = importlib.util.spec_from_file_location("sprt_pairing", ROOT / "benchmarks" / "sprt_pairing.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_identical_deterministic_challengers_differ_by_nothing_on_paired_cards_and_by_luck_on_unpaired():
    pairing = _pairing()
    kinds = pairing.SCENARIOS["two identical heuristics, deterministic field"]
    paired = pairing.differences(kinds, 20, 3, SEEDS_BY_FIELD)
    unpaired = pairing.differences(kinds, 20, 3, SEEDS_BY_BOTS)
    assert set(paired) == {0.0}
    assert statistics.variance(unpaired) > 0.005  # the old seeds: each table its own cards
