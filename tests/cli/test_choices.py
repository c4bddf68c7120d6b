"""A choice of a command is the option's own (a Literal the CLI library checks and lists in --help),
not a hand check after the fact: a value outside it is refused, naming the option and the
choices, before any file is opened or written; the formats take any case, as they did."""

from __future__ import annotations

import pytest

from tests.cli_support import invoke

CHOICES = [
    (("games", "t.toml"), "--format", "table|csv|json|html"),
    (("games", "t.toml"), "--sort", "number|stored"),
    (("games", "t.toml"), "--superseded", "exclude|include|only"),
    (("standings", "t.toml"), "--format", "table|markdown|html|json|csv"),
    (("replay", "t.toml", "1"), "--format", "text|html|json"),
    (("tournament", "new", "t.toml", "-b", "random_bot"), "--schedule", "round_robin|balanced|gauntlet|league"),
    (("tournament", "new", "t.toml", "-b", "random_bot"), "--isolation", "auto|required|off"),
    (("bot", "new", "x"), "--lang", "python|c|js|shell|java"),
]


@pytest.mark.parametrize("command, option, choices", CHOICES, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v)
def test_a_choice_is_listed_in_the_help_and_refused_outside_it(tmp_path, monkeypatch, command, option, choices):
    monkeypatch.chdir(tmp_path)
    words = command[:2] if command[0] in ("tournament", "bot") else command[:1]
    helped = " ".join(invoke(*words, "--help").output.split())
    assert f"<{choices}>" in helped, helped
    refused = invoke(*command, option, "nonsense")
    said = " ".join(refused.output.split())
    assert refused.exit_code == 2 and f"'{option}" in said and "'nonsense' is not one of" in said, said
    assert list(tmp_path.iterdir()) == []  # nothing opened, made or written


def test_a_format_in_capitals_is_still_the_format(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\n')
    # Past the choice: the command goes on to find that the tournament has no results yet.
    for command in (("games", str(config), "--format", "JSON"), ("standings", str(config), "-f", "Markdown")):
        result = invoke(*command)
        assert result.exit_code == 2 and "no results yet" in result.output, result.output
