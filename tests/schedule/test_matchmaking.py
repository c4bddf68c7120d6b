"""A league's matchmaking (issue 43, arena/schedule/matchmaking.py): the same table for the same
state and seed, tables of the config's size and distinct bots, no bot starving, a pair that met
often kept apart, a sentence that names the reason, and a league too small refused in words."""

from __future__ import annotations

import statistics

import pytest

from arena.schedule.games import ScheduleError
from arena.schedule.matchmaking import (EXPLORATION, FAIRNESS, INFORMATION, STARVING, LeagueBot, LeagueState,
                                        Matchmaking, choose_table, choose_tables, pair, played)


def _league(count: int, variance: float = 0.3) -> LeagueState:
    """`count` bots rated 0.1 apart in log-strength (b00 the best), each as uncertain."""
    return LeagueState(tuple(LeagueBot(f"b{i:02d}", theta=-0.1 * i, variance=variance) for i in range(count)))


def test_the_same_state_seed_and_number_choose_the_same_tables_and_another_seed_differs():
    first, _ = choose_tables(_league(20), Matchmaking(), 7, 0, 60, 6)
    again, _ = choose_tables(_league(20), Matchmaking(), 7, 0, 60, 6)
    other, _ = choose_tables(_league(20), Matchmaking(), 8, 0, 60, 6)
    assert first == again
    assert [c.bots for c in first] != [c.bots for c in other]


@pytest.mark.parametrize("table_size", [2, 3, 4, 5])
def test_tables_have_the_configs_size_and_distinct_bots_of_the_league(table_size):
    state = _league(12)
    names = {bot.name for bot in state.bots}
    choices, _ = choose_tables(state, Matchmaking(table_size=table_size), 3, 0, 80, 6)
    for choice in choices:
        assert len(choice.bots) == table_size == len(set(choice.bots))
        assert set(choice.bots) <= names


def test_no_bot_starves_over_many_tables_even_when_the_top_holds_all_the_uncertainty():
    # The bottom 20 bots are all but certain, so the information alone would never seat them.
    bots = tuple(LeagueBot(f"b{i:02d}", theta=-0.1 * i, variance=0.5 if i < 10 else 1e-6) for i in range(30))
    choices, state = choose_tables(LeagueState(bots), Matchmaking(), 11, 0, 600, 6)
    games = [bot.games for bot in state.bots]
    assert min(games) >= 0.5 * statistics.median(games), games
    assert max(bot.waited for bot in state.bots) < 3 * 30 / 3
    reasons = {choice.reason for choice in choices}
    assert {INFORMATION, FAIRNESS, STARVING, EXPLORATION} <= reasons


def test_a_bot_under_the_floor_of_games_is_seated_first_and_the_why_says_so():
    state = _league(9)
    for bots in [("b00", "b01", "b02"), ("b03", "b04", "b05")] * 4:
        state = played(state, bots, 6)
    choice = choose_table(state, Matchmaking(), 1, 0)
    assert choice.reason == STARVING
    assert choice.anchor in choice.bots and choice.anchor in ("b06", "b07", "b08")
    assert choice.why.startswith("starving: ") and f"{choice.anchor} has 0 games, under 55% of the median 24" in choice.why


def test_a_pair_that_met_often_is_penalised_and_another_table_is_chosen():
    base = _league(3 + 3)
    fresh = choose_table(base, Matchmaking(table_size=2, fair_share=0, random_share=0, focus_ranks=0), 1, 0)
    a, b = fresh.bots
    counted = tuple(LeagueBot(bot.name, bot.theta, bot.variance, 60, 10) for bot in base.bots)
    often = LeagueState(counted, meetings={pair(a, b): 10})
    settings = Matchmaking(table_size=2, fair_share=0, random_share=0, focus_ranks=0)
    again = choose_table(often, settings, 1, 0)
    assert set(again.bots) != {a, b}
    never = choose_table(LeagueState(counted), settings, 1, 0)
    assert set(never.bots) == {a, b}


def test_the_information_table_is_the_closest_uncertain_one_and_its_why_gives_the_figures():
    bots = (LeagueBot("sure_a", 2.0, 0.001), LeagueBot("sure_b", 1.0, 0.001), LeagueBot("open_a", 0.0, 0.5),
            LeagueBot("open_b", -0.05, 0.5), LeagueBot("open_c", -0.1, 0.5), LeagueBot("far", -3.0, 0.5))
    choice = choose_table(LeagueState(bots), Matchmaking(fair_share=0, random_share=0), 2, 0)
    assert choice.bots == ("open_a", "open_b", "open_c") and choice.reason == INFORMATION
    assert choice.why.startswith("information: the most to learn about the ranking near ")
    assert f"predicted closeness {choice.closeness:.2f}" in choice.why and choice.closeness > 0.99
    assert f"variance of their differences {choice.variance:.3f}" in choice.why


def test_played_counts_the_table_and_narrows_its_bots_variances_until_the_next_fit():
    state = played(_league(5), ("b00", "b01", "b02"), 6)
    by_name = {bot.name: bot for bot in state.bots}
    assert [by_name[n].games for n in ("b00", "b01", "b02", "b03")] == [6, 6, 6, 0]
    assert by_name["b03"].waited == 1 and by_name["b00"].waited == 0
    assert by_name["b00"].variance < 0.3 and by_name["b03"].variance == 0.3
    assert state.meetings[pair("b01", "b00")] == 1 and pair("b03", "b04") not in state.meetings


@pytest.mark.parametrize("count,size", [(2, 3), (0, 3), (4, 5)])
def test_a_league_of_fewer_bots_than_a_table_is_refused_in_words(count, size):
    with pytest.raises(ScheduleError, match=f"a league needs at least {size} bots for tables of {size}; "
                                            f"it has {count}"):
        choose_table(_league(count), Matchmaking(table_size=size), 1, 0)


def test_a_table_size_outside_the_rules_and_twin_names_are_refused():
    with pytest.raises(ScheduleError, match="table size must be 2 to 5, not 6"):
        choose_table(_league(10), Matchmaking(table_size=6), 1, 0)
    with pytest.raises(ScheduleError, match="distinct names"):
        choose_table(LeagueState((LeagueBot("x"), LeagueBot("x"), LeagueBot("y"))), Matchmaking(), 1, 0)


def test_the_state_is_frozen():
    state = played(_league(4), ("b00", "b01", "b02"), 6)
    with pytest.raises(TypeError):
        state.meetings[pair("b00", "b01")] = 5  # type: ignore[index]
