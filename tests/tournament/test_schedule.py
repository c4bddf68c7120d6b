"""Round-robin and balanced schedules: counts, seat balance, seeds independent of play order."""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import pytest

from arena.schedule import (
    ScheduleError,
    balanced_schedule,
    pair_meetings,
    round_robin,
)

ENTRIES = ["a", "b", "c", "d", "e"]


def test_round_robin_counts_tables_seatings_and_deals():
    tables = round_robin(ENTRIES, 3, deals=2, seed=1)
    assert len(tables) == comb(5, 3)
    for table in tables:
        assert len(table.games) == 2 * 6  # deals x 3! seatings
        assert len({g.key for g in table.games}) == len(table.games)
    all_keys = [g.key for t in tables for g in t.games]
    assert len(set(all_keys)) == len(all_keys) == 10 * 12


def test_every_bot_sits_in_every_seat_equally_often():
    tables = round_robin(ENTRIES, 3, deals=1, seed=1)
    seats = Counter((bot, seat) for t in tables for g in t.games for seat, bot in enumerate(g.bots))
    # Each bot plays C(4,2) = 6 tables, 2 of the 6 seatings per seat at each.
    assert set(seats.values()) == {12}
    assert len(seats) == len(ENTRIES) * 3


def test_duplicate_play_uses_the_same_cards_in_every_seating():
    table = round_robin(ENTRIES, 3, deals=3, seed=9)[0]
    by_deal: dict[int, set] = {}
    for game in table.games:
        by_deal.setdefault(game.deal, set()).add((game.seed, game.dealer))
        # every seating of the deal appears once
    assert all(len(v) == 1 for v in by_deal.values())
    assert len({next(iter(v))[0] for v in by_deal.values()}) == 3  # deals differ
    seatings = {g.bots for g in table.games if g.deal == 0}
    assert seatings == set(itertools.permutations(table.entries))


def test_seeds_depend_on_table_and_deal_not_on_order_or_other_entries():
    base = {(t.entries, g.deal): g.seed for t in round_robin(ENTRIES, 3, 2, seed=5) for g in t.games}
    shuffled = {(t.entries, g.deal): g.seed for t in round_robin(ENTRIES, 3, 2, seed=5) for g in reversed(t.games)}
    assert base == shuffled
    # Adding an entry adds tables but does not change the cards of existing ones.
    more = {(t.entries, g.deal): g.seed for t in round_robin(ENTRIES + ["f"], 3, 2, seed=5) for g in t.games}
    assert all(more[key] == seed for key, seed in base.items())
    other = {(t.entries, g.deal): g.seed for t in round_robin(ENTRIES, 3, 2, seed=6) for g in t.games}
    assert all(other[key] != seed for key, seed in base.items())


def test_balanced_schedule_meets_every_pair_equally_for_the_fano_plane():
    entries = [f"bot{i}" for i in range(7)]
    tables = balanced_schedule(entries, 3, tables=7, deals=1, seed=3)
    meetings = pair_meetings(tables)
    assert len(meetings) == comb(7, 2)
    assert set(meetings.values()) == {1}


def test_balanced_schedule_keeps_pair_counts_within_one():
    entries = [f"bot{i}" for i in range(10)]
    tables = balanced_schedule(entries, 3, tables=30, deals=1, seed=3)
    meetings = pair_meetings(tables)
    assert len(meetings) == comb(10, 2)
    assert max(meetings.values()) - min(meetings.values()) <= 1


@pytest.mark.parametrize("entries, size, deals", [(["a", "a", "b"], 2, 1), (["a", "b"], 3, 1), (ENTRIES, 6, 1), (ENTRIES, 3, 0)])
def test_bad_schedules_are_refused(entries, size, deals):
    with pytest.raises(ScheduleError):
        round_robin(entries, size, deals, seed=1)
