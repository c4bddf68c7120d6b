"""The tournament commands through Typer's CliRunner, including bad input (clear message, exit code, no traceback)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import signal
import subprocess
import sys
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest
import tomli_w
from tests.cli_support import invoke
from tests.load_support import GENEROUS_LIMITS, GENEROUS_LIMIT_OPTIONS, assert_no_load_faults
from tests.db_support import connected


def test_tournament_new_writes_a_config_that_loads(tmp_path):
    path = tmp_path / "mine.toml"
    result = invoke("tournament", "new", str(path), "-b", "heuristic_bot", "-b", "random_bot", "-b", "shell_bot",
                    "--deals", "3", "--rule", "ace_high=true", "--seed", "9")
    assert result.exit_code == 0, result.output
    data = tomllib.loads(path.read_text())
    assert data["bots"] == ["heuristic_bot", "random_bot", "shell_bot"]
    assert data["deals"] == 3 and data["seed"] == 9
    assert data["rules"] == {"ace_high": True}
    again = invoke("tournament", "new", str(path), "-b", "a", "-b", "b", "-b", "c")
    assert again.exit_code != 0 and "exists" in again.output


def test_a_seed_nobody_chose_is_random_or_said_to_be_public(tmp_path):
    """The deals follow from the seed and the bots' names, and the dealing is public code: a bot
    in a hostile trial dealt every hand of a tournament of seed 1 itself. `tournament new` and
    `init` write a random seed; a config that gives none is told that seed 1 is known to all."""
    seeds = set()
    for name in ("a", "b"):
        assert invoke("tournament", "new", str(tmp_path / f"{name}.toml"), "-b", "random_bot", "-b", "heuristic_bot",
                      "-b", "shell_bot").exit_code == 0
        seeds.add(tomllib.loads((tmp_path / f"{name}.toml").read_text())["seed"])
    assert len(seeds) == 2
    assert invoke("init", str(tmp_path / "ws")).exit_code == 0
    assert tomllib.loads((tmp_path / "ws" / "tournaments" / "demo.toml").read_text())["seed"] != 1
    bots = 'bots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 1\n'
    (tmp_path / "open.toml").write_text(bots)
    (tmp_path / "kept.toml").write_text("seed = 77\n" + bots)
    said = " ".join(invoke("tournament", "run", str(tmp_path / "open.toml")).output.split())
    assert "gives no seed, so the deals use seed 1, which any bot author can know" in said, said
    assert "gives no seed" not in invoke("tournament", "run", str(tmp_path / "kept.toml")).output


@pytest.mark.parametrize("args, message", [
    (["--rule", "pickup=sometimes"], "pickup"),
    (["--rule", "nonsense=1"], "nonsense"),
    (["--table-size", "9"], "table-size"),
])
def test_tournament_new_rejects_bad_options(tmp_path, args, message):
    result = invoke("tournament", "new", str(tmp_path / "x.toml"), "-b", "a", "-b", "b", "-b", "c", *args)
    assert result.exit_code != 0
    assert message in result.output


@pytest.mark.parametrize("body, message", [
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\ndeals = "two"\n', "'deals'"),
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\ncolour = "red"\n', "unknown key 'colour'"),
    ('bots = ["heuristic_bot", "random_bot"]\n', "cannot fill a table of 3"),
    ('bots = ["heuristic_bot", "random_bot", "no_such_bot"]\n', "no_such_bot"),
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n[rules]\npickup = "maybe"\n', "pickup"),
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n[limits]\nmove_timeout_s = -1\n', "limits.move_timeout_s"),
    # nan slipped past a "> 0" check into a worker's traceback; inf would disable the hung-bot cut-off.
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n[limits]\nmove_timeout_s = nan\n', "limits.move_timeout_s"),
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n[limits]\nstartup_timeout_s = inf\n', "from 0.1 to 600"),
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n[limits]\nmove_timeout_s = 1e-9\n', "from 0.01 to 600"),
    # Said "got True" (Python's word) of what the author wrote as `true`.
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n[limits]\nstart_retry_s = true\n', "to 3600, got true"),
    # Passed a "> 0" check, then failed setrlimit in every bot's start: a whole run of junk results.
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n[sandbox]\naddress_space_mb = 999999999999999\n',
     "key 'sandbox.address_space_mb': expected a whole number from 32 to 4194304"),
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n[sandbox]\nmemory = 5\n',
     "key 'sandbox.memory': unknown limit; known limits: address_space_mb,"),
    ('bots = [heuristic_bot\n', "not valid TOML"),
    # It was reported under [rules], and the range of workers was not the real one.
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\nfault_policy = "die"\n', "key 'fault_policy': expected fallback or forfeit"),
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\nworkers = 1000\n', "from 1 to 256"),
    # Planning 600 million games stalled the run for minutes before its first game.
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\ndeals = 100000000\n', "'deals': 1 table x 100,000,000"),
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\nschedule = "balanced"\ntables = 400000\n', "'tables'"),
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\ntables = 4\n', "only the balanced schedule"),
    # One table of three for four bots left one bot ranked on 0 games.
    ('bots = ["heuristic_bot", "random_bot", "shell_bot", "c_bot"]\nschedule = "balanced"\ntables = 1\n',
     "'tables': 1 table of 3 seat 3 bots, so some of the 4 bots would play no game; a balanced schedule of "
     "these bots needs at least 2 tables"),
    ('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n[rules]\nnext_dealer = "loser"\n', "rules.next_dealer"),
])
def test_tournament_run_names_the_file_and_key_of_a_bad_config(tmp_path, body, message):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    result = invoke("tournament", "run", str(path))
    assert result.exit_code == 2
    assert str(path.name) in result.output.replace("\n", "")
    assert message in result.output.replace("\n", "")


def test_a_config_in_another_encoding_is_named_and_a_bom_is_accepted(tmp_path):
    body = 'bots = ["heuristic_bot", "random_bot", "shell_bot"]\n'
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'name = "caf\xe9"\n' + body.encode())
    result = invoke("standings", str(latin))
    assert result.exit_code == 2
    assert "not UTF-8 text: byte 0xe9 at line 1, column 12; save the file as UTF-8" in " ".join(result.output.split())
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + body.encode())
    result = invoke("standings", str(bom))  # read as a config: only the results are missing
    assert result.exit_code == 2 and "no results yet" in result.output


def test_missing_config_and_missing_results_are_clear_errors(tmp_path):
    result = invoke("tournament", "run", str(tmp_path / "nope.toml"))
    assert result.exit_code == 2 and "no such config file" in result.output
    path = tmp_path / "fresh.toml"
    path.write_text('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    result = invoke("standings", str(path))
    assert result.exit_code == 2 and "no results yet" in result.output.replace("\n", " ")


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


def test_run_then_reports_in_every_format_and_replays(tmp_path):
    config = tmp_path / "small.toml"
    config.write_text('name = "small"\nseed = 3\ndeals = 1\nworkers = 1\n'
                      'bots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    result = invoke("tournament", "run", str(config))
    assert result.exit_code == 0, result.output
    assert "6 games stored" in result.output.replace("\n", " ")

    table = invoke("standings", str(config))
    assert table.exit_code == 0 and "heuristic_bot" in table.output
    as_json = invoke("standings", str(config), "--format", "json")
    data = json.loads(as_json.output)
    assert data["games"] == 6
    out = tmp_path / "s.csv"
    assert invoke("standings", str(config), "--format", "csv", "-o", str(out)).exit_code == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert {r["bot"] for r in rows} == {"heuristic_bot", "random_bot", "shell_bot"}
    html = tmp_path / "s.html"
    assert invoke("standings", str(config), "--format", "html", "-o", str(html)).exit_code == 0
    tags = _Tags()
    tags.feed(html.read_text())
    assert "table" in tags.tags and "svg" in tags.tags
    by_suffix = tmp_path / "by-suffix.HTML"  # -o alone: the format follows the file's suffix
    assert invoke("standings", str(config), "-o", str(by_suffix)).exit_code == 0
    assert by_suffix.read_text().replace("by-suffix-games/", "s-games/") == html.read_text()
    assert sorted(p.name for p in (tmp_path / "s-games").iterdir()) == \
        [".pages.json", "1.html", "2.html", "3.html", "4.html", "5.html", "6.html", "index.html", "replay.css", "replay.js"]
    markdown = invoke("standings", str(config), "--format", "markdown")
    assert "| heuristic_bot" in markdown.output or "heuristic_bot |" in markdown.output
    bad = invoke("standings", str(config), "--format", "pdf")
    assert bad.exit_code == 2 and "--format" in bad.output
    assert invoke("standings", str(config), "--format", "JSON").output == as_json.output
    # A suffix no format has: refused, rather than a text table in "standings.PDF".
    unknown = invoke("standings", str(config), "-o", str(tmp_path / "standings.PDF"))
    assert unknown.exit_code == 2 and "'.PDF'" in unknown.output and not (tmp_path / "standings.PDF").exists()
    text_file = tmp_path / "standings.txt"
    assert invoke("standings", str(config), "-o", str(text_file)).exit_code == 0
    assert "heuristic_bot" in text_file.read_text()
    hard_link = tmp_path / "hard.json"  # another name for the config itself: it was overwritten
    os.link(config, hard_link)
    before = config.read_text()
    refused = invoke("standings", str(config), "-o", str(hard_link))
    assert refused.exit_code == 2 and "this tournament's own config" in " ".join(refused.output.split())
    assert config.read_text() == before

    replay = invoke("replay", str(config), "1")
    assert replay.exit_code == 0 and "skitgubbe" in replay.output
    # Game numbers are the tournament's own (the ones bots are sent), not the order of storing.
    fourth = invoke("replay", str(config), "4")
    assert fourth.exit_code == 0 and fourth.output.startswith("game 4 (t0000-d0000-s03)")
    assert invoke("replay", str(config), "t0000-d0000-s03").output == fourth.output
    beyond = invoke("replay", str(config), "7")
    assert beyond.exit_code == 2 and "numbers from 1 to 6" in beyond.output
    seat_view = invoke("replay", str(config), "1", "--seat", "0")
    assert seat_view.exit_code == 0
    for seat in ("5", "3", "-1"):  # the table's own seats, not the option's range of every table size
        wrong = invoke("replay", str(config), "1", "--seat", seat)
        assert wrong.exit_code == 2 and "game 1 has 3 seats: give --seat 0 to 2" in " ".join(wrong.output.split())
    missing = invoke("replay", str(config), "999")
    assert missing.exit_code == 2

    # A changed config that makes stored results incompatible is refused with a clear message.
    config.write_text(config.read_text().replace("seed = 3", "seed = 4"))
    changed = invoke("tournament", "run", str(config))
    assert changed.exit_code == 2 and "seed" in changed.output


@contextlib.contextmanager
def _run_lock_held_elsewhere(database: Path):
    """Another run holding the tournament: a child process that claims the results and waits.
    SIGKILL at the end: the kernel drops the claim with the process, so no stale lock survives."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from arena.results.store import ResultStore; s = ResultStore(sys.argv[1]); "
         "s.lock_for_run(); print('locked', flush=True); sys.stdin.read()", str(database)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield holder.pid
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()


