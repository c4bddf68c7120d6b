"""Workspaces: a bare bot name means the workspace's bots/NAME, then the bundled bot; commands that
make things write into the workspace; a bundled bot with a build step is built in a per-user cache
(arena/submission/workspace.py, README "Install as a tool")."""

from __future__ import annotations

import shutil
from pathlib import Path

from arena.submission import workspace
from arena.submission.lookup import load_manifest, resolve_manifest_path
from arena.submission.versions import content_hash
from arena.submission.workspace import BUNDLED_BOTS_DIR, find_workspace
from arena.tournament.config import load_config, load_entries
from tests.cli_support import invoke


def copy_bot(source: str, folder: Path, name: str | None = None) -> Path:
    shutil.copytree(BUNDLED_BOTS_DIR / source, folder, ignore=shutil.ignore_patterns(".check.json", ".versions.json",
                                                                                     "__pycache__", "c_bot"))
    if name is not None:
        manifest = folder / "bot.toml"
        manifest.write_text(manifest.read_text().replace(f'name = "{source}"', f'name = "{name}"'))
    return folder


def test_a_bare_name_means_the_workspace_bot_first_then_the_bundled_one(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    copy_bot("random_bot", ws / "bots" / "random_bot")  # the workspace's own random_bot
    copy_bot("random_bot", ws / "bots" / "mine", "mine")
    (ws / "deep" / "down").mkdir(parents=True)
    monkeypatch.chdir(ws / "deep" / "down")  # the workspace is the nearest folder up with bots/
    assert find_workspace() == ws.resolve()
    assert resolve_manifest_path("random_bot").resolve() == (ws / "bots" / "random_bot" / "bot.toml").resolve()
    assert resolve_manifest_path("heuristic_bot") == BUNDLED_BOTS_DIR / "heuristic_bot" / "bot.toml"
    assert load_manifest("mine").name == "mine"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no workspace here or above: only the bundled bots
    assert find_workspace() is None
    assert resolve_manifest_path("random_bot") == BUNDLED_BOTS_DIR / "random_bot" / "bot.toml"
    missing = invoke("play", "mine", "random_bot", "--games", "1")
    assert missing.exit_code == 2 and "no bot named 'mine'" in missing.output


def test_a_configs_bare_names_are_looked_up_in_the_configs_workspace_from_any_folder(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    copy_bot("random_bot", ws / "bots" / "mine", "mine")
    config = ws / "tournaments" / "t.toml"
    config.parent.mkdir(parents=True)
    config.write_text('bots = ["mine", "random_bot", "heuristic_bot"]\n')
    other = tmp_path / "other"
    copy_bot("heuristic_bot", other / "bots" / "mine", "mine")  # another workspace's "mine"
    monkeypatch.chdir(other)
    _, manifests = load_entries(load_config(config))
    assert manifests["mine"].directory.resolve() == (ws / "bots" / "mine").resolve()
    assert manifests["random_bot"].directory == BUNDLED_BOTS_DIR / "random_bot"


def test_bot_new_writes_into_the_workspace_and_bot_list_says_which_is_which(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    ws = tmp_path / "ws"
    (ws / "tournaments").mkdir(parents=True)
    (ws / "sub").mkdir()
    monkeypatch.chdir(ws / "sub")
    made = invoke("bot", "new", "mybot")
    assert made.exit_code == 0 and (ws / "bots" / "mybot" / "bot.toml").is_file(), made.output
    assert "next: arena bot check mybot" in made.output
    assert not (BUNDLED_BOTS_DIR / "mybot").exists()
    copy_bot("random_bot", ws / "bots" / "random_bot")  # the workspace's copy hides the bundled one
    listing = invoke("bot", "list").output
    assert "workspace" in listing and "bundled, hidden by the workspace's" in listing, listing
    assert listing.index("mybot") < listing.index("heuristic_bot")  # the workspace's bots first


def test_a_bundled_bot_with_a_build_step_is_built_in_the_cache_not_in_the_package(tmp_path, monkeypatch):
    from arena.submission.prepared import prepare_bot

    installed = tmp_path / "site-packages" / "arena" / "bundled_bots"
    copy_bot("c_bot", installed / "c_bot")
    monkeypatch.setattr(workspace, "_INSTALLED_BUNDLE", installed)
    monkeypatch.setattr(workspace, "BUNDLED_BOTS_DIR", installed)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    before = sorted(p.name for p in (installed / "c_bot").iterdir())
    result = invoke("play", str(installed / "c_bot"), "random_bot", "random_bot", "--games", "1")
    assert result.exit_code == 0, result.output
    prepared = prepare_bot(load_manifest(installed / "c_bot"))
    assert not prepared.built_now  # built once per version, by the play above
    assert prepared.manifest.directory.is_relative_to(tmp_path / "cache" / "skitgubbe-arena" / "builds")
    assert prepared.version == content_hash(installed / "c_bot")  # the same version
    assert (prepared.manifest.directory / "c_bot").is_file()  # built in the cache
    assert sorted(p.name for p in (installed / "c_bot").iterdir()) == before  # nothing written in the package


def test_init_makes_a_workspace_whose_demo_runs_and_a_second_init_changes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    made = invoke("init", "league")
    assert made.exit_code == 0, made.output
    ws = tmp_path / "league"
    assert (ws / "bots" / "my_bot" / "bot.toml").is_file() and (ws / "tournaments" / "demo.toml").is_file()
    assert "tournaments/*.sqlite" in (ws / ".gitignore").read_text()
    assert "cd league" in made.output and "arena tournament run tournaments/demo.toml" in made.output
    files = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    again = invoke("init", str(ws))
    assert again.exit_code == 0 and "is a workspace already" in again.output and "nothing was changed" in again.output
    assert {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()} == files

    monkeypatch.chdir(ws)
    config = ws / "tournaments" / "demo.toml"
    config.write_text(config.read_text().replace("deals = 4", "deals = 1"))  # the same demo, shorter
    run = invoke("tournament", "run", "tournaments/demo.toml")
    assert run.exit_code == 0 and "24 games stored" in " ".join(run.output.split()), run.output
    assert "my_bot" in invoke("standings", "tournaments/demo.toml").output


def test_tournament_new_with_a_bare_name_writes_into_the_workspaces_tournaments(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    copy_bot("random_bot", ws / "bots" / "mine", "mine")
    (ws / "bots" / "deep").mkdir()
    monkeypatch.chdir(ws / "bots" / "deep")
    made = invoke("tournament", "new", "league", "-b", "mine", "-b", "random_bot", "-b", "heuristic_bot")
    assert made.exit_code == 0, made.output
    config = ws / "tournaments" / "league.toml"
    assert '"mine"' in config.read_text()  # a name the config's workspace finds, so kept a name
    _, manifests = load_entries(load_config(config))
    assert manifests["mine"].directory.resolve() == (ws / "bots" / "mine").resolve()


def test_what_a_bot_author_tripped_over(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".gitignore").write_text("mine/\n")
    assert invoke("init", str(ws)).exit_code == 0
    ignore = (ws / ".gitignore").read_text()
    assert ignore.startswith("mine/\n") and "tournaments/*.sqlite" in ignore  # kept, and the patterns added
    assert (ws / "protocol.md").read_text().startswith("# The Skitgubbe Arena bot protocol")
    bot = ws / "bots" / "my_bot"
    refused = invoke("init", str(bot))
    assert "is a bot's folder" in refused.output and not (bot / "bots").exists()
    # A tournaments/ folder made inside a bot's folder does not make that folder the workspace.
    (bot / "tournaments").mkdir()
    monkeypatch.chdir(bot)
    assert find_workspace() == ws.resolve()
    checked = invoke("bot", "check", "my_bot", "--games", "1")
    assert checked.exit_code == 0, checked.output
    # A bot found by its manifest's name, whatever its folder is called.
    copy_bot("random_bot", ws / "bots" / "renamed", "cg2")
    assert load_manifest("cg2").directory.resolve() == (ws / "bots" / "renamed").resolve()
    # A bare tournament name means the workspace's tournaments/NAME.toml, from any folder in it.
    config = ws / "tournaments" / "demo.toml"
    config.write_text(config.read_text().replace("deals = 4", "deals = 1"))
    assert invoke("tournament", "run", "demo").exit_code == 0
    assert "my_bot" in invoke("standings", "demo").output
    assert invoke("docs", "protocol").output == (ws / "protocol.md").read_text()
    assert "R13" in invoke("docs", "rules").output
