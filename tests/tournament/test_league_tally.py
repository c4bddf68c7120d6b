"""The league's tally of its played tables (arena/tournament/league_state.py `LeagueTally`): kept by
a run as it plays, it must say what a read of every table says, which is what the matchmaking saw
before a run kept it (issue 43's tables, issue 44's long league)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

from arena.results.league_queue import DROPPED, PLAYED, QUEUED, LeagueTable, end_table, league_tables, queue_tables
from arena.results.ratings import NO_RATINGS
from arena.results.store import ResultStore
from arena.schedule.matchmaking import pair
from arena.tournament import league_run
from arena.tournament.league_state import LeagueTally, league_state
from tests.cli_support import invoke
from tests.tournament.league_support import league_config

NAMES = ["a", "b", "c", "d", "e", "f"]


def _tables(rng: random.Random, count: int) -> list[LeagueTable]:
    return [LeagueTable(number, tuple(rng.sample(NAMES, 3)), "information", "why",
                        status=rng.choice([PLAYED, PLAYED, PLAYED, QUEUED, DROPPED])) for number in range(count)]


def _read_whole(tables: list[LeagueTable]) -> tuple[Counter, dict[str, int], Counter]:
    """Each bot's played tables, the tables played since its last, and each pair's meetings, from
    every table in number order: the reading the tally replaces, written out here to check it."""
    done = [table for table in sorted(tables, key=lambda t: t.number) if table.status == PLAYED]
    seen, last, meetings = Counter[str](), {}, Counter[tuple[str, str]]()
    for at, table in enumerate(done):
        for name in table.bots:
            seen[name] += 1
            last[name] = at
        meetings.update(pair(a, b) for a, b in itertools.combinations(table.bots, 2))
    return seen, {name: len(done) - 1 - last[name] if name in last else 0 for name in NAMES}, meetings


def _tally_of(tables: list[LeagueTable]) -> LeagueTally:
    """The tally of `tables`' played ones, added one by one as a run adds them."""
    tally = LeagueTally()
    for table in tables:
        if table.status == PLAYED:
            tally.add(table.number, table.bots)
    return tally


def _said(tally: LeagueTally) -> tuple[Counter, dict[str, int], Counter]:
    return +tally.seen, {name: tally.waited(name) for name in NAMES}, tally.meetings


def test_the_tally_of_played_tables_says_what_reading_them_all_says():
    rng = random.Random(3)
    for _ in range(20):
        tables = _tables(rng, rng.randrange(0, 60))
        assert _said(_tally_of(tables)) == _read_whole(tables)


def test_tables_added_as_played_out_of_order_count_as_read_in_order():
    """Two workers finish tables out of their numbers' order; a bot's wait counts by number."""
    rng = random.Random(8)
    tables = [LeagueTable(number, tuple(rng.sample(NAMES, 3)), "information", "why", status=PLAYED)
              for number in range(40)]
    finished = sorted(tables, key=lambda t: t.number + rng.choice([0, 0, 2, 5]))  # roughly in order
    kept = LeagueTally()
    for table in finished:
        kept.add(table.number, table.bots)
    assert _said(kept) == _read_whole(tables)
    assert kept.played == 40


def test_the_tally_read_from_a_file_is_the_tally_of_its_played_tables(tmp_path):
    """`LeagueTally.read` sums them in SQL: the same counts as its tables tallied one by one."""
    tables = _tables(random.Random(5), 300)
    with ResultStore(tmp_path / "league.sqlite") as store:
        assert LeagueTally.read(store).played == 0  # no table yet: an empty tally
        queue_tables(store, tables)
        for table in tables:
            if table.status != QUEUED:
                end_table(store, table.number, table.status)
        read = LeagueTally.read(store)
    assert _said(read) == _read_whole(tables) and read.played == sum(t.status == PLAYED for t in tables)


def test_the_state_counts_queued_tables_as_played_and_skips_those_of_absent_bots():
    tally = _tally_of([LeagueTable(0, ("a", "b", "c"), "information", "why", status=PLAYED)])
    queued = [LeagueTable(1, ("a", "b", "d"), "information", "why"), LeagueTable(2, ("a", "e", "f"), "why", "why")]
    state = league_state(["a", "b", "c", "d"], NO_RATINGS, {}, tally, queued, 6)  # e and f not seated now
    tables = {bot.name: bot.tables for bot in state.bots}
    assert tables == {"a": 2, "b": 2, "c": 1, "d": 1}  # table 1 counted as played, table 2 not
    assert state.meetings[pair("a", "b")] == 2


def test_a_run_keeps_its_tally_as_a_read_of_every_played_table_has_it(tmp_path, monkeypatch):
    """At every choice of a run (resumed too), the tally it kept equals one read from the file."""
    config = league_config(tmp_path, ["random_bot", "heuristic_bot", "shell_bot", "c_bot"])
    database = config.with_suffix(".sqlite")
    checked: list[int] = []
    real = league_run.league_state

    def checking(names, ratings, games, tally, queued, table_games):
        with ResultStore(database, read_only=True) as store:
            fresh = _tally_of(league_tables(store, PLAYED))
        assert (+tally.seen, tally.meetings, tally.played) == (+fresh.seen, fresh.meetings, fresh.played)
        assert {name: tally.waited(name) for name in names} == {name: fresh.waited(name) for name in names}
        checked.append(tally.played)
        return real(names, ratings, games, tally, queued, table_games)

    monkeypatch.setattr(league_run, "league_state", checking)
    for games in ("24", "18"):
        ran = invoke("tournament", "run", str(config), "--games", games)
        assert ran.exit_code == 0, ran.output
    assert len(checked) >= 4 and max(checked) >= 4, checked  # choices made with tables played before them
