"""The live board (arena/report/live.py): the progress line stays on screen, with the board giving
up rows; it reads "1,234/6,000 games, 41 games/s, 1:02 elapsed, about 1:56 left"."""

from __future__ import annotations

import dataclasses
import io
import re
import time
from types import SimpleNamespace

import pytest
from rich.console import Console

from arena.report.live import LiveBoard, _Screen, progress_text
from arena.results.ratings import RATING_NOTE
from arena.results.sprt import SprtSettings, SprtState
from arena.results.store import ResultStore
from arena.schedule.tables import round_robin
from arena.tournament.config import config_from_dict
from arena.tournament.results import TournamentResults

NAMES = ["a", "b", "c", "d"]


def _tables():
    return round_robin(NAMES, 3, 3, seed=7)


def _config(tmp_path):
    return config_from_dict({"name": "cup", "bots": NAMES, "deals": 3, "seed": 7}, tmp_path / "cup.toml")


def _store(path):
    """Four bots' games: a round robin at tables of three, three deals (72 games)."""
    store = ResultStore(path)
    for table in _tables():
        for spec in table.games:
            _store_game(store, spec)
    return store


def test_progress_text_reads_as_the_issue_asks():
    assert progress_text(1234, 6000, 1234, 30.1) == "1,234/6,000 games, 41 games/s, 0:30 elapsed, about 1:56 left"
    assert progress_text(6000, 6000, 6000, 3725) == "6,000/6,000 games, 1.6 games/s, 1:02:05 elapsed"
    assert progress_text(10, 100, 5, 10.0, stops_early=True).endswith("0.5 games/s, 0:10 elapsed, at most 3:00 left")
    assert progress_text(0, 100, 0, 0.0) == "0/100 games, 0.0 games/s, 0:00 elapsed"


def _board(tmp_path, height: int, width: int = 100, test_status=None):
    store = _store(tmp_path / "r.db")
    results = TournamentResults.on_store(store, _config(tmp_path))
    if test_status is not None:  # an SPRT run's test, as the results object reads it
        results.test = test_status  # type: ignore[method-assign]
    console = Console(file=io.StringIO(), width=width, height=height, color_system=None, soft_wrap=True)  # as the CLI's
    board = LiveBoard(results, console)
    board.update(SimpleNamespace(done=50, total=72, played_now=50, void=0, started_at=time.monotonic() - 5))
    return board, console, store


def _screen(board, console) -> list[str]:
    """The screen's lines as the live display shows them: rendered with the options a soft-wrapping
    console prints with (no wrapping unless asked), each line cropped at the terminal's width."""
    options = console.options.update(no_wrap=True, overflow="ignore")
    return ["".join(s.text for s in line) for line in console.render_lines(_Screen(board), options, pad=False)]


def _field(board, bots: int) -> None:
    """The board's standings with `bots` bots (copies of its four under other names), long names among them."""
    base = board.standings.bots
    names = [f"bot_{i:02d}" if i % 3 else f"a_longer_name_{i:02d}" for i in range(1, bots + 1)]
    board.standings = dataclasses.replace(board.standings, bots=tuple(
        dataclasses.replace(base[i % len(base)], rank=i + 1, bot=name) for i, name in enumerate(names)))


def _sprt():
    """An SPRT's state, undecided: its line is longer than 80 columns."""
    return SprtState(SprtSettings(delta1=0.1), "heuristic_bot", "random_bot", llr=0.52, deal_sets=12, games=288)


def _token_ends(line: str) -> list[int]:
    return [match.end() for match in re.finditer(r"\S+", line)]


def test_at_80x14_the_board_is_a_compact_table_that_uses_the_rows_it_has(tmp_path):
    """At 80 columns the board was prose split mid-phrase ("skitgubbe 9 / times"), and at 80x14
    nine bots came out as 2 bots, "+7 more" and 5 empty rows, the SPRT line cut mid-sentence."""
    board, console, store = _board(tmp_path, 14, width=80, test_status=_sprt)
    try:
        _field(board, 9)
        text = _screen(board, console)
        assert len(text) == 14  # every row used: no empty ones
        assert all(len(line) <= 80 for line in text)
        heads = next(line for line in text if line.startswith("#"))
        assert heads.split() == ["#", "bot", "games", "pts", "pts/g", "±", "wins", "skit", "faults", "rate", "g"]
        bot_rows = [line for line in text if line.split()[0].isdigit()]
        assert [row.split()[1] for row in bot_rows] == [b.bot for b in board.standings.bots[:len(bot_rows)]]
        # 14 rows less the progress, the title, the heads, "+2 more", the key and the SPRT's two
        assert len(bot_rows) == 7 and "+2 more" in " ".join(text)
        assert all(_token_ends(row)[-8:] == _token_ends(heads)[-8:] for row in bot_rows)  # numbers aligned under their heads
        assert "ranked by points per game" in text[0]
        sprt = " ".join(line.strip() for line in text if "SPRT" in line or "games" in line and "deal sets" in line)
        assert sprt.endswith("after 12 deal sets, 288 games")  # wrapped, not cut
        assert "50/72 games" in text[-1]
    finally:
        store.close()


