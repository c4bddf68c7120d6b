"""The live board (arena/report/live.py): the progress line stays on screen, with the board giving
up rows; it reads "1,234/6,000 games, 41 games/s, 1:02 elapsed, about 1:56 left"."""

from __future__ import annotations

import io
import time
from types import SimpleNamespace

from rich.console import Console

from arena.report.live import LiveBoard, _Screen, progress_text
from arena.schedule.numbers import GameNumbers
from tests.results.test_ratings import _store


def test_progress_text_reads_as_the_issue_asks():
    assert progress_text(1234, 6000, 1234, 30.1) == "1,234/6,000 games, 41 games/s, 0:30 elapsed, about 1:56 left"
    assert progress_text(6000, 6000, 6000, 3725) == "6,000/6,000 games, 1.6 games/s, 1:02:05 elapsed"
    assert progress_text(10, 100, 5, 10.0, stops_early=True).endswith("0.5 games/s, 0:10 elapsed, at most 3:00 left")
    assert progress_text(0, 100, 0, 0.0) == "0/100 games, 0.0 games/s, 0:00 elapsed"


def _board(tmp_path, height: int):
    store = _store(tmp_path / "r.db", None)  # four bots' games
    config = SimpleNamespace(name="cup", playing=("a", "b", "c", "d"), ranks_by_points_per_game=False,
                             game_numbers=lambda: GameNumbers(4, 3, 6))
    console = Console(file=io.StringIO(), width=100, height=height, color_system=None)
    board = LiveBoard(config, store, console)
    board.update(SimpleNamespace(done=50, total=72, played_now=50, void=0, started_at=time.monotonic() - 5))
    return board, console, store


def test_a_short_terminal_keeps_the_progress_and_shrinks_the_board(tmp_path):
    board, console, store = _board(tmp_path, 9)
    try:
        lines = console.render_lines(_Screen(board), console.options, pad=False)
        text = ["".join(segment.text for segment in line) for line in lines]
        assert len(text) <= 9
        assert "50/72 games" in text[-1] and "elapsed" in text[-1]
        assert any("more" in line for line in text)
    finally:
        store.close()


def test_a_tall_terminal_shows_every_bot_ranked_by_points_per_game_mid_run(tmp_path):
    board, console, store = _board(tmp_path, 40)
    try:
        text = "\n".join("".join(s.text for s in line) for line in console.render_lines(_Screen(board), console.options, pad=False))
        assert "more" not in text and all(name in text for name in "abcd")
        assert board.standings.ranks_by_points_per_game  # mid-run: totals would favour bots whose tables came first
        assert "(72 games)" not in text  # the count is the progress line's, never behind it
    finally:
        store.close()


def test_the_html_page_is_live_during_a_run_and_final_after_it(tmp_path):
    """`arena tournament run CONFIG --html FILE`: the page reloads itself while the run goes on, and
    is the final report, without the reload, once it has ended."""
    import subprocess
    import sys

    config = tmp_path / "t.toml"
    config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 30\nworkers = 1\n')
    page = tmp_path / "live.html"
    run = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", str(config), "--html", str(page)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