def test_a_second_run_of_a_running_tournament_is_refused_and_plays_nothing(tmp_path):
    """Two runs at once would both play every missing game; the second is refused instead."""
    from arena.results.store import ResultStore

    config = tmp_path / "busy.toml"
    config.write_text('name = "busy"\nseed = 3\ndeals = 1\nworkers = 1\n'
                      'bots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    database = tmp_path / "busy.sqlite"
    with _run_lock_held_elsewhere(database) as holder_pid:
        refused = invoke("tournament", "run", str(config))
        text = refused.output.replace("\n", " ")
        assert refused.exit_code == 1, refused.output
        assert "another run of this tournament" in text and f"pid {holder_pid}" in text
        store = ResultStore(database)
        assert store.game_count() == 0  # the refused run played nothing
        store.close()
    result = invoke("tournament", "run", str(config))
    assert result.exit_code == 0, result.output
    assert "6 games stored" in result.output.replace("\n", " ")

    # A run refused while another holds the tournament changes nothing, not even raised deals:
    # the fingerprint was once updated before the lock was tried, and then the running tournament's
    # own config (1 deal) could no longer read or resume its results.
    with _run_lock_held_elsewhere(database):
        config.write_text(config.read_text().replace("deals = 1", "deals = 2"))
        again = invoke("tournament", "run", str(config))
        assert again.exit_code == 1 and "another run of this tournament" in again.output, again.output
    store = ResultStore(database)
    assert store.fingerprint()["deals"] == 1
    store.close()


def test_reports_never_write_over_or_into_files_that_are_not_theirs(tmp_path):
    import shutil

    # A bot of our own (a copy of shell_bot), so that we can change its files afterwards.
    shutil.copytree(Path(__file__).resolve().parents[2] / "bots" / "shell_bot", tmp_path / "mine")
    config = tmp_path / "own.toml"
    config.write_text('name = "own"\nseed = 5\ndeals = 1\nworkers = 1\n'
                      f'bots = ["heuristic_bot", "random_bot", "{tmp_path / "mine" / "bot.toml"}"]\n')
    assert invoke("tournament", "run", str(config), "--unchecked").exit_code == 0
    database = tmp_path / "own.sqlite"

    # -o onto the tournament's own files is refused; both stay as they were.
    for target in (database, config):
        kept = target.read_bytes()
        refused = invoke("standings", str(config), "--format", "csv", "-o", str(target))
        assert refused.exit_code == 2 and "own" in refused.output
        assert target.read_bytes() == kept
    unwritable = invoke("standings", str(config), "-o", str(tmp_path / "no" / "such" / "dir.txt"))
    assert unwritable.exit_code == 2 and "cannot write the report" in unwritable.output.replace("\n", " ")

    # A report on some other SQLite file refuses it and leaves it untouched.
    other = tmp_path / "other.db"
    with connected(other) as db:
        db.execute("CREATE TABLE x (a)")
    foreign = tmp_path / "foreign.toml"
    foreign.write_text(f'bots = ["heuristic_bot", "random_bot", "shell_bot"]\ndatabase = "{other}"\n')
    result = invoke("standings", str(foreign))
    assert result.exit_code == 2 and "not an arena results database" in result.output.replace("\n", " ")
    with connected(other) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("x",)]

    # A bot edited after the tournament: its stored games can still be read, with a note.
    (tmp_path / "mine" / "bot.sh").write_text((tmp_path / "mine" / "bot.sh").read_text() + "\n# edited\n")
    edited = invoke("standings", str(config), "--format", "json")
    assert edited.exit_code == 0, edited.output
    assert "bot files changed" in edited.output
    assert invoke("replay", str(config), "1").exit_code == 0
    assert invoke("replay", str(config), "99999999999999999999999").exit_code == 2
    # ...but a run refuses to mix new games with the old ones, and says both ways on.
    rerun = invoke("tournament", "run", str(config), "--unchecked")
    assert rerun.exit_code == 2
    # It names the bot whose files changed, and which files, not every bot's hash.
    said = " ".join(rerun.output.split())
    assert "shell_bot's files changed since its games were stored (version " in said, said  # (mine/ holds a shell_bot)
    assert ": changed bot.sh)" in said and "random_bot" not in said.split("To keep")[0], said
    assert "--update" in said and 'on_change = "replay"' in said


