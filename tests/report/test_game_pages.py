"""A report's folder of game pages (arena/report/game_pages.py): a page per stored game and per
superseded play, the shared script and style once, the list linking each number to a page that is
there; the same pages whether one process or several write them; a run's live pages add the new
games' pages as they are stored, and the final write every page. The games are read through the
results object (arena/tournament/results.py), as every view reads them."""

from __future__ import annotations

import re

import pytest

from arena.game import Rules, game_points
from arena.play.records import Fault, FaultKind, GameRecord
from arena.play.selfplay import play_random_game
from arena.report import game_pages
from arena.report.game_pages import LivePages, pages_folder, write_report_pages
from arena.results.store import ResultStore
from arena.schedule.tables import round_robin
from arena.tournament.config import config_from_dict
from arena.tournament.results import TournamentResults

BOTS = ["a", "b", "c", "d"]


def _store(tmp_path, deals: int = 1, first: int = 0, store=None):
    config = config_from_dict({"name": "Cup <i>", "bots": BOTS, "deals": 2, "seed": 5, "database": str(tmp_path / "r.sqlite")},
                              tmp_path / "t.toml")
    store = store or ResultStore(config.database)
    rules = Rules()
    for table in round_robin(BOTS, 3, 2, seed=5):
        for spec in table.games:
            if not first <= spec.deal < first + deals:
                continue
            game = play_random_game(rules, spec.seed, spec.dealer)
            faults = (Fault(1, FaultKind.TIMEOUT, "no move within 2 s", 2),) if spec.seating == 1 else ()
            store.add_game(spec, GameRecord(1, spec.bots, game.outcome, game.transcript, game_points(game.outcome, rules),
                                            faults, ((0.001,),) * 3, len(game.moves), (0.0001,) * len(game.moves)))
    return store, config


def _shown(folder) -> set[str]:
    """The files of a folder of pages, but its hidden note of which game each page shows."""
    return {p.name for p in folder.iterdir() if not p.name.startswith(".")}


def _links(html: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', html)


def test_every_stored_game_and_superseded_play_has_a_page_that_the_list_links_to(tmp_path):
    store, config = _store(tmp_path)
    numbers = config.game_numbers()
    current = {numbers.of(row) for row in store.rows(with_transcripts=False)}
    store.supersede({"d": "d: withdrawn"}, {"bots": ["a", "b", "c"]})  # its games leave the standings, kept
    gone = {numbers.of(game.row) for game in store.superseded()}
    folder = pages_folder(tmp_path / "standings.html")
    results = TournamentResults.on_store(store, config)
    written = write_report_pages(folder, results, back=("../standings.html", "the standings"))
    store.close()
    assert folder.name == "standings-games" and written == len(current) and gone <= current
    names = _shown(folder)
    assert names == ({f"{n}.html" for n in current - gone} | {f"{n}-superseded.html" for n in gone}
                     | {"index.html", "replay.js", "replay.css"})
    index = (folder / "index.html").read_text()
    linked = _links(index)
    assert linked[0] == "../standings.html"
    assert sorted(linked[1:]) == sorted(names - {"index.html", "replay.js", "replay.css"})
    assert "Cup &lt;i&gt;: games" in index and "<i>" not in index
    page = (folder / f"{min(gone)}-superseded.html").read_text()
    assert '<script src="replay.js"></script>' in page and '"superseded":"d: withdrawn"' in page
    assert 'href="replay.css"' in page and '"back":"index.html"' in page


def test_many_pages_are_written_by_several_processes_alike(tmp_path, monkeypatch):
    store, config = _store(tmp_path, deals=2)
    serial = write_report_pages(tmp_path / "one", TournamentResults.on_store(store, config))
    monkeypatch.setattr(game_pages, "PARALLEL_FROM", 5)
    monkeypatch.setattr(game_pages, "CHUNK", 7)
    monkeypatch.setattr(game_pages, "_cores", lambda: 2)
    parallel = write_report_pages(tmp_path / "two", TournamentResults.on_store(store, config))
    store.close()
    assert serial == parallel == 48
    for page in (tmp_path / "one").iterdir():
        assert (tmp_path / "two" / page.name).read_bytes() == page.read_bytes(), page.name


def test_a_runs_live_pages_add_the_new_games_and_the_final_write_all_of_them(tmp_path):
    store, config = _store(tmp_path)  # stored before the run: their pages come with the final write
    live = LivePages(tmp_path / "live.html", TournamentResults.on_store(store, config))
    assert live.update() == [] and _shown(live.folder) == {"index.html", "replay.js", "replay.css"}
    _store(tmp_path, first=1, store=store)  # the run stores the second deal's games
    latest = live.update()
    new = _shown(live.folder) - {"index.html", "replay.js", "replay.css"}
    assert len(new) == 24 and len(latest) == LivePages.LATEST
    for number, link, words in latest:
        assert link == f"live-games/{number}.html" and f"{number}.html" in new and " > " in words
    assert "so far" in (live.folder / "index.html").read_text()
    live.finish()
    store.close()
    assert len(_shown(live.folder)) == 48 + 3
    assert "so far" not in (live.folder / "index.html").read_text()


@pytest.mark.parametrize("name", ["my report.html", "r#1.html"])
def test_a_report_named_with_spaces_or_a_hash_links_its_pages_by_a_working_address(tmp_path, name):
    from urllib.parse import quote

    store, config = _store(tmp_path)
    live = LivePages(tmp_path / name, TournamentResults.on_store(store, config))
    live.finish()
    store.close()
    assert live.folder.name == name.removesuffix(".html") + "-games"
    assert f'href="../{quote(name)}"' in (live.folder / "index.html").read_text()


def test_a_later_report_keeps_the_pages_of_the_same_games_and_writes_only_what_changed(tmp_path, monkeypatch):
    store, config = _store(tmp_path)
    folder, results = tmp_path / "s-games", TournamentResults.on_store(store, config)
    write_report_pages(folder, results)
    written = []
    real = game_pages._write_chunk
    monkeypatch.setattr(game_pages, "_write_chunk", lambda pages, games: written.extend(g.number for g in games)
                        or real(pages, games))
    numbers = config.game_numbers()
    assert write_report_pages(folder, results) == 24 and written == []  # nothing new: nothing written
    _store(tmp_path, first=1, store=store)
    write_report_pages(folder, results)
    assert len(written) == 24 and set(written) == {numbers.of(row) for row in store.rows(with_transcripts=False)
                                                   if row.deal == 1}
    written.clear()
    store.supersede({"d": "d: withdrawn"}, {"bots": ["a", "b", "c"]})
    gone = {numbers.of(game.row) for game in store.superseded()}
    write_report_pages(folder, results)
    assert sorted(written) == sorted(gone)  # each as a superseded play; its current page goes
    assert not any((folder / f"{n}.html").exists() for n in gone)
    assert all((folder / f"{n}-superseded.html").exists() for n in gone)
    written.clear()
    renamed = config_from_dict({"name": "Cup 2", "bots": BOTS, "deals": 2, "seed": 5, "database": str(config.database)},
                               tmp_path / "t.toml")
    write_report_pages(folder, TournamentResults.on_store(store, renamed))  # every page names it: all written again
    store.close()
    assert len(written) == 48
