"""The results object (arena/tournament/results.py): every view's one way to read a tournament's
results, as frozen values, the same numbers whoever asks."""

from __future__ import annotations

import numpy as np
import pytest

from arena.errors import ArenaError
from arena.tournament.config import config_from_dict
from arena.tournament.facts import SEED_WITHHELD
from arena.tournament.results import GameQuery, TournamentResults
from tests.results.league_support import stored_league

NAMES = ["a", "b", "c", "d"]


@pytest.fixture
def results(tmp_path):
    store = stored_league(tmp_path / "cup.sqlite", NAMES, np.array([1.0, 0.3, -0.3, -1.0]), deals=2)
    config = config_from_dict({"name": "cup", "bots": NAMES, "deals": 3, "seed": 42}, tmp_path / "cup.toml")
    yield TournamentResults.on_store(store, config)
    store.close()


def test_the_standings_rank_by_points_per_game_with_ratings_and_say_how_much_is_played(results):
    standings = results.standings()
    assert [b.bot for b in standings.bots] == sorted(NAMES, key=lambda n: -standings.bot(n).points_per_game)
    assert standings.ranked_by == "points_per_game" and standings.roster == tuple(NAMES)
    assert all(b.rating_group >= 1 and b.rating_margin > 0 for b in standings.bots)
    done = results.completeness()
    assert (done.played, done.scheduled, done.void, done.complete) == (48, 72, 0, False)
    assert standings.completeness == done and standings.facts["games_played"] == 48


def test_the_games_a_query_selects_are_counted_and_limited(results):
    query = GameQuery(bots=("a", "b"), limit=5)
    lines = list(results.games(query))
    assert len(lines) == 5 and all({"a", "b"} <= set(line.bots) for line in lines)
    assert [line.number for line in lines] == sorted(line.number for line in lines)
    assert results.count_games(query) == 2 * 2 * 6  # tables (a, b, c) and (a, b, d), 2 deals of 6 seatings
    lost = list(results.games(GameQuery(skitgubbe="d")))
    assert lost and all(line.order[-1] == "d" for line in lost)
    with pytest.raises(ArenaError, match="no bot 'x'"):
        results.games(GameQuery(bots=("x",)))


def test_a_game_is_replayed_by_number_or_key_and_a_missing_one_is_named(results):
    first = next(results.games(GameQuery(limit=1)))
    shown = results.replay(str(first.number))
    assert shown.row.key == first.key == results.replay(first.key).row.key and shown.number == first.number
    assert shown.lines() and shown.lines(seat=1)
    with pytest.raises(ArenaError, match="no game 999: the games of .* have numbers from 1 to 90 \\(with gaps"):
        results.replay("999")
    unplayed = results.config.game_numbers().number(0, 2, 0)  # the third deal: not played yet
    with pytest.raises(ArenaError, match=f"game {unplayed} .* is not stored yet"):
        results.replay(str(unplayed))
    assert results.void_games() == [] and results.versions() == {}



def test_the_seed_is_withheld_from_every_report_until_the_tournament_is_complete(tmp_path, results):
    """Anyone who knows the seed can deal every hand: the reports an author may read mid-run (the
    live page, a published standings page or file) say when it will be shown instead."""
    from arena.report.documents import standings_document

    def standings(deals: int):
        config = config_from_dict({"name": "cup", "bots": NAMES, "deals": deals, "seed": 739304118}, tmp_path / "c.toml")
        return TournamentResults.on_store(results.store, config).standings(with_history=True)

    incomplete = standings(deals=3)  # 2 deals stored
    assert not incomplete.completeness.complete and incomplete.facts["seed"] == SEED_WITHHELD
    for form in ("table", "markdown", "html", "json", "csv"):
        text = standings_document(incomplete, form, "cup")
        assert "739304118" not in text and SEED_WITHHELD in text, form
    complete = standings(deals=2)
    assert complete.completeness.complete and complete.facts["seed"] == 739304118
    assert "<dt>seed</dt><dd>739304118</dd>" in standings_document(complete, "html", "cup")
