"""How long a paused bot waits for its next try in a league (tournament/league_run.py): its retry
window, then twice as long after each try that did not bring it back, never more than an hour, and
never nothing (a window of 0 would try it at every table). The first try in a real league is in
tests/tournament/test_league_edges.py."""

from __future__ import annotations

from types import SimpleNamespace

from arena.tournament.league_run import RETRY_CAP_S, LeagueFeed


def _waits(window_s: float, tries: int) -> list[float]:
    feed = SimpleNamespace(plan=SimpleNamespace(config=SimpleNamespace(start_retry_s=window_s)))
    return [LeagueFeed._retry_after(feed, made) for made in range(tries)]  # type: ignore[arg-type]


def test_a_paused_league_bot_waits_its_window_then_twice_as_long_each_try_up_to_an_hour():
    assert _waits(120.0, 7) == [120, 240, 480, 960, 1920, RETRY_CAP_S, RETRY_CAP_S] and RETRY_CAP_S == 3600


def test_a_window_of_nothing_still_waits_a_second_then_longer():
    assert _waits(0.0, 4) == [1, 2, 4, 8]
