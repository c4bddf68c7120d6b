"""The file formats of the reading commands (`arena standings`, `arena games`, `arena replay`), and
which of them a file's suffix means when no --format is given: `-o standings.html` alone means
HTML, since a text table in a .html file helps nobody."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Mapping

from arena.errors import ArenaError

StandingsFormat = Literal["table", "markdown", "html", "json", "csv"]
GamesFormat = Literal["table", "csv", "json", "html"]
ReplayFormat = Literal["text", "html", "json"]
GamesSort = Literal["number", "stored"]

STANDINGS_BY_SUFFIX: Mapping[str, StandingsFormat] = {
    ".html": "html", ".htm": "html", ".md": "markdown", ".json": "json", ".csv": "csv", "": "table", ".txt": "table",
    ".text": "table"}
REPLAY_BY_SUFFIX: Mapping[str, ReplayFormat] = {".html": "html", ".htm": "html", ".json": "json", "": "text",
                                                ".txt": "text", ".text": "text"}


def format_for(output: Path | None, by_suffix: Mapping[str, str], what: str) -> str:
    """The format `-o FILE` means by its suffix (a terminal's without -o); a suffix that means no
    format is refused: `-o standings.pdf` would get a text table under a name that promises more."""
    spelled = output.suffix if output is not None else ""
    if spelled.lower() not in by_suffix:
        formats = tuple(dict.fromkeys(by_suffix.values()))
        suffixes = ", ".join(suffix for suffix in dict.fromkeys(by_suffix) if suffix and suffix != ".htm")
        raise ArenaError(f"-o {output}: no {what} format is written as '{spelled}'; give --format "
                         f"({', '.join(formats)}) or a file ending in {suffixes}")
    return by_suffix[spelled.lower()]


def games_format(output: Path | None) -> GamesFormat:
    """`arena games` writes a page (html) with -o FILE.html, else a table in the terminal."""
    return "html" if output is not None and output.suffix.lower() in (".html", ".htm") else "table"


def refuse_games_options(format: str, output: Path | None, instead: Mapping[str, bool], faults: bool,
                         skitgubbe: str | None, superseded: str) -> None:
    """`arena games`' options that cannot go together, refused (ArenaError) before the results are
    opened; `instead`: the options that list something else than the games (--void, --queue, ...)."""
    given = [option for option, on in instead.items() if on]
    if (format == "html") != (output is not None):
        raise ArenaError("--format html writes a page and the game pages beside it: give -o FILE.html"
                         if format == "html" else
                         f"-o writes the html page; the {format} list goes to the terminal (redirect it to a file)")
    if len(given) > 1:
        raise ArenaError(f"{' and '.join(given)} each list something else than games: give one of them")
    if given == ["--void"] and format == "html":
        raise ArenaError("--void lists games that were never played: they have no pages; give --format table, csv "
                         "or json")
    if given and format == "html":
        raise ArenaError(f"{given[0]} lists a league's tables, which the live page and the standings page show "
                         "(arena standings CONFIG -o FILE.html); give --format table, csv or json")
    if given and (faults or skitgubbe is not None or superseded != "exclude"):
        dropped = "--faults" if faults else "--skitgubbe" if skitgubbe is not None else "--superseded"
        what = "games that could not be played" if given == ["--void"] else "a league's tables"
        raise ArenaError(f"{given[0]} lists {what}, which have no faults or finish: drop {dropped}")


__all__ = ["REPLAY_BY_SUFFIX", "STANDINGS_BY_SUFFIX", "GamesFormat", "GamesSort", "ReplayFormat",
           "StandingsFormat", "format_for", "games_format", "refuse_games_options"]