def test_at_80x24_every_bot_of_a_field_of_nine_is_shown_a_line_each(tmp_path):
    board, console, store = _board(tmp_path, 24, width=80)
    try:
        _field(board, 9)
        text = _screen(board, console)
        assert "more" not in " ".join(text) and all(b.bot in " ".join(text) for b in board.standings.bots)
        assert len(text) == 1 + 1 + 9 + 1 + 1  # title, heads, a line a bot, the key, the progress
        assert "skitgubbe" in text[-2] and "times" not in " ".join(text)
        assert "rate: rating" in text[-2]  # the ratings every report gives, not provisional ones
    finally:
        store.close()


def test_at_120x30_the_bordered_table_stays_and_the_sprt_line_is_whole(tmp_path):
    board, console, store = _board(tmp_path, 30, width=120, test_status=lambda: dataclasses.replace(
        _sprt(), challenger="heuristic_bot_version_two", baseline="heuristic_bot_version_one"))
    try:
        text = _screen(board, console)
        assert len(text) <= 30 and all(len(line) <= 120 for line in text)
        assert any("┃ bot" in line for line in text) and any("skitgubbe" in line for line in text)
        assert any("ranked by points per game" in line for line in text)
        sprt = " ".join(line.strip() for line in text[text.index(next(l for l in text if l.startswith("SPRT"))):-1])
        assert sprt.endswith("after 12 deal sets, 288 games")
        _field(board, 40)  # too many for the bordered table: the compact one, with as many as fit
        text = _screen(board, console)
        assert len(text) == 30 and not any("┃" in line for line in text) and "+" in " ".join(text)
    finally:
        store.close()


def test_the_last_board_of_a_stopped_run_ranks_as_a_finished_one_by_points_per_game(tmp_path):
    """An organiser's trial: a stopped run's last board ranked by total points, which favour the
    bots whose tables came first; every view ranks by points per game."""
    board, console, store = _board(tmp_path, 24, width=80)
    try:
        board.final = True
        board._refresh_board()
        text = _screen(board, console)
        assert "ranked by points per game" in text[0] and "(50 of 72 games played)" in text[0]
        assert board.standings.ranks_by_points_per_game
    finally:
        store.close()


@pytest.mark.parametrize("width", [100, 120, 160])
def test_the_rating_note_under_the_bordered_board_is_never_cut(tmp_path, width):
    board, console, store = _board(tmp_path, 40, width=width)
    try:
        text = " ".join(" ".join(_screen(board, console)).split())
        assert any("┃ bot" in line for line in _screen(board, console))
        assert " ".join(RATING_NOTE.split()) in text
    finally:
        store.close()


def test_a_game_stored_just_before_ctrl_c_is_on_the_last_board(tmp_path):
    """A Ctrl-C landing in a game's commit is raised after it, before the game's progress call:
    the board said 1,359 games where the stop message (the store's count) said 1,360."""
    specs = [spec for table in _tables() for spec in table.games]
    store = ResultStore(tmp_path / "r.db")
    try:
        for spec in specs[:-1]:
            _store_game(store, spec)
        console = Console(file=io.StringIO(), width=100, height=30, color_system=None, soft_wrap=True)
        with pytest.raises(KeyboardInterrupt):
            with LiveBoard(TournamentResults.on_store(store, _config(tmp_path)), console) as board:
                board.update(SimpleNamespace(done=len(specs) - 1, total=len(specs), played_now=0, void=0,
                                             started_at=time.monotonic() - 5))
                _store_game(store, specs[-1])  # committed; the interrupt comes before its progress call
                raise KeyboardInterrupt
        assert store.game_count() == len(specs)
        assert board.progress_line().startswith(f"{len(specs)}/{len(specs)} games")
        assert f"{len(specs)}/{len(specs)} games" in console.file.getvalue()  # the last board shown
    finally:
        store.close()


def test_the_final_board_is_drawn_once_in_a_terminal(tmp_path):
    """The teacher's trial: a terminal run's final standings came out twice (drawn by the board's
    exit and again by the live display's own stop), as any capture of the terminal shows them."""
    store = _store(tmp_path / "r.db")
    try:
        console = Console(file=io.StringIO(), width=100, height=30, force_terminal=True, color_system=None)
        with LiveBoard(TournamentResults.on_store(store, _config(tmp_path)), console) as board:
            board.update(SimpleNamespace(done=72, total=72, played_now=72, void=0, started_at=time.monotonic() - 5))
        drawn = console.file.getvalue()
        assert drawn.count("cup: standings (72 games)") == 1, drawn  # the title only the final board has
        assert "72/72 games" in drawn.split("cup: standings (72 games)")[1]
    finally:
        store.close()


def _store_game(store, spec) -> None:
    """A game of `spec` stored as the runner stores one."""
    from arena.game import Rules, game_points
    from arena.play.records import GameRecord
    from arena.play.selfplay import play_random_game

    g = play_random_game(Rules(), spec.seed ^ spec.seating, spec.dealer)
    store.add_game(spec, GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, Rules()), (),
                                    ((0.001,),) * 3, len(g.moves)), {})


