"""A league run that takes a change goes on in a new part (issue 43): --games and --until count from
the command's start across its parts, each part given what is left of the command's own budget."""

from __future__ import annotations

import arena.cli.tournament as cli_tournament
from arena.tournament.runner import RunSummary
from arena.tournament.session import RunOutcome
from tests.cli_support import invoke


def test_each_part_of_a_league_run_gets_what_is_left_of_the_command_s_games_and_time(tmp_path, monkeypatch):
    given = []
    clock = iter([100.0, 110.0, 130.0])  # the command's start, then the end of its first and second parts

    def play(config_path, options):
        given.append((options.games, options.until_s))
        reopen = len(given) < 3
        return RunOutcome(RunSummary(60, 0, 12, False), None, "league: a bot added", reopen), None, None

    monkeypatch.setattr(cli_tournament.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(cli_tournament, "_play", play)
    monkeypatch.setattr(cli_tournament, "_summary", lambda *args: None)
    monkeypatch.setattr(cli_tournament, "stop_on_sigterm", lambda: None)
    result = invoke("tournament", "run", str(tmp_path / "league.toml"), "--games", "60", "--until", "60s")
    assert result.exit_code == 0, result.output
    # 12 games and 10 s into the command, then 24 games and 30 s: not 60-12-24 and 60-10-30 (cut twice).
    assert given == [(60, 60.0), (48, 50.0), (36, 30.0)]
