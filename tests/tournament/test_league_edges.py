"""A league's edges as its organiser meets them (issue 43): fewer bots than a table seats; a bot
withdrawn while tables with it were queued."""

from __future__ import annotations

from arena.results.league_queue import LeagueTable, queue_tables
from arena.results.store import ResultStore
from tests.cli_support import invoke
from tests.tournament.league_support import assert_whole_tables, league_config, tables


def test_a_league_of_fewer_bots_than_a_table_seats_is_refused_in_a_sentence(tmp_path):
    config = league_config(tmp_path, ["heuristic_bot", "random_bot"])
    result = invoke("tournament", "run", str(config), "--games", "6")
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "key 'bots': 2 bots cannot fill a table of 3 (table_size)" in said, said
    assert not config.with_suffix(".sqlite").exists()


def test_a_withdrawn_bot_s_queued_tables_are_dropped_and_said_once(tmp_path):
    bots = ["heuristic_bot", "random_bot", "shell_bot", "js_bot"]
    config = league_config(tmp_path, bots, workers=1)
    database = config.with_suffix(".sqlite")
    assert invoke("tournament", "run", str(config), "--games", "6").exit_code == 0
    # The queue a killed run leaves (tests/tournament/test_league_run.py kills one): two tables with js_bot.
    store = ResultStore(database)
    try:
        queue_tables(store, [LeagueTable(1, ("js_bot", "random_bot", "shell_bot"), "information", "why"),
                             LeagueTable(2, ("heuristic_bot", "js_bot", "random_bot"), "fairness", "why")])
    finally:
        store.close()
    config.write_text(config.read_text().replace(', "js_bot"]', "]"))
    refused = invoke("tournament", "run", str(config), "--games", "6")
    assert refused.exit_code != 0 and "--update" in refused.output
    assert [status for _, status, _ in tables(database).values()] == ["played", "queued", "queued"]
    taken = invoke("tournament", "run", str(config), "--games", "6", "--update")
    said = " ".join(taken.output.split())
    assert taken.exit_code == 0, said
    assert said.count("dropped") == 1 and "js_bot left the league" in said, said
    chosen = tables(database)
    assert [chosen[n][1] for n in (1, 2)] == ["dropped", "dropped"]
    assert chosen[3][1] == "played" and "js_bot" not in chosen[3][0], chosen
    assert_whole_tables(database)
