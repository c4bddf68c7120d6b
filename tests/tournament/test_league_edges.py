"""A league's edges as its organiser meets them (issue 43): fewer bots than a table seats; a bot
withdrawn while tables with it were queued; a bot that cannot be reached (its games void); a config
edited into a typo while the league runs, then finished with a bot taken out, then put back."""

from __future__ import annotations

import os
import signal
import time

import pytest

from arena.results.league_queue import LeagueTable, queue_tables
from arena.results.store import ResultStore
from tests.cli_support import invoke
from tests.tournament.league_support import LeagueProcess, assert_whole_tables, count_games, league_config, tables
from tests.tournament.test_void_games import LIMITS as SHORT_RETRY, Service, _free_port
from tests.db_support import connected


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


@pytest.mark.slow  # about 15 s: a 2 s retry window, a try 2 s later charged, then the service back
def test_a_service_down_is_tried_again_while_the_league_plays_on_charged_then_back_once_it_serves(tmp_path):
    """A ZeroMQ service down from the start: its first game is void after its retry window and the
    bot paused; the league plays on among the others. A league never runs out of tables, so the
    paused bot's held table is tried again one retry window later, where the service, out of reach
    with its window spent, is charged (protocol.md section 9), not voided for good; charged, it stays
    paused (tests/tournament/test_league_retry.py). Once it serves again, its next try brings it
    back and its games are played as anyone's. Before, its tables waited for a last try that an
    endless league never gave, and its standing stood still until the league was opened again."""
    service = Service(f"tcp://127.0.0.1:{_free_port()}")  # not started yet: down from the start
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "bot.toml").write_text(f'name = "svc"\ntransport = "zmq"\nendpoint = "{service.endpoint}"\n')
    config = tmp_path / "league.toml"
    config.write_text('name = "league"\nseed = 43\nschedule = "league"\ndeals = 1\nworkers = 1\n'
                      'bots = ["svc/bot.toml", "heuristic_bot", "random_bot", "shell_bot"]\n' + SHORT_RETRY)
    run = LeagueProcess(config, "--unchecked")
    try:
        run.wait_for(lambda db: _svc_games(db, "s.faults > 0") > 0)
        said = run.said()
        assert said.count("its tables are paused") == 1, said
        assert "tried again in 2 s, and less often each time it is still out of reach" in said, said
        with connected(run.database, read_only=True) as db:
            assert count_games(db) > _svc_games(db, "1"), said  # the others played on meanwhile
            charged = {kind for (kind,) in db.execute("SELECT DISTINCT f.kind FROM faults f JOIN bots b ON b.id = f.bot "
                                                      "WHERE b.name = 'svc'")}
            assert "no_hello" in charged and charged <= {"no_hello", "dead"}, charged  # dead: its turns once out
            assert db.execute("SELECT COUNT(*) FROM void_games").fetchone()[0] >= 1
        service.start()
        run.wait_for(lambda db: _svc_games(db, "s.faults = 0") >= 6)
        assert run.proc.poll() is None, run.said()
        with connected(run.database, read_only=True) as db:
            assert _svc_games(db, "s.faults = 0") >= 6, run.said()
        assert "svc is back: it played at table" in run.said(), run.said()
    finally:
        run.kill()
        service.stop()
    assert not run.left_behind(), run.said()
    assert_whole_tables(run.database)


def _svc_games(db, where: str) -> int:
    return db.execute(f"SELECT COUNT(*) FROM seat_results s JOIN bots b ON b.id = s.bot WHERE b.name = 'svc' AND {where}"
                      ).fetchone()[0]


