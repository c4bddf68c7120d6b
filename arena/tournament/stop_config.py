"""The config's early-stopping keys (`stop = "sprt"` and its `sprt_*` settings), checked with
messages that name the file and the key (arena/results/sprt.py: the test itself)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.results.sprt import MIN_DEAL_SETS, SprtSettings
from arena.schedule.kinds import Gauntlet, schedule_kind
from arena.wording import as_written

STOP_KEYS = {
    "stop": 'none or sprt: "sprt" plays deals until the sequential test decides (gauntlet only, docs/organising.md)',
    "sprt_delta1": "a number of points per game above sprt_delta0: the smallest improvement worth finding",
    "sprt_delta0": "a number of points per game (default 0): an improvement of no interest",
    "sprt_alpha": "a number between 0 and 0.5 (default 0.05): the false-alarm rate",
    "sprt_beta": "a number between 0 and 0.5 (default 0.05): the rate of missing a real improvement",
}


def stop_settings(data: dict[str, Any], path: Path, schedule: str, challengers: int | None, error) -> SprtSettings | None:
    """The SPRT settings of a config (None without `stop = "sprt"`); `error` builds the ConfigError."""
    stop = data.get("stop", "none")
    if stop not in ("none", "sprt"):
        raise error(f"{path}: key 'stop': expected {STOP_KEYS['stop']}, got {stop!r}")
    given = [key for key in STOP_KEYS if key.startswith("sprt_") and key in data]
    if stop == "none":
        if given:
            raise error(f"{path}: key {given[0]!r}: only used with stop = \"sprt\"; set stop = \"sprt\" or drop the key")
        return None
    if not schedule_kind(schedule).takes_challengers or (challengers or 1) > 2:
        raise error(f"{path}: key 'stop': the SPRT compares a challenger with a baseline: it needs "
                    f'schedule = "{Gauntlet.name}" with 1 challenger (against the field) or 2 (the first against the second)')
    if "sprt_delta1" not in data:
        raise error(f"{path}: key 'sprt_delta1' is missing: stop = \"sprt\" needs {STOP_KEYS['sprt_delta1']}")

    def number(key: str, default: float, low: float, high: float) -> float:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low < value < high:
            raise error(f"{path}: key {key!r}: expected {STOP_KEYS[key]}, got {as_written(value)}")
        return float(value)

    delta0 = number("sprt_delta0", 0.0, -100.0, 100.0)
    delta1 = number("sprt_delta1", 0.0, -100.0, 100.0)
    if delta1 <= delta0:
        raise error(f"{path}: key 'sprt_delta1': expected a number of points per game above sprt_delta0 "
                    f"({delta0:g}), got {delta1:g}")
    settings = SprtSettings(delta1=delta1, delta0=delta0, alpha=number("sprt_alpha", 0.05, 0.0, 0.5),
                            beta=number("sprt_beta", 0.05, 0.0, 0.5))
    deals = data.get("deals", 1)
    if isinstance(deals, int) and not isinstance(deals, bool) and deals < MIN_DEAL_SETS:
        raise error(f"{path}: key 'deals': the SPRT decides from {MIN_DEAL_SETS} deal sets on, so stop = \"sprt\" "
                    f"needs deals = {MIN_DEAL_SETS} or more (it stops as soon as it decides), got {deals}")
    return settings


__all__ = ["STOP_KEYS", "stop_settings"]