@pytest.mark.parametrize("command", [["play", "random_bot", "random_bot", "random_bot"],
                                     ["tournament", "new", "unused.toml", "-b", "a", "-b", "b", "-b", "c"],
                                     ["bot", "check", "random_bot"]])
@pytest.mark.parametrize("value", ["nan", "inf", "0", "601"])
def test_time_limit_options_must_be_finite_and_bounded(tmp_path, command, value):
    command = [str(tmp_path / part) if part == "unused.toml" else part for part in command]
    result = invoke(*command, "--move-timeout", value)
    assert result.exit_code == 2
    assert "from 0.01 to 600" in " ".join(result.output.replace("│", " ").split())  # unboxed, unwrapped
    assert not (tmp_path / "unused.toml").exists()


def test_a_full_disk_stops_the_run_cleanly_and_keeps_what_is_stored(tmp_path, monkeypatch):
    import sqlite3

    from arena.results.store import ResultStore

    real_add = ResultStore.add_encoded
    calls = {"n": 0}

    def add_until_full(self, games):
        calls["n"] += 1
        if calls["n"] > 3:
            raise sqlite3.OperationalError("database or disk is full")
        return real_add(self, games)

    monkeypatch.setattr(ResultStore, "add_encoded", add_until_full)
    config = tmp_path / "full.toml"
    config.write_text('name = "full"\nseed = 3\ndeals = 2\nworkers = 1\n'
                      'bots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    result = invoke("tournament", "run", str(config))
    text = " ".join(result.output.split())
    assert result.exit_code == 1
    assert "database or disk is full" in text and "Stopped with 3 games stored" in text
    assert "Resume with: arena tournament run" in text
    monkeypatch.setattr(ResultStore, "add_encoded", real_add)
    resumed = invoke("tournament", "run", str(config))
    assert resumed.exit_code == 0 and "12 games stored (9 played now)" in " ".join(resumed.output.split())


@pytest.mark.parametrize("extra, message", [
    # Named as the options given, not as keys of a file that was never written.
    (["-b", "no_such_bot"], "error: --bot: /"),
    (["-b", "no_such_bot"], "no bot named 'no_such_bot'"),
    (["-b", "random_bot"], "error: --bot: the bot 'random_bot' is listed twice"),
    ([], "error: --bot: 2 bots cannot fill a table of 3 (--table-size)"),
    (["-b", "shell_bot", "--deals", "200000", "--table-size", "3", "-b", "c_bot"], "error: --deals: 4 tables x 200,000"),
    (["-b", "shell_bot", "--rule", "ace_high=true", "--rule", "ace_high=false"], "given twice"),
    (["-b", "shell_bot", "--rule", "num_players=2"], "does not match --table-size 3"),
    (["-b", "shell_bot", "--name", "bad\udcff"], "not valid UTF-8"),
    # A choice of the keys' table is the option's own choice: refused, with the choices, before anything is written.
    (["-b", "shell_bot", "--schedule", "swiss"], "'--schedule': Value error, 'swiss' is not one of 'round_robin', "
                                                 "'balanced', 'gauntlet'"),
    (["-b", "shell_bot", "--schedule", "balanced"], "error: --tables: the balanced schedule needs the number of tables"),
    (["-b", "shell_bot", "-b", "c_bot", "--tables", "1"], "error: --tables: 1 table of 3 seat 3 bots"),
    (["-b", "shell_bot", "--schedule", "round_robin", "--tables", "2"], "error: --tables: only the balanced schedule"),
    (["-b", "shell_bot", "--challengers", "2"], "error: --challengers: 2 challengers of 3 bots leave 1 to fill the "
                                                "other 2 seats of a table of 3 (--table-size)"),
    (["-b", "shell_bot", "--schedule", "round_robin", "--challengers", "1"],
     "error: --challengers: only the gauntlet schedule takes challengers"),
    (["-b", "shell_bot", "--schedule", "gauntlet", "--tables", "2"], "error: --tables: only the balanced schedule"),
    (["-b", "shell_bot", "--challengers", "1", "--tables", "2"],
     "error: --tables makes a balanced schedule and --challengers a gauntlet: give one of them"),
])
def test_tournament_new_writes_only_configs_that_can_run(tmp_path, extra, message):
    path = tmp_path / "n.toml"
    result = invoke("tournament", "new", str(path), "-b", "heuristic_bot", "-b", "random_bot", *extra)
    assert result.exit_code == 2 and message in " ".join(result.output.split())
    assert list(tmp_path.iterdir()) == []  # nothing written, not even an empty file


def test_a_log_folder_that_cannot_be_made_is_a_message_before_any_bot_starts(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    played = invoke("play", "random_bot", "random_bot", "--log", str(blocker / "logs"))
    assert played.exit_code == 2 and "cannot write log files" in " ".join(played.output.split())
    config = tmp_path / "t.toml"
    config.write_text('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    run = invoke("tournament", "run", str(config), "--log", str(blocker))
    assert run.exit_code == 2 and "not a folder" in " ".join(run.output.split())  # not "File exists"
    assert not (tmp_path / "t.sqlite").exists()


def test_a_bare_bot_name_means_the_bundled_bot_whatever_the_current_folder_holds(tmp_path, monkeypatch):
    from arena.submission.lookup import resolve_manifest_path
    from arena.submission.workspace import BUNDLED_BOTS_DIR

    (tmp_path / "random_bot").mkdir()
    (tmp_path / "random_bot" / "bot.toml").write_text('name = "random_bot"\ncommand = ["false"]\n')
    monkeypatch.chdir(tmp_path)
    assert resolve_manifest_path("random_bot") == BUNDLED_BOTS_DIR / "random_bot" / "bot.toml"
    assert resolve_manifest_path("./random_bot").resolve() == tmp_path / "random_bot" / "bot.toml"


def test_play_exits_non_zero_when_a_bot_could_never_start(tmp_path):
    bot = tmp_path / "ghost"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "ghost"\ncommand = ["./no-such-program"]\n')
    result = invoke("play", str(bot), "random_bot", "--games", "1")
    assert result.exit_code == 1
    assert "Match result after 1 game" in result.output and "1 games" not in result.output  # the match is still played and shown
    assert "ghost could not start" in " ".join(result.output.split())


def _copy_of_random_bot(folder: Path, name: str) -> Path:
    from arena.submission.workspace import BUNDLED_BOTS_DIR

    folder.mkdir(parents=True)
    source = (BUNDLED_BOTS_DIR / "random_bot" / "bot.toml").read_text()
    (folder / "bot.toml").write_text(source.replace('name = "random_bot"', f'name = "{name}"'))
    for item in (BUNDLED_BOTS_DIR / "random_bot").iterdir():
        if item.is_file() and item.name != "bot.toml":
            (folder / item.name).write_bytes(item.read_bytes())
    return folder


def test_a_relative_bot_path_in_a_config_starts_from_the_configs_folder(tmp_path, monkeypatch):
    from arena.tournament.config import load_config, load_entries

    _copy_of_random_bot(tmp_path / "mybots" / "mine", "mine")
    config = tmp_path / "tournaments" / "t.toml"
    config.parent.mkdir()
    config.write_text('bots = ["../mybots/mine", "random_bot", "heuristic_bot"]\n')
    elsewhere = tmp_path / "else" / "where"  # where ../mybots/mine is no bot
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)  # the same config plays the same bots from any folder
    _, manifests = load_entries(load_config(config))
    assert manifests["mine"].directory == (tmp_path / "mybots" / "mine").resolve()


def test_tournament_new_writes_a_balanced_schedule_and_a_database_path(tmp_path, monkeypatch):
    """--tables alone means the balanced schedule; --database starts from the current folder, and
    is written relative to the config's folder, where the config's paths start."""
    monkeypatch.chdir(tmp_path)
    result = invoke("tournament", "new", "tournaments/b.toml", "-b", "heuristic_bot", "-b", "random_bot",
                    "-b", "shell_bot", "-b", "c_bot", "--tables", "4", "--database", "results/b.sqlite")
    assert result.exit_code == 0, result.output
    data = tomllib.loads((tmp_path / "tournaments" / "b.toml").read_text())
    assert data["schedule"] == "balanced" and data["tables"] == 4
    assert data["database"] == "../results/b.sqlite"
    from arena.tournament.config import load_config

    monkeypatch.chdir(tmp_path / "tournaments")
    config = load_config(Path("b.toml"))
    assert config.database.resolve() == tmp_path / "results" / "b.sqlite"
    assert (config.schedule, config.tables) == ("balanced", 4)


def test_tournament_new_writes_bot_paths_relative_to_the_config(tmp_path, monkeypatch):
    _copy_of_random_bot(tmp_path / "mybots" / "mine", "mine")
    monkeypatch.chdir(tmp_path)
    result = invoke("tournament", "new", "tournaments/t.toml", "-b", "mybots/mine", "-b", "random_bot",
                    "-b", "heuristic_bot")
    assert result.exit_code == 0, result.output
    assert tomllib.loads((tmp_path / "tournaments" / "t.toml").read_text())["bots"] == [
        "../mybots/mine", "random_bot", "heuristic_bot"]
    from arena.tournament.config import load_config, load_entries

    monkeypatch.chdir(tmp_path / "tournaments")
    _, manifests = load_entries(load_config(Path("t.toml")))  # from the config's own folder too
    assert manifests["mine"].directory == (tmp_path / "mybots" / "mine").resolve()


def test_a_ctrl_c_before_the_first_game_gets_the_stop_message(tmp_path, monkeypatch):
    """Between opening the results (which may have changed their deals) and the live board, a
    Ctrl-C ended the run with exit code 130 and no word."""
    import arena.tournament.session

    def interrupted(config):
        raise KeyboardInterrupt

    monkeypatch.setattr(arena.tournament.session, "build_schedule", interrupted)
    path = tmp_path / "c.toml"
    path.write_text('seed = 2\ndeals = 1\nworkers = 1\nbots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    result = invoke("tournament", "run", str(path))
    said = " ".join(result.output.split())
    assert result.exit_code == 130, result.output
    assert "stopped: 0 games are stored and kept" in said and "resume with: arena tournament run" in said


def test_suggested_commands_are_quoted_for_the_shell(tmp_path):
    """'run it with: arena tournament run my folder/t.toml' broke when pasted."""
    path = tmp_path / "my folder" / "t.toml"
    result = invoke("tournament", "new", str(path), "-b", "heuristic_bot", "-b", "random_bot", "-b", "shell_bot")
    assert result.exit_code == 0, result.output
    assert f"run it with: arena tournament run '{path}'" in " ".join(result.output.split())
    missing = invoke("standings", str(path))
    assert f"(run: arena tournament run '{path}')" in " ".join(missing.output.split())


def test_a_ctrl_c_after_the_last_game_leaves_the_summary_and_exit_code_whole(tmp_path, monkeypatch):
    """The interrupt landed after the games were stored: "done" with exit code 130, or no
    closing message at all."""
    from arena.results.store import ResultStore

    original = ResultStore.start_failures

    def interrupted(self):
        os.kill(os.getpid(), signal.SIGINT)  # the user's Ctrl-C, while the summary is being made
        return original(self)

    monkeypatch.setattr(ResultStore, "start_failures", interrupted)
    path = tmp_path / "c.toml"
    path.write_text('seed = 2\ndeals = 1\nworkers = 1\nbots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    result = invoke("tournament", "run", str(path))  # tests/conftest.py puts the signal handlers back
    assert result.exit_code == 0, result.output
    assert "done: 6 games stored (6 played now)" in " ".join(result.output.split())


def test_tournament_run_bounds_workers_as_the_config_does(tmp_path):
    """--workers 1000 started as many worker processes (up to one per table), where the config's
    `workers` stops at 256."""
    path = tmp_path / "w.toml"
    path.write_text('bots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    result = invoke("tournament", "run", str(path), "--workers", "1000")
    assert result.exit_code == 2
    assert "--workers 1000: expected a whole number from 1 to 256" in " ".join(result.output.split())
    assert not (tmp_path / "w.sqlite").exists()


def test_tournament_new_on_a_read_only_filesystem_is_a_clear_error(tmp_path, monkeypatch):
    """There even removing the partial file fails: that second error came out as a traceback."""
    import errno

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    from arena.tournament import output_files

    monkeypatch.setattr(output_files.os, "replace", read_only)
    monkeypatch.setattr(output_files.os, "unlink", read_only)
    result = invoke("tournament", "new", str(tmp_path / "t.toml"), "-b", "random_bot", "-b", "heuristic_bot",
                    "-b", "shell_bot")
    assert result.exit_code == 2
    assert "cannot write the config (Read-only file system)" in " ".join(result.output.split())


def test_tournament_new_keeps_a_bot_folder_beside_the_config_a_path(tmp_path, monkeypatch):
    """A copy of random_bot in ./random_bot was written as "random_bot": a name, which means the
    bundled bot first, so the organiser's own copy never played."""
    _copy_of_random_bot(tmp_path / "random_bot", "my_random")
    monkeypatch.chdir(tmp_path)
    result = invoke("tournament", "new", "t.toml", "-b", "./random_bot", "-b", "heuristic_bot", "-b", "shell_bot")
    assert result.exit_code == 0, result.output
    assert tomllib.loads((tmp_path / "t.toml").read_text())["bots"][0] == "./random_bot"
    from arena.tournament.config import load_config, load_entries

    _, manifests = load_entries(load_config(Path("t.toml")))
    assert "my_random" in manifests and "random_bot" not in manifests


def test_a_resumed_run_notes_limits_changed_since_the_stored_games(tmp_path):
    config = tmp_path / "limits.toml"
    base = 'seed = 4\ndeals = 1\nworkers = 1\nbots = ["heuristic_bot", "random_bot", "shell_bot"]\n'
    config.write_text(base)
    first = invoke("tournament", "run", str(config))
    assert first.exit_code == 0 and "note:" not in first.output
    config.write_text(base + "[limits]\nmove_timeout_s = 3.5\n[sandbox]\nopen_files = 100\n")
    again = " ".join(invoke("tournament", "run", str(config)).output.split())
    assert "note: limits changed since the last stored game: move_timeout_s was 2.0, now 3.5" in again
    assert "random_bot: open_files was 256, now 100" in again


def _set_stored_layout(database: Path, layout: str | None) -> None:
    """Make stored results look like an older arena's: game_numbers "by_deal", or absent (None)."""

    with connected(database) as db:
        stored = json.loads(db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()[0])
        if layout is None:
            del stored["game_numbers"]
        else:
            stored["game_numbers"] = layout
        db.execute("UPDATE meta SET value = ? WHERE key = 'fingerprint'", (json.dumps(stored, sort_keys=True),))
    db.close()


def test_game_numbers_pair_table_and_deal_and_older_results_keep_their_own(tmp_path):
    """New results number a game from its (table, deal) pair, which leaves gaps. Results stored by
    an arena that numbered deal by deal, or table by table (no game_numbers in their fingerprint),
    keep their numbers: bots were sent them, and a resumed run must send the same."""
    _copy_of_random_bot(tmp_path / "one", "one")
    _copy_of_random_bot(tmp_path / "two", "two")
    config = tmp_path / "n.toml"  # 4 tables x 2 deals x 6 seatings; paired numbers run to 84
    config.write_text('bots = ["random_bot", "heuristic_bot", "one", "two"]\ndeals = 2\nworkers = 1\n')
    assert invoke("tournament", "run", str(config), "--unchecked").exit_code == 0
    assert invoke("replay", str(config), "37").output.startswith("game 37 (t0002-d0000-s00)")
    gap = invoke("replay", str(config), "25")  # (table 0, deal 2): no such deal
    assert gap.exit_code == 2 and "numbers from 1 to 84 (with gaps" in " ".join(gap.output.split())
    _set_stored_layout(tmp_path / "n.sqlite", "by_deal")
    assert invoke("replay", str(config), "37").output.startswith("game 37 (t0002-d0001-s00)")
    _set_stored_layout(tmp_path / "n.sqlite", None)
    assert invoke("replay", str(config), "37").output.startswith("game 37 (t0003-d0000-s00)")
    again = invoke("tournament", "run", str(config), "--unchecked")
    assert again.exit_code == 0 and "nothing to play" in again.output
    config.write_text(config.read_text().replace("deals = 2", "deals = 3"))
    more = invoke("tournament", "run", str(config), "--unchecked")
    assert more.exit_code == 2 and "numbered games table by table" in " ".join(more.output.split())


def test_a_tournament_with_a_bot_that_cannot_start_ends_with_an_error_naming_it(tmp_path):
    # It played every game (the bot's moves were the referee's), stored them, and exited 0 with
    # nothing said: only the fault column hinted that a bot never played.
    (tmp_path / "ghost").mkdir()
    (tmp_path / "ghost" / "bot.toml").write_text('name = "ghost"\ncommand = ["/no/such/program"]\n')
    config = tmp_path / "t.toml"
    config.write_text('bots = ["random_bot", "heuristic_bot", "ghost"]\ndeals = 1\n')
    result = invoke("tournament", "run", str(config), "--unchecked", "--workers", "1")
    said = " ".join(result.output.split())
    assert result.exit_code == 1, said
    assert "done: 6 games stored" in said
    assert "ghost could not start in 6 games" in said and "No such file or directory" in said
    # the latest reason: the first game's "2 failed starts in a row" read as if 2 of the 6 had been tried
    assert "(not started again in this match after 3 failed starts in a row; the last: cannot start" in said
    assert f"so its moves there were the referee's. Check it with: arena bot check {tmp_path / 'ghost'}" in said
    from arena.results.store import ResultStore

    store = ResultStore(tmp_path / "t.sqlite", read_only=True)
    details = [f["detail"] for row in store.rows(with_transcripts=False) for f in row.faults if f["kind"] == "no_hello"]
    store.close()
    # once the restarts are given up, later games say so instead of seeming to try again
    assert any("not started again in this match after 3 failed starts in a row; the last: " in d for d in details)


def test_a_results_file_locked_by_another_program_is_a_message_not_a_traceback(tmp_path, monkeypatch):
    # An sqlite3 shell left in a write transaction, say: the run used to end in a traceback
    # from sqlite3 after the busy timeout, and the message blamed the config's `database` key.
    import sqlite3

    from arena.results.store import ResultStore

    monkeypatch.setattr("arena.results.database.BUSY_TIMEOUT_S", 0.2)
    config = tmp_path / "held.toml"
    config.write_text('name = "held"\nseed = 3\ndeals = 1\nbots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    database = tmp_path / "held.sqlite"
    ResultStore(database).close()
    shell = sqlite3.connect(database, isolation_level=None)
    shell.execute("BEGIN IMMEDIATE")
    try:
        result = invoke("tournament", "run", str(config))
    finally:
        shell.execute("ROLLBACK")
        shell.close()
    text = result.output.replace("\n", " ")
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert "stayed locked by another program for 0.2 s" in text and "'database'" not in text


def _stored_games(database: Path) -> dict[str, tuple]:
    from arena.results.store import ResultStore

    with ResultStore(database, read_only=True) as store:
        return {row.key: (row.bots, row.seed, row.points) for row in store.rows(with_transcripts=False)}


def test_a_bot_added_at_the_end_plays_only_its_new_tables_and_ends_as_if_there_from_the_start(tmp_path):
    """The organiser adds a bot to a finished round robin (as gomill's ringmaster allows): the
    stored games stay, only the new tables are played, and the standings are exactly those of a
    tournament that had the bot from the start."""
    for name in ("one", "two", "three"):
        _copy_of_random_bot(tmp_path / name, name)
    grown = tmp_path / "grown.toml"
    three_bots = 'bots = ["random_bot", "heuristic_bot", "./one"]\ndeals = 1\nworkers = 1\n' + GENEROUS_LIMITS
    grown.write_text(three_bots)
    first = invoke("tournament", "run", str(grown), "--unchecked")
    assert first.exit_code == 0 and "done: 6 games stored" in first.output
    stored_before = _stored_games(tmp_path / "grown.sqlite")
    four_bots = three_bots.replace('"./one"]', '"./one", "./two"]')
    grown.write_text(four_bots)
    # The report, before the run, shows the stored games and says what the run will add.
    report = invoke("standings", str(grown))
    assert report.exit_code == 0 and "the config adds two" in " ".join(report.output.split())
    # A bot added and taken out again before any of its games is stored: accepted both ways.
    grown.write_text(four_bots.replace('"./two"]', '"./two", "./three"]'))
    from arena.results.store import ResultStore

    with ResultStore(tmp_path / "grown.sqlite") as store:
        store.check_fingerprint(_fingerprint_of(grown))
    grown.write_text(four_bots)
    said = _run_ok(grown)
    assert "bot taken out: three: none of their games was stored" in said
    assert "done: 24 games stored (18 played now)" in said
    stored_after = _stored_games(tmp_path / "grown.sqlite")
    assert all(stored_after[key] == game for key, game in stored_before.items())

    fresh = tmp_path / "fresh.toml"
    fresh.write_text(four_bots)
    assert invoke("tournament", "run", str(fresh), "--unchecked").exit_code == 0
    assert_no_load_faults(tmp_path / "grown.sqlite")
    assert_no_load_faults(tmp_path / "fresh.sqlite")
    assert _stored_games(tmp_path / "fresh.sqlite") == stored_after
    assert _without_facts(invoke("standings", str(grown), "--format", "json").output) == \
        _without_facts(invoke("standings", str(fresh), "--format", "json").output)

    grown.write_text(three_bots)  # `two` has stored games now: taken out, it is withdrawn, on the organiser's word
    refused = " ".join(invoke("tournament", "run", str(grown), "--unchecked").output.split())
    assert "two is not in the config's bots any more, and has stored games" in refused and "--update" in refused
    grown.write_text(four_bots.replace('"./one", "./two"]', '"./two", "./one"]'))
    moved = " ".join(invoke("tournament", "run", str(grown), "--unchecked").output.split())
    assert "new bots go at the end of the list" in moved
    assert _stored_games(tmp_path / "grown.sqlite") == stored_after


def _run_ok(config: Path) -> str:
    """`tournament run` that must succeed; its output on one line."""
    result = invoke("tournament", "run", str(config), "--unchecked")
    said = " ".join(result.output.split())
    assert result.exit_code == 0, said
    return said


def _fingerprint_of(config_path: Path) -> dict:
    from arena.tournament.opening import bot_versions
    from arena.tournament.runner import fingerprint
    from arena.tournament.config import load_config, load_entries

    config, manifests = load_entries(load_config(config_path))
    return fingerprint(config, manifests, bot_versions(manifests))


def test_a_gauntlet_plays_its_challenger_against_the_field_ranks_by_points_per_game_and_grows(tmp_path):
    """schedule = "gauntlet" (cutechess-cli's name): the challenger meets every pair of the field
    and the field never plays without it; the standings rank by points per game, since the
    challenger plays every game; a bot added at the end joins the field as in a round robin."""
    for name in ("one", "two", "three"):
        _copy_of_random_bot(tmp_path / name, name)
    config = tmp_path / "g.toml"
    created = invoke("tournament", "new", str(config), "-b", "heuristic_bot", "-b", "random_bot",
                     "-b", str(tmp_path / "one"), "-b", str(tmp_path / "two"), "--challengers", "1",
                     "--deals", "1", "--workers", "1", *GENEROUS_LIMIT_OPTIONS)
    assert created.exit_code == 0, created.output
    assert 'schedule = "gauntlet"' in config.read_text() and "challengers = 1" in config.read_text()
    said = _run_ok(config)
    assert "gauntlet: heuristic_bot against every 2 of the other 3 bots: 3 tables" in said
    assert "done: 18 games stored" in said
    stored = _stored_games(tmp_path / "g.sqlite")
    assert all("heuristic_bot" in bots for bots, _, _ in stored.values())
    report = json.loads(invoke("standings", str(config), "--format", "json").output)
    assert report["ranked_by"] == "points_per_game"
    games = {b["bot"]: b["games"] for b in report["bots"]}
    assert games == {"heuristic_bot": 18, "random_bot": 12, "one": 12, "two": 12}
    per_game = [b["points_per_game"] for b in report["bots"]]
    assert per_game == sorted(per_game, reverse=True)
    assert "ranked by points per game" in " ".join(invoke("standings", str(config)).output.split())

    data = tomllib.loads(config.read_text())
    data["bots"].append("./three")
    config.write_text(tomli_w.dumps(data))
    grown = invoke("tournament", "run", str(config), "--unchecked")
    assert grown.exit_code == 0 and "done: 36 games stored (18 played now)" in " ".join(grown.output.split())
    stored_after = _stored_games(tmp_path / "g.sqlite")
    assert all(stored_after[key] == game for key, game in stored.items())
    fresh = tmp_path / "fresh.toml"
    fresh.write_text(config.read_text())
    assert invoke("tournament", "run", str(fresh), "--unchecked").exit_code == 0
    assert_no_load_faults(tmp_path / "g.sqlite")
    assert_no_load_faults(tmp_path / "fresh.sqlite")
    assert _stored_games(tmp_path / "fresh.sqlite") == stored_after


def _without_facts(report: str) -> dict:
    """A JSON report without the tournament's facts (its name and when it ran differ)."""
    data = json.loads(report)
    data.pop("tournament")
    return data


def test_a_stopped_run_says_how_to_resume_with_the_options_it_was_started_with(tmp_path, monkeypatch):
    """An organiser's trial: the resume hint after Ctrl-C left out --html and --workers, and the
    resumed run kept no page and took every core."""
    import arena.tournament.session

    def interrupted(config):
        raise KeyboardInterrupt

    monkeypatch.setattr(arena.tournament.session, "build_schedule", interrupted)
    path = tmp_path / "c.toml"
    path.write_text('seed = 2\ndeals = 1\nbots = ["heuristic_bot", "random_bot", "shell_bot"]\n')
    page, logs = tmp_path / "page.html", tmp_path / "logs"
    result = invoke("tournament", "run", str(path), "--workers", "1", "--html", str(page), "--log", str(logs))
    said = " ".join(result.output.split())
    assert result.exit_code == 130, result.output
    assert f"resume with: arena tournament run {path} --workers 1 --log {logs} --html {page}" in said


def test_standings_in_a_terminal_lead_with_the_table_and_give_the_facts_when_asked(tmp_path):
    """An organiser's trial: the facts filled the first screen and pushed the table out of sight;
    now the table comes first, the facts with --facts, after the details (and in a -o file)."""
    config = tmp_path / "t.toml"
    config.write_text('seed = 3\ndeals = 1\nworkers = 1\nbots = ["heuristic_bot", "random_bot", "shell_bot"]\n'
                      + GENEROUS_LIMITS)
    assert invoke("tournament", "run", str(config)).exit_code == 0
    plain = invoke("standings", str(config))
    lines = [line for line in plain.output.splitlines() if line.strip()]
    assert plain.exit_code == 0 and lines[0].strip().startswith("t (6 games)")
    assert "seed" not in plain.output and f"arena standings {config} --facts" in " ".join(plain.output.split())
    assert "Rating groups" in plain.output or "rating" in plain.output
    with_facts = invoke("standings", str(config), "--facts").output
    assert with_facts.index("Finishing places by seat") < with_facts.index("About this tournament") \
        < with_facts.index("seed")
    written = tmp_path / "s.txt"
    assert invoke("standings", str(config), "-o", str(written)).exit_code == 0
    assert "seed" in written.read_text() and written.read_text().lstrip().startswith("t (6 games)")
