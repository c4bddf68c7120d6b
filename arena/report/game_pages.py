"""A report's game pages: a folder beside the report (`standings.html` -> `standings-games/`) with a
replay page per stored game (`<number>.html`; the last superseded play of a game as
`<number>-superseded.html`), the script and style they share (written once), and `index.html`, the
games list linking each number to its page. The standings page, the live page and `arena games
--format html` link into it.

Each write of a report keeps the pages an earlier one left for the same stored games (`MANIFEST`
says which game each page shows), writes the others, and takes away the pages of games that left
(superseded since, say): a report of 10,000 games writes them all once, then only the new ones.
A run's live page adds the pages of the games it stores as it goes (`after_id`), and its final
page brings the whole folder up to date. The games come from the results object
(arena/tournament/results.py), as `Replay` values, each of which gives its page's JSON."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import multiprocessing
import os
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator
from urllib.parse import quote

from arena import __version__
from arena.errors import ArenaError
from arena.report.games_html import games_list_page
from arena.report.replay_page import asset_files, replay_page
from arena.results.games_list import GameLine, game_line
from arena.tournament.output_files import write_output
from arena.tournament.results import Replay, TournamentResults

FOLDER_SUFFIX = "-games"
INDEX = "index.html"


def pages_folder(report: Path) -> Path:
    """Where the game pages of the report at `report` go: beside it, named after it."""
    return report.with_name(report.stem + FOLDER_SUFFIX)


def page_name(number: int, superseded: bool = False) -> str:
    return f"{number}-superseded.html" if superseded else f"{number}.html"


def href_of(line: GameLine) -> str:
    return page_name(line.number, bool(line.superseded))


def write_text(path: Path, text: str, option: str = "a game pages' file") -> None:
    """Write a file whole: a browser reading it (a live page's link) never sees half of it; only
    as a regular file or a new one (ArenaError naming `option` otherwise)."""
    write_output(path, text, option)


# A page replays its game with the rules package (about 2 ms for a game of 200 moves): from this
# many games on, the pages are written by a process per core, CHUNK games at a time.
PARALLEL_FROM = 400
CHUNK = 200


@dataclass(frozen=True, slots=True)
class _Pages:
    """What every page of a folder shares."""

    folder: Path
    tournament: str
    roster: tuple[str, ...]
    back: tuple[str, str]


def _write_chunk(pages: _Pages, games: list[Replay]) -> int:
    """Each game's page (in a worker process, or in this one); how many."""
    for game in games:
        (pages.folder / page_name(game.number, bool(game.superseded))).write_text(
            replay_page(game.data(pages.tournament), roster=pages.roster, back=pages.back[0], back_words=pages.back[1],
                        shared=""),
            encoding="utf-8")
    return len(games)


# Which game each page of a folder shows, and what all its pages share: a later write leaves a page
# whose game is the same stored row (rows never change; a game played again is a new row) and
# whose scripts, names and links are the same. A hidden file beside the pages.
MANIFEST = ".pages.json"


def _context(pages: _Pages) -> dict:
    scripts = hashlib.sha256("".join(asset_files().values()).encode("utf-8")).hexdigest()[:16]
    return {"arena": __version__, "scripts": scripts, "tournament": pages.tournament, "roster": list(pages.roster),
            "back": list(pages.back)}


def _kept(pages: _Pages) -> dict[str, list]:
    """The pages an earlier write left that still hold (page name -> its game's stamp)."""
    try:
        found = json.loads((pages.folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or not readable: every page is written
    if not isinstance(found, dict) or found.get("context") != _context(pages) or not isinstance(found.get("pages"), dict):
        return {}
    return found["pages"]


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def write_pages(folder: Path, games: Iterable[Replay], *, tournament: str,
                roster: tuple[str, ...] = (), back: tuple[str, str] = (INDEX, "all games"),
                complete: bool = True) -> list[GameLine]:
    """A page per game of `games` (each with its transcript, number and why superseded) and the
    shared script and style; `back`: (href, words) of each page's link to the list. A page an
    earlier write left for the same stored game is kept as it is; with `complete` (`games` are all
    the folder shows), the pages of games no longer there go. Returns the games' lines for a list,
    in the order given. Raises OSError."""
    folder.mkdir(exist_ok=True)
    for name, text in asset_files().items():
        write_text(folder / name, text)
    pages = _Pages(folder, tournament, roster, back)
    kept, stamps, lines = _kept(pages), {}, []

    def to_write() -> Iterator[Replay]:
        for game in games:
            row, why = game.row, game.superseded
            lines.append(dataclasses.replace(game_line(row, game.number, why), choice=game.choice))  # a league's why
            name, stamp = page_name(game.number, bool(why)), [row.id, row.key, row.finished_at, why]
            stamps[name] = stamp
            if kept.get(name) != stamp or not (folder / name).is_file():
                yield game

    _write_all(pages, to_write())
    if complete:
        for name in set(kept) - set(stamps):
            (folder / name).unlink(missing_ok=True)  # only pages this folder's list named
    else:
        stamps = {**kept, **stamps}
    write_text(folder / MANIFEST, json.dumps({"context": _context(pages), "pages": stamps}))
    return lines


def _write_all(pages: _Pages, games: Iterator[Replay]) -> None:
    first = list(itertools.islice(games, PARALLEL_FROM))
    workers = _cores()
    if len(first) < PARALLEL_FROM or workers < 2:
        _write_chunk(pages, first + list(games))
        return
    # Spawned, not forked: the caller may hold threads and an open database.
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        running: deque[Future[int]] = deque()
        for chunk in _chunks(itertools.chain(first, games), CHUNK):
            running.append(pool.submit(_write_chunk, pages, chunk))
            if len(running) >= 2 * workers:  # a bounded read-ahead: the rows of a few chunks in memory
                running.popleft().result()
        while running:
            running.popleft().result()


def _chunks(items: Iterable[Replay], size: int) -> Iterator[list[Replay]]:
    items = iter(items)
    while chunk := list(itertools.islice(items, size)):
        yield chunk


def write_index(folder: Path, lines: Iterable[GameLine], *, title: str, roster: tuple[str, ...] = (),
                back: tuple[str, str] | None = None, note: str = "") -> None:
    """The games list of the folder, by game number (a superseded play after the current one)."""
    ordered = sorted(lines, key=lambda line: (line.number, bool(line.superseded)))
    write_text(folder / INDEX, games_list_page(ordered, title, href_of, roster=roster, back=back, note=note))


def write_report_pages(folder: Path, results: TournamentResults, *, back: tuple[str, str] | None = None) -> int:
    """The pages of every stored game of the tournament and their index; returns how many pages."""
    config = results.config
    roster = tuple(config.playing)
    lines = write_pages(folder, results.stored_games(), tournament=config.name, roster=roster)
    write_index(folder, lines, title=f"{config.name}: games", roster=roster, back=back)
    return len(lines)


def report_pages_beside(report: Path, results: TournamentResults) -> tuple[str, int]:
    """A standings report's game pages in the folder beside it (`-o FILE.html`): the report's link
    to their list, and how many pages. ArenaError says which folder could not be written."""
    folder = pages_folder(report)
    try:
        written = write_report_pages(folder, results, back=("../" + quote(report.name), "the standings"))
    except OSError as exc:
        raise ArenaError(f"cannot write the game pages to {folder}: {exc.strerror or exc}") from None
    return f"{quote(folder.name)}/{INDEX}", written


def write_games_page(output: Path, results: TournamentResults, lines: Iterable[GameLine], title: str) -> int:
    """`arena games --format html -o FILE`: the listed games at `output`, each number linked to the
    game's page in the folder beside it; returns how many pages. ArenaError says what could not be written."""
    folder, listed, roster = pages_folder(output), list(lines), tuple(results.config.playing)
    try:
        written = write_pages(folder, results.replays(listed), tournament=results.config.name, roster=roster,
                              back=("../" + quote(output.name), "all games"))
        write_text(output, games_list_page(listed, title, lambda line: f"{quote(folder.name)}/{href_of(line)}",
                                           roster=roster), "-o")
    except OSError as exc:
        raise ArenaError(f"cannot write the games page to -o {output}: {exc.strerror or exc}") from None
    return len(written)


class LivePages:
    """A run's game pages beside its live page (`tournament run --html FILE`): each write adds the
    pages of the games stored since the last one (`update`), and names the latest; the list of
    them is written with them, and at the end (`finish`) the whole folder is brought up to date."""

    LATEST = 8  # games the live page names beside its link to the list

    def __init__(self, report: Path, results: TournamentResults) -> None:
        self.folder, self.results, self.config = pages_folder(report), results, results.config
        self.back = ("../" + quote(report.name), "the standings")
        self.index_href = f"{quote(self.folder.name)}/{INDEX}"  # the live page's link to the list
        self.after_id = results.last_game_id()  # the games stored before this run have their pages from its report
        self.lines: list[GameLine] = []

    def update(self) -> list[tuple[int, str, str]]:
        """Pages for the games stored since the last call, and the list; the latest as (number,
        link, words) for the live page. Raises OSError."""
        last = self.results.last_game_id()
        games = self.results.stored_games(after_id=self.after_id, superseded=False)
        self.lines += write_pages(self.folder, (g for g in games if g.row.id <= last), tournament=self.config.name,
                                  roster=tuple(self.config.playing), complete=False)
        self.after_id = last
        self._index("The games this run has stored so far; the final report lists every game.")
        return self.latest()

    def finish(self) -> list[tuple[int, str, str]]:
        """Every stored game's page (those written already kept), and the list of them all."""
        self.lines = write_pages(self.folder, self.results.stored_games(), tournament=self.config.name,
                                 roster=tuple(self.config.playing))
        self.after_id = self.results.last_game_id()
        self._index()
        return self.latest()
    def _index(self, note: str = "") -> None:
        latest: dict[tuple[int, str], GameLine] = {(line.number, line.superseded): line for line in self.lines}
        self.lines = list(latest.values())  # a game played again since (a void one) keeps one line
        write_index(self.folder, self.lines, title=f"{self.config.name}: games", roster=tuple(self.config.playing),
                    back=self.back, note=note)

    def latest(self) -> list[tuple[int, str, str]]:
        prefix = quote(self.folder.name) + "/"
        return [(line.number, prefix + href_of(line), " > ".join(line.order))
                for line in self.lines[-self.LATEST:] if not line.superseded][::-1]
