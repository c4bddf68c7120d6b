"""`arena init` where a workspace does not belong: refused, with the workspace around it named."""

from __future__ import annotations

from tests.cli_support import invoke


def _files(folder):
    return sorted(p.relative_to(folder) for p in folder.rglob("*"))


def test_init_in_a_workspaces_bots_folder_is_refused_naming_that_workspace(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    assert invoke("init", str(ws)).exit_code == 0
    before = _files(ws)
    monkeypatch.chdir(ws / "bots")  # where a bot author stood when it made a workspace inside bots/
    for where in ([], ["nested"], [str(ws / "bots")], [str(ws / "tournaments" / "deep")]):
        refused = invoke("init", *where)
        said = " ".join(refused.output.split())
        assert refused.exit_code == 2, refused.output
        assert f"folder of the workspace {ws.resolve()}:" in said and "nothing was changed" in said, said
    assert _files(ws) == before


def test_init_in_a_bots_folder_or_below_it_is_refused(tmp_path):
    ws = tmp_path / "ws"
    assert invoke("init", str(ws)).exit_code == 0
    bot = (ws / "bots" / "my_bot").resolve()
    itself = invoke("init", str(bot))
    assert itself.exit_code == 2 and f"{bot} is a bot's folder" in " ".join(itself.output.split())
    below = invoke("init", str(bot / "src"))
    assert below.exit_code == 2 and f"inside the bot's folder {bot}" in " ".join(below.output.split())
    assert not (bot / "src").exists() and not (bot / "bots").exists()


def test_a_workspace_in_a_plain_folder_of_another_is_made_with_a_note(tmp_path):
    ws = tmp_path / "ws"
    assert invoke("init", str(ws)).exit_code == 0
    made = invoke("init", str(ws / "experiments" / "league"))
    assert made.exit_code == 0, made.output
    assert f"inside the workspace {ws.resolve()}" in " ".join(made.output.split())
    assert (ws / "experiments" / "league" / "bots" / "my_bot" / "bot.toml").is_file()
