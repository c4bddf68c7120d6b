"""The current games `arena games` lists, selected, ordered and counted by SQL, read as they are taken.

Reading and decoding every stored game to show the first hundred took most of a minute on a million
games. Here SQL picks the games that pass the filters, in game-number order (walking
number_order's index where the file has one, else sorting), and a page is one query that reads
about a page of rows; a longer list reads the ids of the rest in order, then their rows a chunk
at a time, so it streams in little memory. Every read is a short transaction. The filters mean
exactly what games_list.game_lines means, which stays the final word on each row read.

The filters read `seat_results` and `faults`, which every writer keeps with their `games` row
(stored, superseded and voided together), so that a page walks no more rows than it must."""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Iterator

from arena.play.records import NOT_COUNTED_FAULTS
from arena.results.games_list import GameLine, game_lines
from arena.results.number_order import ORDER_BY
from arena.results.rows import GAME_COLUMNS, GameRow
from arena.results.store import _SELECT_GAME, ResultStore
from arena.schedule.numbers import GameNumbers

PAGE = 100  # games the first read takes when the caller does not say how many it wants
MAX_PAGE = 5_000  # ... and at most, whatever it says: a long list streams
CHUNK = 500  # games read by id in one transaction beyond it (as arena/results/ratings.py reads by id)
_ROW_WIDTH = 1 + len(GAME_COLUMNS)  # what `decode_row` reads of a row: its id and columns
_BOT_ID = "(SELECT id FROM bots WHERE name = ?)"  # NULL for a bot without games: it matches nothing


@dataclass(frozen=True, slots=True)
class GameFilter:
    """Which games are listed: games_list.game_lines's filters."""

    bots: tuple[str, ...] = ()  # games that seat every one of them
    faults_only: bool = False  # only games with a counted fault (by one of `bots`, when given)
    skitgubbe: str | None = None  # only games this bot finished last


def current_lines(store: ResultStore, numbers: GameNumbers, wanted: GameFilter, *, by_number: bool = True,
                  page: int = PAGE) -> Iterator[GameLine]:
    """The lines of the current games that pass `wanted`, by game number (else in stored order),
    read as they are taken; `page`: how many the caller means to take, read in one query."""
    rows = current_games(store, numbers.layout, wanted, by_number=by_number, page=page)
    return game_lines(rows, numbers.of, bots=wanted.bots, faults_only=wanted.faults_only, skitgubbe=wanted.skitgubbe)


def current_games(store: ResultStore, layout: str, wanted: GameFilter, *, by_number: bool = True,
                  page: int = PAGE) -> Iterator[GameRow]:
    """The current games that pass `wanted`, in `layout`'s number order (else by id, the stored
    order). The first `page` (up to MAX_PAGE) come from one query (with number_order's index, SQL
    walks no further); a caller that takes more gets the ids of the rest in order, from one query (8
    bytes a game; where a file has no index, one sort rather than one per chunk), then their rows
    by id, CHUNK at a time. Each read is its own short transaction: a run writing is not held up."""
    size = max(1, min(page, MAX_PAGE))
    query, args = games_query(layout, wanted, by_number=by_number, size=size)
    with store._read() as db:
        first = db.execute(query, args).fetchall()
    for row in first:
        yield store._decoded(row[:_ROW_WIDTH])
    if len(first) < size:
        return
    query, args = games_query(layout, wanted, by_number=by_number, after=tuple(first[-1][_ROW_WIDTH:]), ids_only=True)
    with store._read() as db:
        rest = array("q", (game_id for (game_id,) in db.execute(query, args)))
    for start in range(0, len(rest), CHUNK):
        yield from _by_id(store, rest[start:start + CHUNK])


def _by_id(store: ResultStore, ids: array) -> Iterator[GameRow]:
    """The games of `ids`, in that order (one superseded since the ids were read is left out)."""
    with store._read() as db:
        found = {row[0]: row for row in db.execute(
            f"SELECT {_SELECT_GAME} FROM games g WHERE g.id IN ({', '.join('?' * len(ids))})", ids.tolist())}
    for game_id in ids:
        if game_id in found:
            yield store._decoded(found[game_id])


def games_query(layout: str, wanted: GameFilter, *, by_number: bool = True, after: tuple | None = None,
                size: int | None = None, ids_only: bool = False) -> tuple[str, list]:
    """The SQL and parameters of the games that pass `wanted`, in order, after the one whose
    order key is `after` (from the first when None), `size` of them (else all). Each row is the
    games columns `decode_row` reads, then its order key; with `ids_only`, the game's id alone."""
    order_by = ORDER_BY[layout] if by_number else "g.id"
    keys = _terms_of(order_by)
    terms = _page_terms(wanted)
    if after is not None:  # the first key's own `>=` lets SQLite seek in the index; the row value says "after"
        terms += [(f"{keys[0]} >= ?", [after[0]]), (f"({', '.join(keys)}) > ({', '.join('?' * len(keys))})", [*after])]
    where, params = _where(terms)
    columns = "g.id" if ids_only else f"{_SELECT_GAME}, {', '.join(keys)}"
    limit, more = ("", []) if size is None else (" LIMIT ?", [size])
    return f"SELECT {columns} FROM games g{where} ORDER BY {order_by}{limit}", [*params, *more]


