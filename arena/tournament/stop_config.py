"""The config's early-stopping keys (`stop = "sprt"` and its `sprt_*` settings), checked together
with messages that name the file and the key (each key's own parser: config_keys.py; the test
itself: arena/results/sprt.py)."""

from __future__ import annotations

from typing import Any

from arena.results.sprt import MIN_DEAL_SETS, SprtSettings
from arena.schedule.kinds import Gauntlet, schedule_kind
from arena.tournament.config_keys import BY_NAME, ConfigError, KeyWords

SPRT_KEYS = ("sprt_delta1", "sprt_delta0", "sprt_alpha", "sprt_beta")


def stop_settings(data: dict[str, Any], given: dict[str, Any], words: KeyWords) -> SprtSettings | None:
    """The SPRT settings of a config (None without `stop = "sprt"`); `given`: its parsed top keys."""
    named = [key for key in SPRT_KEYS if key in data]
    if given["stop"] == "none":
        if named:
            raise words.error(named[0], f"only used with {words.setting('stop', 'sprt')}; set "
                              f"{words.setting('stop', 'sprt')} or drop the key")
        return None
    if not schedule_kind(given["schedule"]).takes_challengers or (given["challengers"] or 1) > 2:
        raise words.error("stop", "the SPRT compares a challenger with a baseline: it needs "
                          f"{words.setting('schedule', Gauntlet.name)} with 1 challenger (against the field) or 2 "
                          "(the first against the second)")
    if given["sprt_delta1"] is None:
        raise ConfigError(f"{words.where('sprt_delta1')} is missing: {words.setting('stop', 'sprt')} needs "
                          f"{BY_NAME['sprt_delta1'].expected}")
    delta0, delta1 = given["sprt_delta0"], given["sprt_delta1"]
    if delta1 <= delta0:
        raise words.error("sprt_delta1", f"expected a number of points per game above sprt_delta0 ({delta0:g}), "
                          f"got {delta1:g}")
    if given["deals"] < MIN_DEAL_SETS:
        raise words.error("deals", f"the SPRT decides from {MIN_DEAL_SETS} deal sets on, so "
                          f"{words.setting('stop', 'sprt')} needs deals = {MIN_DEAL_SETS} or more (it stops as soon "
                          f"as it decides), got {given['deals']}")
    return SprtSettings(delta1=delta1, delta0=delta0, alpha=given["sprt_alpha"], beta=given["sprt_beta"])


__all__ = ["SPRT_KEYS", "stop_settings"]
