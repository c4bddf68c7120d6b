"""The lines the arena sends, as an outside bot author reads them in a protocol log (protocol.md
section 4): a `match` line announces only the options the match runs by."""

from __future__ import annotations

from pathlib import Path

from tests.cli_support import invoke

MATCH_OWN = ("next_dealer=", "max_games=", "target_points=")


def _sent(log_dir: Path, kind: str) -> list[str]:
    lines = []
    for path in sorted(log_dir.rglob("*random_bot.protocol.log")):
        lines += [line[2:] for line in path.read_text().splitlines() if line.startswith(f"> {kind} ")]
    return lines


def test_a_tournament_table_announces_no_option_it_refuses(tmp_path):
    """A tournament announced next_dealer=rotate max_games=50 target_points=- while refusing them
    (its schedule gives each game's dealer; each game is scored on its own)."""
    config = tmp_path / "t.toml"
    config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 1\nworkers = 1\nseed = 4\n')
    assert invoke("tournament", "run", str(config), "--log", str(tmp_path / "logs")).exit_code == 0
    matches, games = _sent(tmp_path / "logs", "match"), _sent(tmp_path / "logs", "game")
    assert matches and games and all("scoring=placement" in line for line in matches + games)
    assert not [line for line in matches + games if any(key in line for key in MATCH_OWN)], matches[0]


def test_arena_play_announces_how_its_match_ends_only_when_the_scoring_ends_it(tmp_path):
    fixed = invoke("play", "random_bot", "heuristic_bot", "shell_bot", "--games", "2", "--log", str(tmp_path / "a"))
    assert fixed.exit_code == 0
    (line,) = _sent(tmp_path / "a", "match")
    assert "next_dealer=rotate" in line and "max_games=" not in line and "target_points=" not in line, line
    open_ended = invoke("play", "random_bot", "heuristic_bot", "--rule", "max_games=2", "--log", str(tmp_path / "b"))
    assert open_ended.exit_code == 0
    (line,) = _sent(tmp_path / "b", "match")
    assert all(key in line for key in MATCH_OWN) and "max_games=2" in line, line
    assert not [g for g in _sent(tmp_path / "b", "game") if any(key in g for key in MATCH_OWN)]
