"""Text from outside (a bot's line, a path, a tournament name) reaches the terminal as text.

Rich reads "[...]" as markup: unescaped, a bot that answers "[/b]" made `arena play` die with
a MarkupError traceback, and "[bold]" in a path vanished from an error message.
"""

from __future__ import annotations

import io

from rich.console import Console
from typer.testing import CliRunner

from arena.cli.app import app
from arena.game import Game, Rules
from arena.play.records import FaultKind
from arena.play.seat import Seat
from arena.play.referee import play_game
from arena.report.matches import render_game_record
from arena.report.standings import leaderboard_renderable
from arena.results.standings import Standings
from tests.fakes import ScriptedTransport, faulty_at, random_policy

MARKUP = "[/b] [bold]x[/bold] [/]"


def to_text(renderable_or_fn) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    renderable_or_fn(console)
    return console.file.getvalue()


def test_a_fault_quoting_markup_from_a_bot_prints_as_text():
    seats = [Seat(name="a", transport=ScriptedTransport(faulty_at(3, lambda tokens: MARKUP), "a")),
             Seat(name="b", transport=ScriptedTransport(random_policy(2), "b")),
             Seat(name="c", transport=ScriptedTransport(random_policy(3), "c"))]
    record = play_game(Game.new(Rules(), seed=4, dealer=0), seats, number=1)
    assert [f.kind for f in record.faults] == [FaultKind.MALFORMED]
    text = to_text(lambda console: render_game_record(record, console))
    assert MARKUP in text


def test_a_tournament_name_with_brackets_is_shown_as_written():
    standings = Standings(bots=(), head_to_head={}, places_by_seat=(), faults_by_kind={}, games=0)
    text = to_text(lambda console: console.print(leaderboard_renderable(standings, "cup [/b] [red]2026")))
    assert "cup [/b] [red]2026" in text


def test_an_error_message_quoting_a_path_with_brackets_is_printed_whole(tmp_path):
    folder = tmp_path / "x[/b][bold]"
    folder.mkdir(parents=True)  # "/" makes it two folders: fine, the path still holds "[/b]"
    result = CliRunner().invoke(app, ["standings", str(folder / "none.toml")])
    assert result.exit_code != 0
    assert "Traceback" not in result.output and "MarkupError" not in repr(result.exception)
    assert "x[/b][bold]" in result.output
