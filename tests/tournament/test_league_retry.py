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


def _feed(tmp_path, notes: list[str]):
    from arena.results.store import ResultStore
    from arena.tournament.config import load_config
    from arena.tournament.league_run import LeagueLimits
    from arena.tournament.run_plan import RunPlan
    from tests.tournament.league_support import league_config

    config = load_config(league_config(tmp_path, ["heuristic_bot", "random_bot", "shell_bot", "js_bot"], workers=1))
    store = ResultStore(config.database)
    plan = RunPlan(config, {}, None, {}, ())  # type: ignore[arg-type]  # the feed never looks at isolation
    return LeagueFeed(plan, store, LeagueLimits(), on_note=notes.append), store


def _game(bots: tuple[str, ...], no_hello: str | None = None):
    from arena.play.records import Fault, FaultKind
    from arena.schedule.games import GameSpec

    faults = () if no_hello is None else (Fault(bots.index(no_hello), FaultKind.NO_HELLO, "not reached", 0),)
    return GameSpec("t0999-d0001-s00", 999, 1, 0, bots, 1, 0), SimpleNamespace(bots=bots, faults=faults)


def test_a_bot_charged_no_hello_is_held_until_its_try_and_a_game_it_plays_brings_it_back(tmp_path, monkeypatch):
    """A bot charged `no_hello` (a service out of reach after its window) is paused, as a void game
    pauses it: it is seated at no table until its try is due, then tried; a game it plays brings it
    back. Before, each charged game brought it back, and the league seated it at table after table,
    each game waiting out its start-up limit (an organiser saw one worker held for 40 s a table)."""
    import arena.tournament.league_run as league_run

    now = [1000.0]
    monkeypatch.setattr(league_run.time, "monotonic", lambda: now[0])
    notes: list[str] = []
    feed, store = _feed(tmp_path, notes)
    try:
        seated = ("js_bot", "random_bot", "shell_bot")
        feed.played(*_game(seated, no_hello="js_bot"))  # type: ignore[arg-type]
        assert "js_bot" in feed.paused and any("js_bot was not reached" in note for note in notes), notes
        handed = [feed.next() for _ in range(5)]
        assert all("js_bot" not in table.entries for table in handed), handed  # type: ignore[union-attr]
        for _ in handed:
            feed.done()
        now[0] += feed._retry_after(0)  # its try is due: its held table, or, with none, a seat again
        tried = feed.next()
        assert "js_bot" in tried.entries or "js_bot" not in feed.paused, tried  # type: ignore[union-attr]
        feed.played(*_game(seated))  # type: ignore[arg-type]  # it played: back
        assert "js_bot" not in feed.paused and "js_bot" not in feed._tries
        assert any("js_bot is back" in note for note in notes), notes
    finally:
        store.close()
