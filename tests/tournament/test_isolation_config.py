"""A tournament says what its bots can see: the run's first line, every stored game's record, and
`isolation = "required"`, which refuses to run where bots cannot be isolated (docs/sandbox.md)."""

from __future__ import annotations

import json

import arena.sandbox.isolation as isolation_module
from arena.sandbox.isolation import Isolation, find_isolation
from tests.cli_support import invoke
from tests.db_support import connected

BOTS = 'bots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 1\nworkers = 1\n'


def test_the_first_line_and_every_stored_game_say_which_isolation_the_bots_ran_under(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text(BOTS)
    result = invoke("tournament", "run", str(config))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == f"isolation: {find_isolation().summary()}"
    with connected(tmp_path / "t.sqlite") as db:
        records = [json.loads(extra)["isolation"] for (extra,) in db.execute("SELECT extra FROM games")]
    assert len(records) == 6 and all(record == find_isolation().record() for record in records)


def test_required_isolation_where_there_is_none_refuses_to_start_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(isolation_module, "_probe",
                        lambda: Isolation(why_not="bubblewrap is not installed: apt-get install bubblewrap"))
    config = tmp_path / "t.toml"
    config.write_text(BOTS + 'isolation = "required"\n')
    result = invoke("tournament", "run", str(config))
    said = " ".join(result.output.split())
    assert result.exit_code == 2
    assert "key 'isolation': required, but there is none here: bubblewrap is not installed" in said
    assert said.count("apt-get install bubblewrap") == 1, said  # the install command once (issue 41's trial)
    assert not (tmp_path / "t.sqlite").exists()  # nothing was played, nothing stored

    config.write_text(BOTS)  # "auto": it runs, and says so first
    ran = invoke("tournament", "run", str(config))
    assert ran.exit_code == 0
    assert ran.output.splitlines()[0].startswith("isolation: none: bots can read whatever the arena's user can")


def test_a_bad_isolation_value_is_named_with_the_values_it_takes(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text(BOTS + 'isolation = "maybe"\n')
    said = " ".join(invoke("tournament", "run", str(config)).output.split())
    assert "key 'isolation': expected auto, required or off" in said
