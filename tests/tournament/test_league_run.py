"""A league of the bundled bots run as its organiser runs it (issue 43): killed with SIGKILL mid-run
and resumed, it loses and doubles nothing and plays the killed run's queued tables first, with the
same bots and cards; --until and --games stop it after whole tables; what only a league takes is
refused for other schedules in a sentence."""

from __future__ import annotations

import os
import signal
import sqlite3

import pytest

from tests.cli_support import invoke
from tests.load_support import assert_no_load_faults
from tests.db_support import connected
from tests.tournament.league_support import (LeagueProcess, assert_whole_tables, count_games, games, league_config,
                                             tables)


def _partial_queued_table(db: sqlite3.Connection) -> bool:
    """At least 12 games stored, and a queued table with some of its games stored (the kill then
    falls in the middle of a table)."""
    if count_games(db) < 12:
        return False
    return db.execute("SELECT COUNT(*) FROM games g JOIN league_tables t ON g.table_no = t.number "
                      "WHERE t.status = 'queued'").fetchone()[0] > 0


@pytest.mark.slow  # about 10 s: two runs of processes, one killed
def test_a_league_killed_mid_run_resumes_its_queued_tables_first_and_loses_and_doubles_nothing(tmp_path):
    config = league_config(tmp_path)
    database = config.with_suffix(".sqlite")
    killed = LeagueProcess(config)
    try:
        killed.wait_for(_partial_queued_table)
        assert killed.proc.poll() is None, "the league ended before it could be killed: " + killed.finish()
        killed.look_at_processes()
        assert len(killed.seen) >= 5, killed.seen  # its 2 workers, their resource tracker and bots at a table
        os.killpg(killed.proc.pid, signal.SIGKILL)
        killed.proc.wait()
    finally:
        killed.kill()
    assert killed.left_behind() == []  # its workers and bots died with it
    with connected(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    before = tables(database)
    stored_before = games(database)
    queued = {number: bots for number, (bots, status, _) in before.items() if status == "queued"}
    assert queued, before
    assert_whole_tables(database)

    # One worker: the queued tables' games must all come before any table chosen after the kill.
    resumed = LeagueProcess(config, "--workers", "1", "--games", "12")
    said = resumed.finish()
    assert resumed.proc.returncode == 0, said
    assert resumed.left_behind() == []
    assert_no_load_faults(database)
    after = tables(database)
    assert all(after[number] == (bots, "played", before[number][2]) for number, bots in queued.items()), after
    assert {n: t for n, t in after.items() if n in before and n not in queued} == \
        {n: t for n, t in before.items() if n not in queued}  # the tables played before are as they were
    assert max(after) > max(before), "the resumed run chose no table after the queued ones"
    assert_whole_tables(database)  # the queued tables' games, old and new, share their cards
    stored = games(database)
    assert stored[:len(stored_before)] == stored_before  # nothing stored before the kill was lost or changed
    new = [table for _, _, table, *_ in stored[len(stored_before):]]
    resumed_games = sum(1 for table in new if table in queued)
    assert resumed_games == 6 * len(queued) - sum(1 for _, _, table, *_ in stored_before if table in queued)
    assert set(new[:resumed_games]) == set(queued), new  # the queued tables first
    with connected(database) as db:
        assert db.execute("SELECT COUNT(*) FROM superseded_games").fetchone()[0] == 0


def test_games_stops_after_whole_tables_it_has_room_for_and_a_resumed_run_goes_on_from_there(tmp_path):
    config = league_config(tmp_path, workers=2)  # two free workers: a batch of two tables, were it not for --games
    database = config.with_suffix(".sqlite")
    first = invoke("tournament", "run", str(config), "--games", "6")
    said = " ".join(first.output.split())
    assert first.exit_code == 0 and "done: 6 games stored (6 played now)" in said, said
    assert [status for _, status, _ in tables(database).values()] == ["played"]
    again = invoke("tournament", "run", str(config), "--games", "10")
    said = " ".join(again.output.split())
    assert again.exit_code == 0, said
    assert "league: 12 games played, as --games asked" in said, said  # 10 rounded up to whole tables
    assert "done: 18 games stored (12 played now)" in said, said
    assert [status for _, status, _ in tables(database).values()] == ["played"] * 3
    assert_whole_tables(database)


def test_until_stops_choosing_and_finishes_the_tables_under_way(tmp_path):
    config = league_config(tmp_path, workers=2)
    database = config.with_suffix(".sqlite")
    run = invoke("tournament", "run", str(config), "--until", "2s")
    said = " ".join(run.output.split())
    assert run.exit_code == 0, said
    assert "league: --until reached after" in said and "queued for the next run" not in said, said
    chosen = tables(database)
    assert chosen and all(status == "played" for _, status, _ in chosen.values()), chosen
    assert len(games(database)) == 6 * len(chosen)
    assert_whole_tables(database)


def test_until_and_games_are_refused_for_a_round_robin_in_a_sentence(tmp_path):
    config = tmp_path / "rr.toml"
    config.write_text('name = "rr"\nseed = 3\nbots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    for option in (("--until", "2h"), ("--games", "60")):
        result = invoke("tournament", "run", str(config), *option)
        said = " ".join(result.output.split())
        assert result.exit_code == 2, said
        assert f"{option[0]}: only a league (schedule = \"league\") plays until stopped" in said, said
        assert not config.with_suffix(".sqlite").exists()


def test_a_duration_that_is_no_duration_is_refused_clearly(tmp_path):
    config = league_config(tmp_path)
    for given in ("5x", "0s", "h", "-3m"):
        result = invoke("tournament", "run", str(config), "--until", given)
        said = " ".join(result.output.split())
        assert result.exit_code == 2, said
        assert f"'{given}'" in said and "--until" in said, said
        assert not config.with_suffix(".sqlite").exists()
