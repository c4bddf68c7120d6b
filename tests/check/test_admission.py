"""Checked bots (issue 39, docs/organising.md): a version enters a tournament only once it passed
`arena bot check` on this machine, kept where no author writes; a check record in the bot's own
folder, which its author can forge, lets nothing in; the organiser lets a bot in all the same with
`--unchecked` (this run) or `[grant.NAME] unchecked = true` (that bot)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.bots_support import BOTS_DIR
from tests.cli_support import invoke


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """A cache of this test's own: a check of the same version elsewhere must not let it in here."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _bot(folder: Path, start: str = "") -> Path:
    folder.mkdir()
    shutil.copy(BOTS_DIR / "random_bot" / "bot.py", folder / "bot.py")
    command = '["sh", "-c", "exit 3"]' if start == "dies" else '["{python}", "bot.py"]'
    (folder / "bot.toml").write_text(f'name = "{folder.name}"\ncommand = {command}\n')
    return folder


def _config(tmp_path: Path, name: str, extra: str = "") -> Path:
    config = tmp_path / f"{name}.toml"
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "{tmp_path / "mine"}"]\ndeals = 1\nworkers = 1\n{extra}')
    return config


def _said(result) -> str:
    return " ".join(result.output.split())


def test_a_version_not_checked_here_enters_only_when_the_organiser_lets_it_in(tmp_path):
    _bot(tmp_path / "mine")
    config = _config(tmp_path, "t")
    refused = invoke("tournament", "run", str(config))
    said = _said(refused)
    assert refused.exit_code == 2, said
    assert "mine version" in said and "has not been checked on this machine" in said, said
    assert f"arena bot check {tmp_path / 'mine'}" in said and "--unchecked" in said, said
    assert f"[grant.NAME] unchecked = true to {config}" in said, said
    assert not config.with_suffix(".sqlite").exists()  # refused before anything was stored

    # The author's own record of a pass, in the folder they hand in, is no check of ours.
    version = said.split("mine version ")[1].split()[0]
    (tmp_path / "mine" / ".check.json").write_text(json.dumps({"passed": True, "version": version, "date": "2099-01-01"}))
    forged = invoke("tournament", "run", str(config))
    assert forged.exit_code == 2 and "has not been checked on this machine" in _said(forged)

    let_in = invoke("tournament", "run", str(config), "--unchecked")
    assert let_in.exit_code == 0, _said(let_in)
    assert f"let in unchecked by --unchecked: mine version {version} has not been checked" in _said(let_in)

    granted = _config(tmp_path, "g", "[grant.mine]\nunchecked = true\n")
    by_config = invoke("tournament", "run", str(granted))
    assert by_config.exit_code == 0 and "let in unchecked by [grant.mine] unchecked = true" in _said(by_config)


def test_a_version_that_passed_its_check_here_enters_and_one_that_failed_does_not(tmp_path):
    _bot(tmp_path / "mine")
    assert invoke("bot", "check", str(tmp_path / "mine"), "--games", "1").exit_code == 0
    config = _config(tmp_path, "t")
    entered = invoke("tournament", "run", str(config))
    assert entered.exit_code == 0 and "unchecked" not in _said(entered), _said(entered)

    shutil.rmtree(tmp_path / "mine")
    _bot(tmp_path / "mine", start="dies")  # a new version, which fails its check
    assert invoke("bot", "check", str(tmp_path / "mine"), "--games", "1").exit_code == 1
    refused = invoke("tournament", "run", str(_config(tmp_path, "f")))
    said = _said(refused)
    assert refused.exit_code == 2 and "failed its check of" in said and "(handshake, games" in said, said


def test_tournament_new_names_the_bots_the_run_will_refuse_and_how_to_let_them_in(tmp_path):
    """The teacher's trial: `tournament new` wrote the config, and only the run said that a bot
    needed its check; the bundled bots are the arena's own and need none."""
    from arena.submission.lookup import load_manifest
    from arena.submission.registry import keep_check
    from arena.submission.versions import content_hash

    mine, theirs = _bot(tmp_path / "mine"), _bot(tmp_path / "theirs")
    config = tmp_path / "t.toml"

    def new() -> str:
        made = invoke("tournament", "new", str(config), "-b", str(mine), "-b", str(theirs), "-b", "random_bot",
                      "--deals", "1", "--force")
        assert made.exit_code == 0, made.output
        return _said(made)

    said = new()
    assert "2 bots will not play until their version passes `arena bot check` on this machine" in said, said
    assert f"mine version {content_hash(load_manifest(mine))} has not been checked on this machine: " \
           f"arena bot check {mine}" in said, said
    assert f"arena bot check {theirs}" in said and "random_bot" not in said.split("this machine:")[1], said
    assert f"[grant.mine] unchecked = true to {config}" in said and "--unchecked" in said, said
    keep_check("mine", {"bot": "mine", "version": content_hash(load_manifest(mine)), "passed": True})
    keep_check("theirs", {"bot": "theirs", "version": content_hash(load_manifest(theirs)), "passed": False,
                          "checks": [{"name": "handshake", "passed": False}]})
    said = new()
    assert "1 bot will not play until its version passes" in said and "theirs version" in said, said
    assert "failed its check of" in said and "(handshake)" in said and f"arena bot check {mine}" not in said, said
    assert invoke("tournament", "run", str(config)).exit_code == 2  # as it said: theirs is refused


