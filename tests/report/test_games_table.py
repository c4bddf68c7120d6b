"""The terminal tables of `arena games` (arena/report/games.py)."""

from __future__ import annotations


def test_the_void_table_gives_each_game_one_line_with_its_tries_and_the_last_reason():
    """A game tried three times took three lines, each with its long reason, at 80 columns."""
    import io

    from rich.console import Console

    from arena.report.games import render_void_table
    from arena.results.voids import VoidRow

    def attempt(key: str, why: str, at: float, played_since: bool = False) -> VoidRow:
        return VoidRow(key, 0, 0, 0, ("svc", "a", "b"), "svc", why, True, at, played_since, "here", False)

    rows = [(7, attempt("t0000-d0000-s00", "could not connect (1)", 1.0e9)),
            (7, attempt("t0000-d0000-s00", "could not connect (2)", 1.0e9 + 60)),
            (7, attempt("t0000-d0000-s00", "could not connect (3)", 1.0e9 + 120)),
            (9, attempt("t0000-d0000-s02", "no route to host", 1.0e9 + 180, played_since=True))]
    out = io.StringIO()
    render_void_table(rows, Console(file=out, width=80, color_system=None), title="cup: 2 void games (4 attempts)")
    text = " ".join(out.getvalue().split())
    assert "(3)" in text and "(1)" not in text and "(2)" not in text  # the last reason only
    numbered = [line.split("│")[1].strip() for line in out.getvalue().splitlines()
                if line.startswith("│") and line.split("│")[1].strip()]
    assert numbered == ["7", "9"]  # a line a game
    tries = [line.split("│")[4].strip() for line in out.getvalue().splitlines()
             if line.startswith("│") and line.split("│")[1].strip()]
    assert tries == ["3", "1"]
