"""The server's reader opens the league's results again when its config changes (a bot entered):
the ratings go on from the counts read before (a refit of every game held the server's GIL for
a few hundred ms) and equal those of results opened afresh."""

from __future__ import annotations

from arena.server.reader import LeagueReader
from arena.tournament.config_write import add_bot_entry
from arena.tournament.results import TournamentResults
from tests.cli_support import invoke
from tests.server.support import write_league


def test_results_opened_again_for_a_new_bot_keep_their_ratings_and_equal_a_fresh_read(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    config = write_league(tmp_path)
    assert invoke("tournament", "run", str(config), "--games", "12").exit_code == 0
    reader = LeagueReader(config)
    try:
        before = reader.results()
        assert before is not None
        first = reader.board()
        kept = before._ratings
        add_bot_entry(config, "js_bot")
        after = reader.results()
        assert after is not None and after is not before and after._ratings is kept
        with TournamentResults.open(config) as fresh:
            assert after.standings().ratings == fresh.standings().ratings
        assert "js_bot" in after.config.bots and first.last_game_id > 0
    finally:
        reader.close()