def newest_lines(store: ResultStore, numbers: GameNumbers, wanted: GameFilter, limit: int) -> list[GameLine]:
    """The lines of the `limit` current games stored last that pass `wanted`, newest first (a live
    page's latest games): one query down the games' ids."""
    where, params = _where(_page_terms(wanted))
    with store._read() as db:
        rows = db.execute(f"SELECT {_SELECT_GAME} FROM games g{where} ORDER BY g.id DESC LIMIT ?",
                          [*params, max(1, limit)]).fetchall()
    return list(game_lines((store._decoded(row[:_ROW_WIDTH]) for row in rows), numbers.of, bots=wanted.bots,
                           faults_only=wanted.faults_only, skitgubbe=wanted.skitgubbe))


def count_current(store: ResultStore, wanted: GameFilter) -> int:
    """How many current games pass `wanted` (what `current_games` yields in all). All of them: the
    store's count (a kept total where the file has one). With a bot to find: counted from its
    seat_results rows (an index range) rather than over every game."""
    if wanted == GameFilter():
        return store.game_count()
    driver = wanted.skitgubbe if wanted.skitgubbe is not None else (wanted.bots[0] if wanted.bots else None)
    if driver is None:
        where, params = _where([_faulted(wanted.bots, "g.id")] if wanted.faults_only else [])
        query = "SELECT COUNT(*) FROM games g" + where
    else:
        lost = " AND d.skitgubbe = 1" if wanted.skitgubbe is not None else ""
        terms = [(f"d.bot = {_BOT_ID}{lost}", [driver])]
        terms += [_seated_by_seat(name, "d.game_id") for name in wanted.bots if name != driver]
        terms += [_faulted(wanted.bots, "d.game_id")] if wanted.faults_only else []
        where, params = _where(terms)
        query = "SELECT COUNT(*) FROM seat_results d" + where
    with store._read() as db:
        return db.execute(query, params).fetchone()[0]


# ---- the SQL of the filters: (a WHERE term, its parameters) ----------------------------------------

Term = tuple[str, list]


def _page_terms(wanted: GameFilter) -> list[Term]:
    """The WHERE terms of a page. A bot seated: read in the row's own bots, cheap on each row as
    number_order's index is walked (or the table scanned). Who lost and the faults: lists of
    games (one bot's losses are a twelfth of a round robin's, faults fewer) that SQLite reads
    first and sorts, with or without the index, in a tenth of a second on a million games
    (a look-up per row would take a second where the table is scanned)."""
    terms: list[Term] = [("instr(',' || g.bots || ',', ',' || ? || ',') > 0", [name]) for name in wanted.bots]
    if wanted.skitgubbe is not None:
        terms.append((f"g.id IN (SELECT s.game_id FROM seat_results s WHERE s.bot = {_BOT_ID} AND s.skitgubbe = 1)",
                      [wanted.skitgubbe]))
    if wanted.faults_only:
        terms.append(_faulted(wanted.bots, "g.id"))
    return terms


def _seated_by_seat(name: str, game_id: str) -> Term:
    """`name` sat at game `game_id` (by its seat_results row, a primary-key look-up)."""
    return f"EXISTS (SELECT 1 FROM seat_results s WHERE s.bot = {_BOT_ID} AND s.game_id = {game_id})", [name]


def _faulted(bots: tuple[str, ...], game_id: str) -> Term:
    """Game `game_id` has a counted fault (by one of `bots`, when given)."""
    kinds = sorted(NOT_COUNTED_FAULTS)
    inner: list[Term] = [(f"f.kind NOT IN ({', '.join('?' * len(kinds))})", kinds)] if kinds else []
    if bots:
        inner.append((f"f.bot IN (SELECT id FROM bots WHERE name IN ({', '.join('?' * len(bots))}))", [*bots]))
    where, params = _where(inner)
    return f"{game_id} IN (SELECT f.game_id FROM faults f{where})", params


def _where(terms: list[Term]) -> tuple[str, list]:
    """` WHERE a AND b` and the parameters in order; "" without terms."""
    if not terms:
        return "", []
    return " WHERE " + " AND ".join(sql for sql, _ in terms), [param for _, params in terms for param in params]


def _terms_of(order_by: str) -> list[str]:
    """The expressions of an ORDER BY list, split at its top-level commas."""
    terms, depth, start = [], 0, 0
    for at, char in enumerate(order_by):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            terms.append(order_by[start:at].strip())
            start = at + 1
    return [*terms, order_by[start:].strip()]


__all__ = ["GameFilter", "current_lines", "current_games", "games_query", "count_current", "PAGE", "MAX_PAGE", "CHUNK"]