def _wait_until(check, timeout_s: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow  # the league looks at its config every 2 s (CHECK_EVERY_S); a typo, a withdrawal and a rejoin
def test_a_config_edited_into_a_typo_is_said_once_and_the_league_goes_on_then_takes_a_withdrawal_and_a_rejoin(tmp_path):
    config = league_config(tmp_path, ["heuristic_bot", "random_bot", "shell_bot", "js_bot"], workers=1)
    database = config.with_suffix(".sqlite")
    good = config.read_text()
    run = LeagueProcess(config, "--update")
    try:
        run.wait_for(lambda db: count_games(db) >= 12)
        config.write_text(good.replace("deals = 1", "deals = one"))  # saved half way through an edit
        assert _wait_until(lambda: "goes on as it was until the config loads" in run.said()), run.said()
        with connected(database) as db:
            stored = count_games(db)
        time.sleep(2.5)  # another look at the same typo (CHECK_EVERY_S), and tables played meanwhile
        with connected(database) as db:
            assert count_games(db) > stored, run.said()
        assert run.said().count("until the config loads") == 1 and run.proc.poll() is None, run.said()

        config.write_text(good.replace(', "js_bot"]', "]"))  # the edit finished: js_bot taken out
        assert _wait_until(lambda: "the league takes it now; the league goes on" in run.said()), run.said()
        last = max(tables(database))
        run.wait_for(lambda db: db.execute("SELECT MAX(number) FROM league_tables").fetchone()[0] >= last + 3)
        assert run.proc.poll() is None, run.said()
        without = max(tables(database))
        config.write_text(good)  # and put back: it rejoins
        assert _wait_until(lambda: "js_bot back: the league takes it now" in run.said()), run.said()
        run.wait_for(lambda db: db.execute("SELECT COUNT(*) FROM league_tables WHERE number > ? AND bots LIKE "
                                           "'%js_bot%' AND status = 'played'", (without,)).fetchone()[0] > 0)
        assert run.proc.poll() is None, run.said()
        run.look_at_processes()
        os.killpg(run.proc.pid, signal.SIGINT)
        said = run.finish()
    finally:
        run.kill()
    assert run.left_behind() == [] and run.proc.returncode == 130, said
    assert "not valid TOML: Invalid value (at line 5" in said and said.count("until the config loads") == 1, said
    assert "js_bot withdrawn: the league takes it now" in said, said
    after = {number: bots for number, (bots, _, _) in tables(database).items() if last < number <= without}
    assert len(after) >= 3 and not any("js_bot" in bots for bots in after.values()), after
    assert "js_bot is back: it is seated at new tables" in said, said
    assert_whole_tables(database)


def test_a_change_the_league_cannot_take_holds_the_others_back_rather_than_ending_the_league(tmp_path):
    """The league opens its config again whole to take a change: taking js_bot while an unchecked
    bot (or a resubmission without --update) sits in the config ended the league in that refusal."""
    from arena.tournament.league_watch import LeagueWatch
    from arena.tournament.opening import bot_versions, load_tournament
    from tests.tournament.test_resubmission import put_bot

    config = league_config(tmp_path, ["heuristic_bot", "random_bot", "shell_bot"], workers=1)
    running, manifests = load_tournament(config)
    said: list[str] = []
    watch = LeagueWatch(running, bot_versions(manifests), update=False, unchecked=False, note=said.append, every_s=0)
    put_bot(tmp_path / "mine", "mine", "random_bot")
    (tmp_path / "mine" / "bot.py").write_text((tmp_path / "mine" / "bot.py").read_text() + f"# {tmp_path.name}\n")
    config.write_text(config.read_text().replace('"shell_bot"]', '"shell_bot", "js_bot", "./mine"]'))
    assert watch() is None and watch() is None, said
    assert len(said) == 1 and "mine: this version has not passed `arena bot check`" in said[0], said
    assert "js_bot waits with it (the league takes its config whole)" in said[0], said
    reopened = invoke("tournament", "run", str(config), "--games", "6")  # what taking js_bot would have met
    assert reopened.exit_code != 0 and "mine version" in reopened.output, reopened.output
    config.write_text(config.read_text().replace(', "./mine"]', "]"))
    assert watch() == "js_bot added: the league takes it now"


def test_a_let_in_bot_whose_build_fails_or_a_changed_seed_is_said_once_and_the_league_goes_on(tmp_path):
    """Taking a change opens the league again with its config whole: a bot let in unchecked whose
    build fails, or a seed changed beside an added bot, ended the league in that refusal (exit 2),
    and the league server's run after it, start after start."""
    from arena.errors import ArenaError
    from arena.tournament.league_watch import LeagueWatch
    from arena.tournament.opening import bot_versions, load_tournament
    from tests.tournament.test_resubmission import put_bot

    config = league_config(tmp_path, ["heuristic_bot", "random_bot", "shell_bot"], workers=1)
    running, manifests = load_tournament(config)
    said: list[str] = []
    builds: list[str] = []

    def ready(now, manifest):  # the session's: its build and grants; this one fails for "broken"
        builds.append(manifest.name)
        if manifest.name == "broken":
            raise ArenaError("the build of broken failed (exit 2): make: *** No rule")

    watch = LeagueWatch(running, bot_versions(manifests), update=False, unchecked=False, note=said.append, every_s=0,
                        ready=ready)
    put_bot(tmp_path / "broken", "broken", "random_bot")
    config.write_text(config.read_text().replace('"shell_bot"]', '"shell_bot", "js_bot", "./broken"]')
                      + '\n[grant.broken]\nunchecked = true\n')
    assert watch() is None and watch() is None, said
    assert builds.count("broken") == 1, builds  # tried once a version, not at every look
    assert len(said) == 1 and said[0].startswith("broken not taken: the build of broken failed"), said
    assert "js_bot waits with it" in said[0], said
    config.write_text(config.read_text().replace(', "./broken"]', "]").replace("seed = ", "seed = 1")
                      .replace("\n[grant.broken]\nunchecked = true\n", ""))
    assert watch() is None and watch() is None, said
    assert len(said) == 2 and "seed " in said[1] and "cannot change" in said[1] and "to take js_bot" in said[1], said
    config.write_text(config.read_text().replace("seed = 1", "seed = "))
    assert watch() == "js_bot added: the league takes it now"
