"""A tournament's results, read: the one object every view reads them through (`arena standings`,
`arena games`, `arena replay`, a run's live board and page, the benchmarks; a server later).

    with TournamentResults.open(config_path, note=print) as results:   # read-only, or an ArenaError
        standings = results.standings()                                 # frozen values, for report/

Every answer is a frozen value the report layer renders (arena/report/): the standings with their
ratings, facts, completeness and test; the games a query selects; one game to replay. A run's
live views read through the object the run's session makes on its own store (`on_store`), which
keeps the ratings' counts between refreshes (results/ratings_read.py): a refresh costs the games
stored since the last one. Every view ranks by the same rule, points per game (a complete round
robin ranks the same by total points; mid-run or stopped, totals favour the bots with more games)."""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, TypeVar

from arena.errors import ArenaError
from arena.results.games_list import GameLine, game_lines
from arena.results.games_page import GameFilter, count_current, current_lines
from arena.results.history import version_history
from arena.results.league_queue import LeagueTable
from arena.results.league_view import ChosenTable, LeagueView, choice_dict, chosen_tables, league_view, table_choices
from arena.results.league_view import with_stored
from arena.results.queries import games_summary
from arena.results.ratings import with_ratings
from arena.results.ratings_read import RatingsReader
from arena.results.replay import replay_lines
from arena.results.replay_json import game_replay
from arena.results.rows import GameRow, StoreError
from arena.results.sprt import SprtState
from arena.results.standings import Completeness, Standings
from arena.results.standings_sql import compute_standings
from arena.results.store import ResultStore
from arena.results.voids import VoidRow, pending_void_keys, void_rows
from arena.tournament.config import TournamentConfig
from arena.tournament.facts import tournament_facts
from arena.tournament.league_final import BEFORE_FREEZE
from arena.tournament.league_state import games_per_table
from arena.tournament.opening import bot_versions, load_tournament, open_results
from arena.tournament.resubmission import stored_versions
from arena.wording import shell_command as command
from arena.results.choices import SUPERSEDED_CHOICES, Superseded  # `GameQuery.superseded`



@dataclass(frozen=True, slots=True)
class GameQuery:
    """Which stored games to list, in which order."""

    bots: tuple[str, ...] = ()  # games that seat every one of them
    faults_only: bool = False  # with a counted fault (by one of `bots`, when given)
    skitgubbe: str | None = None  # games this bot finished last
    superseded: Superseded = "exclude"  # games out of the standings: exclude, include (after the others) or only
    by_number: bool = True  # else in the order they were stored
    limit: int = 0  # at most this many, 0 for all


@dataclass(frozen=True)
class Replay:
    """One stored game to replay: its row and number; a superseded play's reason, and how many
    earlier superseded plays of it there are."""

    row: GameRow
    number: int
    superseded: str = ""
    earlier_plays: int = 0
    choice: LeagueTable | None = None  # a league's game: its table, and why it was chosen

    def lines(self, seat: int | None = None) -> list[str]:
        """The game move by move, as the referee (or `seat`) saw it (results/replay.py); a league's
        game says under its first line why its table was chosen."""
        lines = replay_lines(self.row, seat, self.number)
        if self.choice is not None:
            lines.insert(1, f"why this table (league table {self.choice.number}): {self.choice.why}")
        return lines

    def data(self, tournament: str = "") -> dict[str, Any]:
        """The game as one JSON object, the data of its replay page (results/replay_json.py)."""
        return game_replay(self.row, self.number, tournament=tournament, superseded=self.superseded,
                           table_choice=None if self.choice is None else choice_dict(self.choice))


T = TypeVar("T", GameLine, Replay)
CHOICES_CHUNK = 200  # games whose tables' choices are looked up at once