@pytest.mark.slow
def test_a_bot_added_with_force_is_listed_as_failed_and_plays_only_where_the_organiser_grants_it(tmp_path):
    """The organiser's trial: a student's broken bot could not be registered on purpose. `bot add
    --force` registers it, `bot list` shows its failed check, and the check gate stays: a tournament
    takes it only by the organiser's grant, and there it loses by its faults."""
    folder = tmp_path / "src" / "mine"
    folder.mkdir(parents=True)
    # Always "draw": illegal whenever drawing is not among the legal moves.
    (folder / "bot.py").write_text(
        "import sys\nfor line in sys.stdin:\n    t = line.split()\n"
        "    if t and t[0] == 'hello': print('hello name=mine', flush=True)\n"
        "    elif t and t[0] == 'request': print(f'move {t[1]} draw', flush=True)\n"
        "    elif t and t[0] == 'quit': break\n")
    (folder / "bot.toml").write_text('name = "mine"\ncommand = ["{python}", "bot.py"]\n')
    bots = tmp_path / "bots"
    refused = invoke("bot", "add", str(folder), "--dir", str(bots), "--games", "1")
    assert refused.exit_code == 1 and "add --force" in _said(refused) and not (bots / "mine").exists()
    forced = invoke("bot", "add", str(folder), "--dir", str(bots), "--games", "1", "--force")
    said = _said(forced)
    assert forced.exit_code == 0 and (bots / "mine" / "bot.toml").is_file(), said
    assert "registered with --force although its check failed (games, legal moves" in said, said
    assert "[grant.mine] unchecked = true" in said, said
    listing = _said(invoke("bot", "list", "--dir", str(bots)))
    assert "fail" in listing and "added with --force" in listing, listing

    config = tmp_path / "t.toml"
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "{bots / "mine"}"]\ndeals = 1\nworkers = 1\n')
    gate = invoke("tournament", "run", str(config))
    assert gate.exit_code == 2 and "failed its check of" in _said(gate), _said(gate)
    config.write_text(config.read_text() + "[grant.mine]\nunchecked = true\n")
    played = invoke("tournament", "run", str(config))
    assert played.exit_code == 0 and "let in unchecked by [grant.mine] unchecked = true" in _said(played), _said(played)
    bots_played = json.loads(invoke("standings", str(config), "--format", "json").output)["bots"]
    mine = next(b for b in bots_played if b["bot"] == "mine")
    assert mine["games"] == 6 and mine["faults_by_kind"].get("illegal", 0) > 0, mine  # it lost by its faults


def test_force_does_not_register_a_bot_that_cannot_be_built(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "broken"\nbuild = ["sh", "-c", "exit 1"]\ncommand = ["./nothing"]\n')
    result = invoke("bot", "add", str(folder), "--dir", str(tmp_path / "bots"), "--games", "1", "--force")
    assert result.exit_code == 1 and "not one whose build failed" in _said(result), _said(result)
    assert not (tmp_path / "bots" / "broken").exists()


@pytest.mark.slow
def test_replacing_a_bot_with_stored_games_says_what_becomes_of_them_and_that_the_next_run_needs_update(tmp_path):
    source = _bot(tmp_path / "mine")
    bots, tournaments = tmp_path / "ws" / "bots", tmp_path / "ws" / "tournaments"
    tournaments.mkdir(parents=True)
    assert invoke("bot", "add", str(source), "--dir", str(bots), "--games", "1").exit_code == 0
    config = tournaments / "league.toml"
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "{bots / "mine"}"]\ndeals = 1\nworkers = 1\n')
    assert invoke("tournament", "run", str(config)).exit_code == 0
    (source / "bot.py").write_text((source / "bot.py").read_text() + "\n# a fix\n")
    replaced = invoke("bot", "add", str(source), "--dir", str(bots), "--games", "1", "--replace")
    said = _said(replaced)
    assert replaced.exit_code == 0 and "new version" in said, said
    assert "note: league has games of mine stored at version" in said, said
    assert f"arena tournament run {config} --update" in said, said
    stopped = invoke("tournament", "run", str(config))  # as the note said
    assert stopped.exit_code != 0 and "--update" in _said(stopped), _said(stopped)