def test_the_html_page_is_live_during_a_run_and_final_after_it(tmp_path):
    """`arena tournament run CONFIG --html FILE`: the page reloads itself while the run goes on, and
    is the final report, without the reload, once it has ended."""
    import subprocess
    import sys

    config = tmp_path / "t.toml"
    config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 30\nworkers = 1\n')
    page = tmp_path / "live.html"
    out = tmp_path / "out.txt"  # a file, not a pipe nobody reads while the page is watched
    run = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", str(config), "--html", str(page)],
                           stdout=out.open("w"), stderr=subprocess.DEVNULL)
    seen_live = False
    try:
        deadline = time.monotonic() + 120
        while run.poll() is None and time.monotonic() < deadline:
            if page.exists() and 'http-equiv="refresh"' in page.read_text():
                seen_live = True
            time.sleep(0.05)
        assert run.wait(timeout=120) == 0
    finally:
        run.kill()
    assert seen_live
    # Not "Report: arena standings ... -o standings.html", which would write the page again.
    said = " ".join(out.read_text().split())
    assert f"the page {page} is the final report" in said and "Report:" not in said
    final = page.read_text()
    assert 'http-equiv="refresh"' not in final and "<p>180 games" in final and "Live:" not in final
    assert not list(tmp_path.glob(".*partial"))  # written whole, through a file that is renamed


def test_the_progress_line_counts_void_games_and_says_no_time_left_once_the_run_ended():
    from arena.report.live import progress_text

    line = progress_text(12, 48, 12, 10.0, void=36)
    assert line.startswith("12/48 games, 36 void,") and "left" in line
    assert "left" not in progress_text(12, 48, 12, 10.0, void=36, ended=True)
    assert "void" not in progress_text(48, 48, 48, 10.0)


def test_standings_say_how_much_of_the_tournament_is_played():
    from arena.results.standings import Completeness

    assert Completeness(1392, 1800, 0).words() == "1392 of 1800 games played"
    assert Completeness(1392, 1800, 12).words() == "1392 of 1800 games played, 12 void"
    assert Completeness(1800, 1800, 0).words() == "1800 games" and Completeness(1800, 1800, 0).complete
    assert not Completeness(1800, 1800, 3).complete  # a void game not yet played again
    assert Completeness(700, 1800, 0, decided=True).complete  # an SPRT run whose test decided


def test_the_live_page_and_board_rank_and_rate_as_the_report_does_mid_run_and_stopped(tmp_path):
    """Mid-run the live page ranked by total points beside a board ranked by points per game, and
    both showed provisional ratings that the report did not: now the board, the live page, the
    last page of a stopped run and `arena standings` rank by points per game and give the same
    ratings, to the last digit."""
    from arena.report.live_page import LivePage

    config = _config(tmp_path)
    tables = _tables()
    store = ResultStore(tmp_path / "cup.sqlite")
    page = tmp_path / "live.html"
    try:
        for spec in [spec for table in (tables[0], tables[2]) for spec in table.games]:  # a played twice as often
            _store_game(store, spec)
        total = sum(len(table.games) for table in tables)
        console = Console(file=io.StringIO(), width=100, height=30, color_system=None, soft_wrap=True)
        results = TournamentResults.on_store(store, config)
        with pytest.raises(KeyboardInterrupt):
            with LiveBoard(results, console, on_refresh=LivePage(page, results, print)) as board:
                board.update(SimpleNamespace(done=store.game_count(), total=total, played_now=0, void=0,
                                             started_at=time.monotonic()))
                live_board, live_page = board.standings, page.read_text()
                raise KeyboardInterrupt  # stopped: the last board and page
        last_board, last_page = board.standings, page.read_text()
        report = TournamentResults.on_store(store, config).standings()
        assert report.bot("a").games > report.bot("d").games  # the test means something
        order = [b.bot for b in report.bots]
        assert order == sorted(order, key=lambda name: -report.bot(name).points_per_game)
        for shown in (live_board, last_board):
            assert [b.bot for b in shown.bots] == order
            assert [(b.rating, b.rating_margin, b.rating_group) for b in shown.bots] == \
                   [(b.rating, b.rating_margin, b.rating_group) for b in report.bots]
        for text in (live_page, last_page):
            assert _page_order(text, NAMES) == order
            words = " ".join(text.split())
            assert "ranked by points per game" in words and "provisional" not in words
            assert f"{report.bots[0].rating:.0f} ± {report.bots[0].rating_margin:.0f}" in words
        assert 'http-equiv="refresh"' in live_page and 'http-equiv="refresh"' not in last_page
    finally:
        store.close()


def _page_order(page: str, names: list[str]) -> list[str]:
    """The bots in the order of the page's standings table."""
    standings = page[page.index('<table class="standings">'):]
    standings = standings[:standings.index("</table>")]
    return sorted(names, key=lambda name: standings.index(f">{name}</td>"))