class TournamentResults:
    """The results of one tournament under its config (as the results have it: their numbering,
    their entries with withdrawn bots), read-only; see the module docstring."""

    def __init__(self, store: ResultStore, config: TournamentConfig, config_path: Path | None = None,
                 owns_store: bool = True) -> None:
        self.store, self.config = store, config
        self.config_path = config_path if config_path is not None else config.path
        self._owns_store = owns_store
        self._ratings = RatingsReader()

    @classmethod
    def open(cls, config_path: Path, note: Callable[[str], None] = lambda line: None,
             bots: tuple[str, ...] = (), league: bool = False) -> TournamentResults:
        """The stored results of the tournament at `config_path`, to read (ArenaError: why not);
        `bots`: names the caller will ask about, refused first if the tournament has none such;
        `league`: the caller will ask for a league's tables, refused first if it is no league."""
        config, manifests = load_tournament(config_path)
        if league:
            _check_league(config, config_path)
        _check_bots(config, bots)
        store, config = open_results(config, manifests, bot_versions(manifests), create=False, note=note)
        return cls(store, config, config_path)

    @classmethod
    def on_store(cls, store: ResultStore, config: TournamentConfig) -> TournamentResults:
        """A run's own results (its session's store, left open when this closes): its live views."""
        return cls(store, config, owns_store=False)

    def keep_ratings_of(self, earlier: TournamentResults) -> None:
        """Read the ratings on from where `earlier` (these results opened before, on the same file)
        left them: a view that opens its results again (its config changed) refits only the games
        stored since, not all of them."""
        if earlier.store.path == self.store.path:
            self._ratings = earlier._ratings

    def __enter__(self) -> TournamentResults:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_store:
            self.store.close()

    # ---------------------------------------------------------------- the standings

    def standings(self, *, with_history: bool = False, head_to_head: bool = True,
                  completeness: Completeness | None = None) -> Standings:
        """The standings as every view shows them: ranked by points per game, rated, with the
        facts, the completeness (`completeness`: a run's own count, which its board knows ahead
        of the file), an SPRT run's test, and (`with_history`) the figures of the versions out of
        the standings; without `head_to_head` (the live board shows none) its table is empty. The
        facts give the seed only once the tournament is complete (tournament/facts.py)."""
        store, config = self.store, self.config
        games = games_summary(store)
        void = len(pending_void_keys(store))  # the file's, for the facts; a run's own count may be ahead
        standings = compute_standings(store, list(config.playing), by_points_per_game=True, head_to_head=head_to_head)
        standings = with_ratings(standings, self._ratings.read(store))
        versions = {b.bot: b.version for b in standings.bots}
        test = self.test()
        if completeness is None:
            completeness = self._completeness(games.games, void, test)
        history: tuple = ()
        if with_history:  # what the standings count: each bot at the version its stored games were played at
            history = version_history(store.superseded(), self.versions(), config.withdrawn)
        facts = tournament_facts(config, games.first_finished_at, games.last_finished_at, versions, games.capped_games,
                                 games.games, void, complete=completeness.complete)
        return dataclasses.replace(standings, facts=facts, test=test, completeness=completeness, history=history,
                                   roster=tuple(config.bots), league=self.league())

    def completeness(self) -> Completeness:
        """How much of the tournament is played: games stored, scheduled, void (to be played again),
        and whether an SPRT run's test has decided."""
        return self._completeness(self.store.game_count(), len(pending_void_keys(self.store)), self.test())

    def _completeness(self, games: int, void: int, test: SprtState | None) -> Completeness:
        if self.config.kind.open_ended:  # a league: complete once frozen and its final round robin played
            from arena.results.league_queue import queued_games_left
            from arena.tournament.league_final import final_complete

            left = queued_games_left(self.store, games_per_table(self.config))
            final = final_complete(self.store) is not None
            return Completeness(games, games + left, void, ongoing=not final,
                                counted="the final round robin" if final else "")
        return Completeness(games, self.config.games_scheduled(), void, test is not None and test.decided)

    def versions(self) -> dict[str, str]:
        """Each entry's version as the standings count it (withdrawn ones as stored): the version its
        stored games were played at."""
        return stored_versions(self.store.fingerprint() or {})

    def test(self) -> SprtState | None:
        """An SPRT run's test as it stands; None without one."""
        if not self.config.sprt:
            return None
        from arena.tournament.early_stop import sprt_state, sprt_tables

        return sprt_state(self.store, self.config, sprt_tables(self.config))

    def game_count(self) -> int | None:
        """The games stored now, or None when the file cannot say at this moment (locked, damaged)."""
        return self.store.game_count_now()

    # ---------------------------------------------------------------- the games

    def games(self, query: GameQuery) -> Iterator[GameLine]:
        """The stored games `query` selects, read as they are taken: the current ones from SQL, in
        order (a page reads a page), then the superseded ones (few, read whole)."""
        self._check_bots(query)
        numbers = self.config.game_numbers()
        wanted = GameFilter(query.bots, query.faults_only, query.skitgubbe)
        current: Iterator[GameLine] = iter(()) if query.superseded == "only" else current_lines(
            self.store, numbers, wanted, by_number=query.by_number, page=query.limit or 100)
        found = itertools.chain(current, self._superseded_lines(query))
        return self._with_choices(itertools.islice(found, query.limit or None))

    def newest_games(self, bots: tuple[str, ...] = (), limit: int = 20) -> list[GameLine]:
        """The games stored last (at `bots`' tables, when given), newest first: a live page's latest."""
        from arena.results.games_page import newest_lines

        self._check_bots(GameQuery(bots=bots))
        return newest_lines(self.store, self.config.game_numbers(), GameFilter(bots), limit)

    def count_games(self, query: GameQuery) -> int:
        """How many games `query` selects, without its limit."""
        current = 0 if query.superseded == "only" else count_current(
            self.store, GameFilter(query.bots, query.faults_only, query.skitgubbe))
        return current + sum(1 for _ in self._superseded_lines(query))

    def _superseded_lines(self, query: GameQuery) -> Iterator[GameLine]:
        if query.superseded == "exclude":
            return iter(())
        numbers = self.config.game_numbers()
        gone = [(game.row, game.why) for game in self.store.superseded()]
        if query.by_number:
            gone.sort(key=lambda pair: numbers.of(pair[0]))
        return game_lines(gone, numbers.of, bots=list(query.bots), faults_only=query.faults_only,
                          skitgubbe=query.skitgubbe)

    def _check_bots(self, query: GameQuery) -> None:
        _check_bots(self.config, query.bots + ((query.skitgubbe,) if query.skitgubbe is not None else ()))

    def void_games(self, bots: tuple[str, ...] = ()) -> list[tuple[int, VoidRow]]:
        """Every void attempt of the games that seat every one of `bots`, by game number, then time."""
        self._check_bots(GameQuery(bots))
        numbers = self.config.game_numbers()
        found = [(numbers.number(row.table, row.deal, row.seating), row) for row in void_rows(self.store)
                 if all(name in row.bots for name in bots)]
        return sorted(found, key=lambda pair: (pair[0], pair[1].voided_at))

    # ---------------------------------------------------------------- a league's tables

    @property
    def is_league(self) -> bool:
        """Whether its tables are chosen as it plays (schedule = "league"), kept with why."""
        return self.config.kind.open_ended

    def league(self) -> LeagueView | None:
        """A league's queue (next first), its latest tables ended and how many it chose; None for
        a tournament whose tables are laid out ahead."""
        return league_view(self.store, games_per_table(self.config)) if self.is_league else None

    def league_tables(self, *, queued_only: bool = False, bots: tuple[str, ...] = (), newest_first: bool = False,
                      limit: int = 0) -> list[ChosenTable]:
        """The tables the league chose (only those queued, next first, with `queued_only`), seating
        every one of `bots`, by number (`newest_first`: the latest first), at most `limit` (0: all),
        each with its games stored; an ArenaError for a tournament that chooses none."""
        _check_league(self.config, self.config_path)
        _check_bots(self.config, bots)
        found = chosen_tables(self.store, queued_only=queued_only, bots=bots, newest_first=newest_first, limit=limit)
        return with_stored(self.store, found, games_per_table(self.config))

    def _with_choices(self, items: Iterator[T]) -> Iterator[T]:
        """Each game (a line or a replay) with its league table's choice: why it was chosen (a
        league's games only), looked up CHOICES_CHUNK games at a time."""
        if not self.is_league:
            yield from items
            return
        while chunk := list(itertools.islice(items, CHOICES_CHUNK)):
            found = table_choices(self.store, {_table_of(item) for item in chunk})
            for item in chunk:
                choice = found.get(_table_of(item))
                yield item if choice is None else dataclasses.replace(item, choice=choice)

    # ---------------------------------------------------------------- one game

    def game_key(self, game: str) -> str:
        """A game's key from its tournament game number (as bots and logs see it, stable across
        resumed runs) or its key as given."""
        game = game.strip()
        if game.isascii() and game.isdigit() and len(game) < 19:
            numbers = self.config.game_numbers()
            key = numbers.key_of(int(game))
            if key is None and self.config.kind.open_ended:
                raise ArenaError(f"no game {game}: a league numbers its games as it chooses its tables, and has not "
                                 f"come near that one (arena games {command(self.config_path)} lists its games)")
            if key is None:
                gaps = " (with gaps: the numbers stay when deals or bots are added)" if numbers.highest > numbers.total else ""
                raise ArenaError(f"no game {game}: the games of {self.config.path} have numbers from 1 to "
                                 f"{numbers.highest}{gaps}")
            return key
        return game

    def replay(self, game: str, superseded: bool = False) -> Replay:
        """The stored game `game` (a number or a key), or with `superseded` its last superseded play;
        an ArenaError saying why it is not there (superseded, or not stored yet)."""
        key = self.game_key(game)
        numbers = self.config.game_numbers()
        if superseded:
            earlier = self.store.superseded(with_transcripts=True, key=key)
            if not earlier:
                raise ArenaError(f"game {game.strip()} ({key}) has no superseded play in {self.config.database}")
            last = earlier[-1]
            return next(self._with_choices(iter([Replay(last.row, numbers.of(last.row), last.why, len(earlier) - 1)])))
        try:
            row = self.store.get_game(key)
        except StoreError as exc:
            raise ArenaError(self._not_stored_words(game.strip(), key, exc)) from None
        return next(self._with_choices(iter([Replay(row, numbers.of(row))])))

    def replays(self, lines: Iterable[GameLine]) -> Iterator[Replay]:
        """The listed games (`games`' lines) to replay: a current one by its key, a superseded one
        as its last superseded play (as `replay(..., superseded=True)` shows it)."""
        return self._with_choices(self._replays(lines))

    def _replays(self, lines: Iterable[GameLine]) -> Iterator[Replay]:
        for line in lines:
            if not line.superseded:
                yield Replay(self.store.get_game(line.key), line.number)
                continue
            earlier = self.store.superseded(with_transcripts=True, key=line.key)
            if earlier:  # else played again since it was listed
                yield Replay(earlier[-1].row, line.number, earlier[-1].why, len(earlier) - 1)

    # ---------------------------------------------------------------- every game, for the game pages

    def stored_games(self, after_id: int = 0, superseded: bool = True) -> Iterator[Replay]:
        """Every stored game with its transcript: the current ones in the order stored (those past
        the game of id `after_id`: `last_game_id`), then, with `superseded`, the superseded plays."""
        return self._with_choices(self._stored_games(after_id, superseded))

    def _stored_games(self, after_id: int, superseded: bool) -> Iterator[Replay]:
        numbers = self.config.game_numbers()
        for row in self.store.rows(with_transcripts=True, after_id=after_id):
            yield Replay(row, numbers.of(row))
        if superseded:
            for game in self.store.superseded(with_transcripts=True):
                yield Replay(game.row, numbers.of(game.row), game.why)

    def last_game_id(self) -> int:
        """The id of the game stored last (0 for none): where a run's later reads start."""
        return self.store.last_game_id()

    def _not_stored_words(self, game: str, key: str, exc: Exception) -> str:
        """Why a game is not there to show: superseded (its bot withdrawn, or resubmitted and the game
        not played again yet), with how to see it, else not stored yet."""
        named = f"game {game} ({key})" if key != game else f"game {key}"
        try:
            earlier = self.store.superseded(key=key)
        except StoreError:  # the file found damaged: the first error says it
            earlier = []
        if earlier and earlier[-1].why == BEFORE_FREEZE:
            return (f"{named} was played in the league before its freeze, and the standings count the final round "
                    f"robin alone; the game is kept. See it with: "
                    f"{command('arena', 'replay', self.config_path, game, '--superseded')}")
        if earlier:
            why = earlier[-1].why  # "a: withdrawn" or "a: version 1a2b3c4d5e6f, now 6f5e4d3c2b1a" (results/archive.py)
            bot, _, change = why.partition(": ")
            because = f"{bot} was withdrawn" if change == "withdrawn" else f"its bot was resubmitted ({why})"
            return (f"{named} is superseded: {because}; the game is kept, out of the standings. See it with: "
                    f"{command('arena', 'replay', self.config_path, game, '--superseded')}")
        return f"{named} is not stored yet in {self.config.database}" if key != game else str(exc)


def _table_of(item: GameLine | Replay) -> int:
    return item.table if isinstance(item, GameLine) else item.row.table


def _check_league(config: TournamentConfig, path: Path) -> None:
    if not config.kind.open_ended:
        raise ArenaError(f"{path} is {config.kind.words}: its tables are laid out ahead, none is chosen as it "
                         "plays; only a league (schedule = \"league\") keeps a queue of next tables, and why")


def _check_bots(config: TournamentConfig, names: tuple[str, ...]) -> None:
    for name in names:
        if name not in config.bots:
            raise ArenaError(f"no bot {name!r} in {config.path}; its bots are {', '.join(config.bots)}")


__all__ = ["SUPERSEDED_CHOICES", "Superseded", "GameQuery", "Replay", "TournamentResults"]
