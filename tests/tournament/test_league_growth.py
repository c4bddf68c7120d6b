"""A running league grows as its users meet it (issue 43): a bot appended to the config's `bots`
and a bot resubmitted with `arena bot add --replace` while `arena tournament run --update` plays
both enter without a restart of the command; each is seated at once (it has no games: starving),
and the old version's games leave the standings."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from tests.cli_support import invoke
from tests.tournament.league_support import LeagueProcess, assert_whole_tables, games, league_config, tables
from tests.tournament.test_resubmission import put_bot
from tests.db_support import connected


def _versions_by_table(database: Path, bot: str) -> dict[int, str | None]:
    """Table -> the version of `bot` its games recorded (None: a run that did not know the bot)."""
    with connected(database) as db:
        return {table: json.loads(extra)["versions"].get(bot)
                for table, extra in db.execute("SELECT table_no, extra FROM games ORDER BY id")}


def _seated_at_once(database: Path, bot: str, version: str, workers: int) -> None:
    """`bot` at `version` sits at one of the first tables the run that took it chose: it came with
    no games and no rating (starving, or the most to learn about it)."""
    known = sorted(table for table, seen in _versions_by_table(database, bot).items() if seen == version)
    chosen = tables(database)
    seated = [table for table in known if bot in chosen[table][0]]
    assert seated and seated[0] in known[:workers], (bot, known[:6], seated[:3])


@pytest.mark.slow  # the league looks for changes every 2 s (CHECK_EVERY_S), and plays on after each
def test_a_bot_added_and_one_resubmitted_enter_a_running_league_without_a_restart(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    assert invoke("init", str(ws)).exit_code == 0
    monkeypatch.chdir(ws)
    submitted = tmp_path / "submitted"
    put_bot(submitted, "mine", "random_bot")
    added = invoke("bot", "add", str(submitted), "--games", "1")
    assert added.exit_code == 0, added.output
    config = league_config(ws / "tournaments", ["heuristic_bot", "random_bot", "shell_bot", "mine"])
    database = config.with_suffix(".sqlite")
    run = LeagueProcess(config, "--update")
    try:
        run.wait_for(lambda db: db.execute("SELECT COUNT(*) FROM games WHERE bots LIKE '%mine%'").fetchone()[0] >= 12)
        assert run.proc.poll() is None, run.said()
        first = _versions_by_table(database, "mine")
        old = next(version for version in first.values() if version)

        put_bot(submitted, "mine", "heuristic_bot")  # its author's new version
        replaced = invoke("bot", "add", str(submitted), "--replace", "--games", "1")
        assert replaced.exit_code == 0, replaced.output
        config.write_text(config.read_text().replace('"mine"]', '"mine", "js_bot"]'))

        def entered(db: sqlite3.Connection) -> bool:
            rows = db.execute("SELECT extra, bots FROM games ORDER BY id DESC LIMIT 200").fetchall()
            return (any("js_bot" in bots for _, bots in rows)
                    and any(json.loads(extra)["versions"].get("mine") not in (None, old) for extra, bots in rows
                            if "mine" in bots))

        run.wait_for(entered, timeout_s=90)
        assert run.proc.poll() is None, run.said()
        with connected(database) as db:
            assert entered(db), (run.said(), list(tables(database).items())[-6:])
        run.look_at_processes()
        os.killpg(run.proc.pid, signal.SIGINT)  # the organiser's Ctrl-C
        said = run.finish()
    finally:
        run.kill()
    assert run.left_behind() == []
    assert run.proc.returncode == 130, said
    # Both said, in one line or two (a change seen first is taken with whatever else is there by then).
    assert "mine resubmitted" in said and "the league goes on" in said, said
    assert "js_bot added" in said or "bot added: js_bot" in said, said
    assert "it starts again, unrated, at new tables" in said and "played again" not in said, said  # none is
    assert said.count("isolation:") >= 2  # opened again by the same command, not restarted by hand
    new = next(version for version in _versions_by_table(database, "mine").values() if version not in (None, old))
    _seated_at_once(database, "js_bot", next(v for v in _versions_by_table(database, "js_bot").values() if v), 2)
    _seated_at_once(database, "mine", new, 2)
    assert_whole_tables(database)

    # The old version's games left the standings (kept aside, superseded); the new one's count.
    with connected(database) as db:
        superseded = db.execute("SELECT COUNT(*) FROM superseded_games WHERE why LIKE 'mine: version%'").fetchone()[0]
    mine_games = sum(1 for _, _, _, _, bots, _ in games(database) if "mine" in bots.split(","))
    shown = invoke("standings", str(config), "--format", "json")
    assert shown.exit_code == 0, shown.output
    standing = {row["bot"]: row for row in json.loads(shown.output)["bots"]}
    assert superseded >= 12, superseded
    assert standing["mine"]["games"] == mine_games > 0  # only games stored now count: the new version's
    assert standing["js_bot"]["games"] > 0
    shutil.rmtree(submitted)


def test_a_league_started_again_after_a_resubmission_says_what_update_does_in_a_league(tmp_path):
    config = league_config(tmp_path, ["heuristic_bot", "random_bot", "./mine"], workers=1)
    put_bot(tmp_path / "mine", "mine", "random_bot")
    assert invoke("tournament", "run", str(config), "--games", "6", "--unchecked").exit_code == 0
    put_bot(tmp_path / "mine", "mine", "heuristic_bot")
    refused = invoke("tournament", "run", str(config), "--games", "6", "--unchecked")
    said = " ".join(refused.output.split())
    assert refused.exit_code != 0 and "mine's files changed since its games were stored" in said, said
    assert "a changed bot starts again, unrated, at new tables" in said and "same cards" not in said, said
    shown = invoke("standings", str(config))
    said = " ".join(shown.output.split())
    assert "--update takes the new versions" in said and "replays" not in said, said
    taken = invoke("tournament", "run", str(config), "--games", "6", "--unchecked", "--update")
    said = " ".join(taken.output.split())
    assert taken.exit_code == 0, said
    assert "mine resubmitted" in said and "it starts again, unrated, at new tables" in said, said
    assert len(tables(config.with_suffix(".sqlite"))) == 2  # a new table, none played again
