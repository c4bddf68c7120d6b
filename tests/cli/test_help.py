"""Every command's --help reads as click's does: flags without a metavar, and the docstrings' and
options' paragraphs wrapped to the terminal rather than broken where the source's lines end."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from arena.cli.app import app

# Wider than the source's lines, so that a line end of theirs shows.
WIDTH = 120


def _paths(command, path: tuple[str, ...] = ()):
    """The argument path of every command and sub-command under `command`, itself included. A
    group is known by its `commands` (Typer's groups are built on its own copy of click's classes)."""
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _paths(sub, (*path, name))


PATHS = list(_paths(typer.main.get_command(app)))


def _help(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(WIDTH)},
                                terminal_width=WIDTH)
    assert result.exit_code == 0, result.output
    return result.output


# A line that ends in the middle of a sentence (on a word) although the next line's first word,
# a lowercase one going on with that sentence, would have fitted after it: a line end of the source,
# not of the terminal. Columns are counted from the left edge, a Rich panel's right border left out,
# and the width is the longest line's (the terminal's, or the 120 columns click caps help at);
# the margin spares the few columns a panel's padding takes.
_RIGHT_BORDER = re.compile(r"\s*│?\s*$")
MARGIN = 4


def _broken_sentences(text: str) -> list[str]:
    lines = [_RIGHT_BORDER.sub("", line) for line in text.splitlines()]
    width = max(map(len, lines), default=0)
    broken = []
    for line, after in zip(lines, lines[1:]):
        words = after.strip(" │").split()
        if not line or not words or not (line[-1].isalnum() or line[-1] == ","):
            continue
        if words[0][0].islower() and len(line) + 1 + len(words[0]) + MARGIN <= width:
            broken.append(f"{line.strip(' │')!r} / {after.strip(' │')!r}")
    return broken


def test_the_tree_has_every_command():
    assert len(PATHS) >= 15
    assert ("bot", "check") in PATHS and ("tournament", "run") in PATHS and ("play",) in PATHS


@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "arena")
def test_help_has_no_bool_metavar_and_no_line_broken_by_the_source(path):
    shown = _help(path)
    assert "<bool>" not in shown and "BOOLEAN" not in shown, shown
    assert _broken_sentences(shown) == [], shown


def test_the_checks_catch_typers_rich_help(monkeypatch):
    # The help as it was, in Typer's Rich panels: `--update <bool>`, and `arena play`'s second
    # paragraph with the source's line ends ("plays every deal in / every seating").
    monkeypatch.setattr(app, "rich_markup_mode", "rich")
    assert "<bool>" in _help(("tournament", "run"))
    assert any("plays every deal in' / 'every seating" in broken for broken in _broken_sentences(_help(("play",))))


def test_a_line_the_terminal_wrapped_is_not_taken_for_a_broken_one():
    assert _broken_sentences("  --duplicate plays every deal in\n  every seating.\n" + "x" * 36) == []
    assert _broken_sentences("  --duplicate plays every deal in\n  every seating.\n" + "x" * 48)
