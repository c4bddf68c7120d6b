"""A results file damaged on disk (a bad block, a copy cut short): every command says which file
and what to do, never a traceback, and a run writes nothing to it (hostile-bot audit: a damaged
data page ended `tournament run`, `standings` and `games` in `sqlite3.OperationalError`)."""

from __future__ import annotations

import hashlib
import signal
from pathlib import Path

import pytest

from arena.results.rows import DamagedRow, decode_row
from tests.cli_support import invoke
from tests.db_support import connected

PAGE_SIZE = 4096


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A finished tournament of 6 games, its write-ahead log folded into the file."""
    folder = tmp_path_factory.mktemp("played")
    config = folder / "t.toml"
    config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 1\nworkers = 1\n')
    # A run ignores SIGINT and SIGTERM once its games are done. conftest.py puts the handlers back
    # after each test, but a module's fixture runs before a test saves them: left ignored, every
    # later test's subprocess inherited that, and a service ignored its terminate().
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        assert invoke("tournament", "run", str(config)).exit_code == 0
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    with connected(folder / "t.sqlite") as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return folder


def damaged_copy(played: Path, folder: Path, damage) -> Path:
    """A copy of the tournament whose results file had `damage(bytes)` done to it; the config."""
    data = bytearray((played / "t.sqlite").read_bytes())
    damage(data)
    (folder / "t.sqlite").write_bytes(bytes(data))
    (folder / "t.toml").write_text((played / "t.toml").read_text())
    return folder / "t.toml"


GAME_RECORD = b'"time_limits": {'  # in every game's `extra` record


def games_page(data: bytearray) -> int:
    """The page that holds the first game's row."""
    return data.index(GAME_RECORD) // PAGE_SIZE


def broken_page(data: bytearray) -> None:
    start = games_page(data) * PAGE_SIZE
    data[start:start + 16] = b"\xaa" * 16  # the page header: "database disk image is malformed"


def bad_text(data: bytearray) -> None:
    at = data.index(GAME_RECORD)
    data[at + 2:at + 7] = b"\xff\xfe\xff\xfe\xff"  # no longer UTF-8: "Could not decode to UTF-8 column"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def said(result) -> str:
    return " ".join(result.output.split())


def test_a_broken_page_is_named_by_every_command_and_the_run_leaves_the_file_as_it_was(played, tmp_path):
    config = damaged_copy(played, tmp_path, broken_page)
    database = tmp_path / "t.sqlite"
    before = digest(database)
    for args in (["games", str(config)], ["tournament", "run", str(config)]):
        result = invoke(*args)
        assert result.exit_code != 0, said(result)
        assert f"{database} is damaged (database disk image is malformed)" in said(result)
        assert "sqlite3 " in said(result) and ".recover" in said(result)
    assert invoke("standings", str(config)).exit_code in (0, 1)  # its indexes may not touch the page; never a traceback
    assert digest(database) == before


def test_a_row_whose_text_no_longer_decodes_is_named_not_a_traceback(played, tmp_path):
    config = damaged_copy(played, tmp_path, bad_text)
    result = invoke("games", str(config))
    assert result.exit_code == 1
    assert f"{tmp_path / 't.sqlite'} is damaged (Could not decode to UTF-8" in said(result)


def test_a_row_of_text_that_is_not_json_is_a_damaged_row():
    row = (1, "t0000-d0000-s00", 0, 0, 0, "a,b,c", 1, 0, "0,1,2", 2, "normal", "2/1/0", 50, "[]", "1/1/1",
           "1/1/1", "{not json", 0.0)
    with pytest.raises(DamagedRow, match="t0000-d0000-s00"):
        decode_row(row)
