"""The uploads waiting are checked by one child and enter together (issue 44): a running league
takes them in one change of its config rather than one each (each change reopens it), and a
refused one among them changes nothing for the others."""

from __future__ import annotations

import pytest

import arena.tournament.config_write as config_write
from arena.server.entering import check_uploads
from arena.server.paths import ServerPaths
from arena.server.store import ServerStore
from arena.tournament.config import load_config
from tests.server.support import HOUSE, add_author, bot_folder, write_league


@pytest.mark.slow  # three real checks in the sandbox (a few seconds)
def test_the_uploads_checked_together_enter_in_one_write_of_the_config_and_a_failing_one_is_refused(
        tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    config = write_league(tmp_path)
    add_author(config, "alice")
    paths = ServerPaths(config)
    crashing = bot_folder(tmp_path, "alice_broken")
    manifest = crashing / "bot.toml"
    manifest.write_text('name = "alice_broken"\ncommand = ["sh", "-c", "exit 3"]\ntransport = "pipe"\n')
    folders = [bot_folder(tmp_path, "alice_one"), crashing, bot_folder(tmp_path, "alice_two")]
    writes = []
    real_edit = config_write._checked_edit
    monkeypatch.setattr(config_write, "_checked_edit", lambda *args: (writes.append(args[3]), real_edit(*args)))
    store = ServerStore(paths.server_file)
    try:
        ids = []
        for folder in folders:
            archive = tmp_path / f"{folder.name}.archive"
            archive.write_bytes(b"kept beside the others")
            ids.append(store.add_upload("alice", folder.name.removeprefix("src-"), str(folder), archive).id)
        states = check_uploads(paths, store, ids)
        uploads = [store.upload(upload_id) for upload_id in ids]
    finally:
        store.close()
    assert states == {ids[0]: "entered", ids[1]: "refused", ids[2]: "entered"}
    assert [u.state for u in uploads] == ["entered", "refused", "entered"] and "check failed" in uploads[1].reason
    assert len(writes) == 1, writes  # one change of the config for the league to take
    assert load_config(config).bots[len(HOUSE):] == (paths.bot_entry("alice_one"), paths.bot_entry("alice_two"))
    assert (paths.bots / "alice_one" / "bot.toml").is_file() and not (paths.bots / "alice_broken").exists()


def test_entries_added_at_once_keep_the_organisers_lines_and_skip_those_there(tmp_path):
    config = tmp_path / "league.toml"
    config.write_text('# the class of 2026\nname = "class"  # shown on the pages\nbots = ["random_bot", "b"]\n'
                      'schedule = "league"\n')
    assert config_write.add_bot_entry(config, "b", "c", "d", "c") is True
    assert config.read_text().startswith('# the class of 2026\nname = "class"  # shown on the pages\n')
    assert 'bots = ["random_bot", "b", "c", "d"]' in config.read_text()
    assert config_write.add_bot_entry(config, "b", "d") is False


def _fake_check_children(monkeypatch, waiting: list[int], failing: int | None = None) -> list[list[int]]:
    """The check child replaced by one that checks the uploads it is given at once (each taken off
    `waiting`), or fails whole when it is given `failing`; the uploads each child was given."""
    import arena.server.uploads as uploads

    started: list[list[int]] = []

    class Child:
        def __init__(self, ids: list[int]) -> None:
            self.returncode = 1 if failing in ids else 0
            if not self.returncode:
                waiting[:] = [i for i in waiting if i not in ids]

        def poll(self) -> int:
            return self.returncode

    def start_child(args, log_path, nice=0):
        started.append([int(given) for given in args[2:]])
        return Child(started[-1])

    monkeypatch.setattr(uploads, "start_child", start_child)
    return started


def test_an_upload_whose_check_child_fails_holds_back_only_itself(tmp_path, monkeypatch):
    """The uploads waiting are checked in one child; when it fails (an upload that breaks the
    check's own code, say), each is checked alone, so that the others still enter."""
    import asyncio

    import arena.server.uploads as uploads

    waiting = [1, 2, 3]
    started = _fake_check_children(monkeypatch, waiting, failing=2)
    monkeypatch.setattr(uploads, "GATHER_S", 0.0)
    checks = uploads.UploadChecks(ServerPaths(tmp_path / "class.toml"), lambda: list(waiting))

    async def once():
        checks.start()
        await asyncio.sleep(0.5)
        checks._task.cancel()

    asyncio.run(once())
    assert started == [[1, 2, 3], [1], [2], [3]] and waiting == [2]


def test_uploads_that_come_together_are_checked_together(tmp_path, monkeypatch):
    """The checks wait GATHER_S after an upload wakes them: a burst enters in one change, not its
    first upload alone and then the rest."""
    import asyncio

    import arena.server.uploads as uploads

    waiting: list[int] = []
    started = _fake_check_children(monkeypatch, waiting)
    monkeypatch.setattr(uploads, "GATHER_S", 0.3)
    checks = uploads.UploadChecks(ServerPaths(tmp_path / "class.toml"), lambda: list(waiting))

    async def burst():
        checks.start()
        await asyncio.sleep(0.4)  # nothing waited at the start
        for upload in (1, 2, 3):
            waiting.append(upload)
            checks.wake()
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.6)
        checks._task.cancel()

    asyncio.run(burst())
    assert started == [[1, 2, 3]] and waiting == []
