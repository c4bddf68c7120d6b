"""A league's deadline (issue 43): `arena tournament freeze` writes `frozen = true`, after which no
bot enters and no version changes, and the league plays a final round robin of its bots whose
games alone the standings count, in the same results."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from arena.tournament.results import TournamentResults
from tests.cli_support import invoke
from tests.db_support import connected

BOTS = ["random_bot", "heuristic_bot", "shell_bot", "c_bot"]


def write_league(folder: Path, bots: list[str] = BOTS, extra: str = "") -> Path:
    path = folder / "league.toml"
    path.write_text(f'# a class league\nname = "class"\nseed = 11\nbots = {bots!r}\nschedule = "league"\n'
                    f'workers = 2\nisolation = "auto"\n{extra}\n[limits]\nmove_timeout_s = 2.0\n'.replace("'", '"'))
    return path


def tables_by(database: Path) -> dict[tuple[str, str], int]:
    with connected(database) as db:
        return {(reason, status): n for reason, status, n in db.execute(
            "SELECT reason, status, COUNT(*) FROM league_tables GROUP BY reason, status")}


def test_freeze_refuses_a_config_that_is_not_a_league(tmp_path):
    path = tmp_path / "rr.toml"
    path.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\n')
    result = invoke("tournament", "freeze", str(path))
    assert result.exit_code == 2
    assert "only a league" in result.output and "round robin" in result.output
    assert "frozen" not in path.read_text()


def test_freeze_writes_the_key_before_the_first_table_keeping_the_organisers_lines(tmp_path):
    path = write_league(tmp_path)
    result = invoke("tournament", "freeze", str(path))
    assert result.exit_code == 0, result.output
    text = path.read_text()
    assert text.startswith("# a class league\n")  # the organiser's comment stays
    assert text.index("frozen = true") < text.index("[limits]")
    assert "final round robin of 4 bots (4 tables, 24 games)" in " ".join(result.output.split())
    again = invoke("tournament", "freeze", str(path))
    assert again.exit_code == 0 and "frozen already" in again.output and text == path.read_text()
    undone = invoke("tournament", "freeze", str(path), "--undo")
    assert undone.exit_code == 0 and "frozen = false" in path.read_text()


@pytest.mark.slow  # two short league runs of the bundled bots: about 6 s
def test_a_frozen_league_plays_its_final_round_robin_and_its_standings_count_those_games_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = write_league(tmp_path)
    league = invoke("tournament", "run", str(path), "--games", "36")
    assert league.exit_code == 0, league.output
    with TournamentResults.open(path) as results:
        before = results.standings().completeness
    assert before.ongoing and not before.complete and before.played >= 36

    assert invoke("tournament", "freeze", str(path)).exit_code == 0
    final = invoke("tournament", "run", str(path))
    assert final.exit_code == 0, final.output
    words = " ".join(final.output.split())
    assert "final round robin of 4 bots is queued (4 tables, 24 games)" in words
    assert f"the league's {before.played} games before the freeze left the standings" in words
    assert "its final round robin is complete: the standings are final" in words

    games_per_final = math.comb(4, 3) * 6  # C(4, 3) tables of one deal in 3! seatings
    with TournamentResults.open(path) as results:
        standings = results.standings()
        superseded = results.store.superseded()
    assert standings.completeness.complete and standings.completeness.played == games_per_final
    assert "of the final round robin" in standings.completeness.words()
    assert sum(b.games for b in standings.bots) == 3 * games_per_final  # three seats a game
    assert len(superseded) == before.played  # the league's games, kept whole
    assert tables_by(tmp_path / "league.sqlite")[("final", "played")] == 4

    first = invoke("replay", str(path), "1")  # game 1 was the league's: kept, out of the standings
    assert first.exit_code == 2 and "played in the league before its freeze" in " ".join(first.output.split())
    assert invoke("replay", str(path), "1", "--superseded").exit_code == 0

    nothing = invoke("tournament", "run", str(path))  # complete: nothing to play, said so
    assert nothing.exit_code == 0 and "final round robin is complete" in " ".join(nothing.output.split())


def test_a_frozen_league_refuses_a_bot_added_after_the_freeze(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = write_league(tmp_path, BOTS[:3])
    assert invoke("tournament", "run", str(path), "--games", "6").exit_code == 0
    assert invoke("tournament", "freeze", str(path)).exit_code == 0
    path.write_text(path.read_text().replace('"shell_bot"]', '"shell_bot", "c_bot"]'))
    refused = invoke("tournament", "run", str(path))
    assert refused.exit_code == 2
    words = " ".join(refused.output.split())
    assert "the league is frozen" in words and "c_bot was added to its bots" in words
    assert tables_by(tmp_path / "league.sqlite").get(("final", "queued")) is None  # nothing laid out
