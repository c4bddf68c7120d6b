"""A resubmitted bot (its files changed since its games were stored) and a withdrawn one: the
update replays only their tables, with the same cards, keeps every stored game, and ends as a
fresh run with the bots as they are now would (docs/organising.md, Resubmission and withdrawal)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena.results.store import ResultStore
from tests.cli_support import invoke
from tests.load_support import GENEROUS_LIMITS, assert_no_load_faults
from tests.tournament.test_run import game_results, marker_processes
from tests.db_support import connected

REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"


def put_bot(folder: Path, name: str, plays_like: str) -> None:
    """A bot folder named `name` whose files are those of the bundled `plays_like` (its play depends
    only on the game: random_bot is seeded per game by the arena). Putting another one in its place
    is a resubmission: new files, a new content hash."""
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(BOTS / plays_like, folder, ignore=shutil.ignore_patterns(".check.json", ".versions.json", "__pycache__"))
    manifest = folder / "bot.toml"
    manifest.write_text("\n".join(f'name = "{name}"' if line.startswith("name") else line
                                  for line in manifest.read_text().splitlines()) + "\n")


def tournament(folder: Path, bots: list[str], deals: int = 2, workers: int = 2) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "t.toml"
    listed = ", ".join(f'"{b}"' for b in bots)
    config.write_text(f'name = "t"\nseed = 11\ndeals = {deals}\nworkers = {workers}\nbots = [{listed}]\n'
                      + GENEROUS_LIMITS)
    return config


MY_LEAGUE = ["heuristic_bot", "random_bot", "shell_bot", "./mybot"]


def played_league(tmp_path: Path, deals: int = 2) -> tuple[Path, Path, str]:
    """MY_LEAGUE, its own bot `mybot` playing as random_bot, run once: (its folder, its config,
    what the run said)."""
    folder = tmp_path / "league"
    put_bot(folder / "mybot", "mybot", "random_bot")
    config = tournament(folder, MY_LEAGUE, deals=deals)
    code, output = run(config)
    assert code == 0, output
    return folder, config, output


def run(config: Path, *extra: str):
    # Its bots are the test's own, each version unchecked: the organiser lets them in.
    result = invoke("tournament", "run", str(config), "--unchecked", *extra)
    return result.exit_code, " ".join(result.output.split())


def comparable_standings(config: Path) -> dict:
    """`arena standings --format json` without what depends on the way there: the ratings' history
    (in the order games were stored) and the figures of versions no longer current."""
    result = invoke("standings", str(config), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    data.pop("rating_history")
    data.pop("history")
    data.pop("tournament")  # its name and when it ran
    return data


def superseded_count(database: Path) -> int:
    with connected(database, read_only=True) as db:
        return db.execute("SELECT COUNT(*) FROM superseded_games").fetchone()[0]


def fresh_run(tmp_path: Path, bots: list[str], now: dict[str, str], deals: int = 2) -> Path:
    """The tournament run from the start with each changeable bot (`now`: name -> plays like) as it is now."""
    folder = tmp_path / "fresh"
    for name, plays_like in now.items():
        put_bot(folder / name, name, plays_like)
    config = tournament(folder, bots, deals=deals)
    code, output = run(config)
    assert code == 0, output
    return config


@pytest.fixture(scope="module")
def fresh_league(tmp_path_factory) -> Path:
    """MY_LEAGUE run from the start with mybot resubmitted as heuristic_bot, once for the module: what
    an update of `played_league` must equal (read only)."""
    return fresh_run(tmp_path_factory.mktemp("fresh"), MY_LEAGUE, {"mybot": "heuristic_bot"})


def test_an_update_replays_only_the_changed_bots_tables_and_equals_a_fresh_run(tmp_path, fresh_league):
    bots = MY_LEAGUE
    folder, config, output = played_league(tmp_path)
    assert "48 games stored" in output, output
    before = game_results(ResultStore(folder / "t.sqlite", read_only=True))

    put_bot(folder / "mybot", "mybot", "heuristic_bot")  # resubmitted: another program
    code, output = run(config)  # the default (on_change = "refuse") names the change and both ways on
    assert code == 2, output
    assert "mybot's files changed" in output and "changed bot.py" in output and "added heuristic.py" in output, output
    assert "--update" in output and 'on_change = "replay"' in output, output
    assert game_results(ResultStore(folder / "t.sqlite", read_only=True)) == before  # nothing touched

    code, output = run(config, "--update")
    assert code == 0, output
    assert "48 games stored (36 played now)" in output, output  # mybot sits at 3 of the 4 tables
    assert superseded_count(folder / "t.sqlite") == 36
    assert_no_load_faults(folder / "t.sqlite")

    fresh = fresh_league
    updated = game_results(ResultStore(folder / "t.sqlite", read_only=True))
    assert updated == game_results(ResultStore(fresh.parent / "t.sqlite", read_only=True))  # game for game
    assert comparable_standings(config) == comparable_standings(fresh)
    # The table without mybot was not played again: its games are the very ones stored first.
    untouched = {key: value for key, value in before.items() if key.startswith("t0000-")}
    assert untouched and all(updated[key] == value for key, value in untouched.items())

    # The old version's figures, beside the standings and in every machine-readable format.
    data = json.loads(invoke("standings", str(config), "--format", "json").output)
    [old] = data["history"]
    assert (old["bot"], old["why"], old["games"]) == ("mybot", "resubmitted", 36)
    assert old["version"] != next(b["version"] for b in data["bots"] if b["bot"] == "mybot")
    table = " ".join(invoke("standings", str(config), "--history").output.split())
    assert "earlier versions" in table and old["version"][:6] in table
    rows = list(csv.DictReader(io.StringIO(invoke("standings", str(config), "--format", "csv", "--history").output)))
    assert [r["bot"] for r in rows if r["superseded"]] == ["mybot"]
    assert len([r for r in rows if not r["superseded"]]) == 4

    # `arena games`: the version each game was played at; superseded games in or out; nothing deleted.
    listed = {w: [json.loads(line) for line in
                  invoke("games", str(config), "--format", "json", "--superseded", w).output.splitlines()]
              for w in ("exclude", "include", "only")}
    assert [len(listed[w]) for w in ("exclude", "include", "only")] == [48, 84, 36]
    assert all(g["superseded"] and "mybot" in g["superseded"] for g in listed["only"])
    seat = listed["only"][0]["bots"].index("mybot")
    assert listed["only"][0]["versions"][seat] == old["version"][:len(listed["only"][0]["versions"][seat])]
    # ... and each is replayed as it was played, beside the game of the same key played now.
    key = listed["only"][0]["key"]
    then = invoke("replay", str(config), key, "--superseded")
    assert then.exit_code == 0 and then.output.startswith("superseded (mybot: version"), then.output
    now = invoke("replay", str(config), key)
    assert now.exit_code == 0 and now.output != then.output.split("\n", 1)[1]
    never = invoke("replay", str(config), next(iter(untouched)), "--superseded")
    assert never.exit_code == 2 and "has no superseded play" in never.output


def test_several_changed_bots_replay_each_of_their_tables_once(tmp_path):
    bots = ["heuristic_bot", "random_bot", "shell_bot", "./x", "./y"]
    folder = tmp_path / "league"
    put_bot(folder / "x", "x", "random_bot")
    put_bot(folder / "y", "y", "heuristic_bot")
    config = tournament(folder, bots, deals=1)
    assert run(config)[0] == 0
    put_bot(folder / "x", "x", "heuristic_bot")
    put_bot(folder / "y", "y", "random_bot")
    code, output = run(config)
    assert code == 2 and "x's files changed" in output and "y's files changed" in output, output
    code, output = run(config, "--update")
    # 10 tables of 3 from 5 bots; 9 hold x or y, each played once more: 54 games, not 36 + 36.
    assert code == 0 and "60 games stored (54 played now)" in output, output
    assert superseded_count(folder / "t.sqlite") == 54
    fresh = fresh_run(tmp_path, bots, {"x": "heuristic_bot", "y": "random_bot"}, deals=1)
    assert game_results(ResultStore(folder / "t.sqlite", read_only=True)) == \
        game_results(ResultStore(fresh.parent / "t.sqlite", read_only=True))
    assert comparable_standings(config) == comparable_standings(fresh)


def test_on_change_replay_updates_without_the_word(tmp_path):
    folder = tmp_path / "league"
    put_bot(folder / "mybot", "mybot", "random_bot")
    config = tournament(folder, ["heuristic_bot", "random_bot", "./mybot"], deals=1)
    config.write_text(config.read_text().replace('name = "t"', 'name = "t"\non_change = "replay"'))
    assert run(config)[0] == 0
    put_bot(folder / "mybot", "mybot", "heuristic_bot")
    code, output = run(config)
    assert code == 0 and "6 games stored (6 played now)" in output, output
    config.write_text(config.read_text().replace('on_change = "replay"', 'on_change = "sometimes"'))
    code, output = run(config)
    assert code == 2 and "on_change" in output and "t.toml" in output, output


def test_a_withdrawn_bot_leaves_the_standings_keeps_its_games_and_can_rejoin(tmp_path):
    bots = MY_LEAGUE
    folder, config, _ = played_league(tmp_path)
    full = game_results(ResultStore(folder / "t.sqlite", read_only=True))
    full_standings = comparable_standings(config)

    tournament(folder, bots[:3])  # its author took it out
    code, output = run(config)
    assert code == 2 and "--update" in output, output
    code, output = run(config, "--update")
    assert code == 0, output
    data = json.loads(invoke("standings", str(config), "--format", "json").output)
    assert {b["bot"] for b in data["bots"]} == {"heuristic_bot", "random_bot", "shell_bot"}
    assert data["games"] == 12  # the one table without it: 6 seatings x 2 deals
    # The facts count the tables in play, and the standings are complete (issue 33)
    assert data["tournament"]["tables"] == 1 and data["games_scheduled"] == 12 and data["complete"] is True
    [gone] = data["history"]
    assert (gone["bot"], gone["why"], gone["games"]) == ("mybot", "withdrawn", 36)
    assert superseded_count(folder / "t.sqlite") == 36
    assert run(config)[0] == 0  # a withdrawn bot stays out without a word each time

    tournament(folder, bots)  # and back in: its tables are played again, with the same cards
    code, output = run(config, "--update")
    assert code == 0 and "48 games stored (36 played now)" in output, output
    assert game_results(ResultStore(folder / "t.sqlite", read_only=True)) == full
    assert comparable_standings(config) == full_standings


def test_sigkill_in_the_middle_of_an_update_then_a_rerun_loses_and_doubles_nothing(tmp_path, fresh_league):
    folder, config, _ = played_league(tmp_path)
    put_bot(folder / "mybot", "mybot", "heuristic_bot")

    marker = uuid.uuid4().hex
    env = {**os.environ, "ARENA_TEST_MARKER": marker}
    command = [sys.executable, "-m", "arena", "tournament", "run", str(config), "--update", "--unchecked"]
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    database = folder / "t.sqlite"
    kept = 12  # the games of the table without mybot: 6 seatings x 2 deals
    deadline = time.monotonic() + 60
    stored = 48
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with connected(database, timeout_s=1) as db:
                stored = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        except sqlite3.Error:
            pass
        if kept + 8 <= stored < 48:  # superseded, and some of the replay stored
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the update ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 15
    while marker_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker_processes(marker) == []  # workers and bots died with the arena
    with connected(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        partial = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert kept + 8 <= partial < 48

    resumed = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert superseded_count(database) == 36  # each old game superseded once
    assert_no_load_faults(database)
    fresh = fresh_league
    assert game_results(ResultStore(database, read_only=True)) == \
        game_results(ResultStore(fresh.parent / "t.sqlite", read_only=True))
    assert comparable_standings(config) == comparable_standings(fresh)


def test_bot_list_shows_the_current_version_the_stored_one_and_the_history(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    workspace = tmp_path / "ws"
    put_bot(workspace / "bots" / "mybot", "mybot", "random_bot")
    config = tournament(workspace / "tournaments", ["heuristic_bot", "random_bot", "../bots/mybot"], deals=1)
    listing = invoke("bot", "list", "--dir", str(workspace / "bots"))
    assert listing.exit_code == 0 and "none" in listing.output  # no stored games yet
    assert run(config)[0] == 0
    checked = invoke("bot", "check", "mybot", "--games", "1", "--dir", str(workspace / "bots"))
    assert checked.exit_code == 0, checked.output
    first = json.loads((workspace / "bots" / "mybot" / ".versions.json").read_text())
    [old] = [entry["version"] for entry in first]
    assert first[0]["check"]["passed"] is True

    put_bot(workspace / "bots" / "mybot", "mybot", "heuristic_bot")
    (workspace / "bots" / "mybot" / ".versions.json").write_text(json.dumps(first))  # the author's folder keeps it
    listing = invoke("bot", "list", "--dir", str(workspace / "bots"))
    text = listing.output
    assert listing.exit_code == 0, text
    history = json.loads((workspace / "bots" / "mybot" / ".versions.json").read_text())
    assert [entry["version"] for entry in history][0] == old and len(history) == 2
    new = history[1]["version"]
    assert f"t: {old} (not current: --update replays)" in text, text
    assert f"{old} " in text and f"{new} " in text and "not checked (current)" in text, text

    assert run(config, "--update")[0] == 0
    text = invoke("bot", "list", "--dir", str(workspace / "bots")).output
    assert f"t: {new}" in text and "not current" not in text, text


def stored_fingerprint(database: Path) -> str:
    with connected(database, read_only=True) as db:
        return db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()[0]


def test_a_refused_rename_changes_nothing_and_a_withdrawn_bot_rejoins_from_anywhere_in_the_list(tmp_path):
    # An organiser's audit: a renamed bot was refused, but the refused run had written its planned
    # versions ("bob=" with none), so putting the name back replayed all of bob's games for nothing.
    folder = tmp_path / "league"
    put_bot(folder / "bob", "bob", "random_bot")
    bots = ["heuristic_bot", "./bob", "random_bot", "shell_bot"]
    config = tournament(folder, bots, deals=1)
    assert run(config)[0] == 0
    database = folder / "t.sqlite"
    before = stored_fingerprint(database)
    manifest = folder / "bob" / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "bob"', 'name = "bobby"'))
    for extra in ((), ("--update",)):
        code, output = run(config, *extra)
        assert code == 2 and "renamed" in output and "new bots go at the end" in output, output
        assert stored_fingerprint(database) == before
    manifest.write_text(manifest.read_text().replace('name = "bobby"', 'name = "bob"'))
    code, output = run(config)
    assert code == 0 and "(0 played now)" in output, output  # nothing to replay: bob is as he was

    tournament(folder, [b for b in bots if b != "./bob"], deals=1)
    assert run(config, "--update")[0] == 0  # bob withdrawn
    tournament(folder, [b for b in bots if b != "./bob"] + ["./bob"], deals=1)  # and put back at the end
    code, output = run(config, "--update")
    assert code == 0 and "bob is back" in output and "(18 played now)" in output, output


def test_a_versions_history_counts_each_game_of_the_schedule_once_and_says_why_it_left(tmp_path):
    # An organiser's audit: a table replayed because another bot changed left two superseded games
    # of one key for the bots that had not changed, and both were counted (108 games of 72).
    folder = tmp_path / "league"
    put_bot(folder / "x", "x", "random_bot")
    put_bot(folder / "y", "y", "random_bot")
    bots = ["heuristic_bot", "random_bot", "./x", "./y"]
    config = tournament(folder, bots, deals=1)
    assert run(config)[0] == 0

    def history() -> list[tuple[str, str, int]]:
        data = json.loads(invoke("standings", str(config), "--format", "json").output)
        return [(f["bot"], f["why"], f["games"]) for f in data["history"]]

    put_bot(folder / "x", "x", "heuristic_bot")
    assert run(config, "--update")[0] == 0  # x's 3 tables again, 2 of them with y
    put_bot(folder / "y", "y", "heuristic_bot")
    assert run(config, "--update")[0] == 0
    assert history() == [("x", "resubmitted", 18), ("y", "resubmitted", 18)]  # 3 tables x 6 seatings each
    tournament(folder, bots[:3], deals=1)
    assert run(config, "--update")[0] == 0  # y withdrawn, at its second version
    assert history() == [("x", "resubmitted", 18), ("y", "resubmitted", 18), ("y", "withdrawn", 18)]
