"""A match at one table (`arena play`), from its options to its last game, as session.py runs a
tournament: the options checked against each other and the rules, the bots found, what each asks
checked against what is granted, the isolation found (and said, as a run's first line) and their
copies built; then the table played as a match (seats rotating, or fixed) or in duplicate, each
game's transcript written to the --log folder. The CLI (arena/cli/play.py) words what this
decides: every refusal is an ArenaError with its sentence, and each game, move and lost bot comes
to it through the callbacks of `play`.

    session = MatchSession(MatchOptions(bots=("random_bot", "heuristic_bot", "shell_bot")), say=print)
    session.open()                      # or an ArenaError
    outcome = session.play(MatchView(on_game=...))
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

from arena.errors import ArenaError
from arena.game import Event, GameError, Rules
from arena.game.scoring import MatchScore
from arena.play.isolation_mode import IsolationMode, play_isolation
from arena.play.match import MatchResult, handshake_faults, open_table, play_match, rotation, seat_labels
from arena.play.protocol_log import usable_log_folder
from arena.play.ready import ready_bot
from arena.play.records import GameRecord, TimeLimits
from arena.play.seat import Seat
from arena.play.seating import Seats
from arena.play.startup import BotSettings
from arena.results.replay import describe_event
from arena.results.standings import Standings
from arena.schedule.games import GameSpec
from arena.submission.lookup import load_manifest
from arena.submission.manifest import BotManifest
from arena.transport.bot_process import open_log_for_append

log = logging.getLogger(__name__)

MIN_BOTS, MAX_BOTS = 2, 5  # a table's seats (R1)


@dataclass(frozen=True)
class MatchOptions:
    """What the command line asks of a match."""

    bots: tuple[str, ...]  # names, folders or bot.toml paths
    games: int | None = None  # None: until the match's scoring ends it (R54-R56)
    seed: int = 1
    rule_options: Mapping[str, str] = field(default_factory=dict)  # --rule OPTION=VALUE
    seats: Seats = Seats.ROTATE
    duplicate: bool = False
    deals: int = 2  # of --duplicate; 2 is the default, so another number without --duplicate is a mistake
    log_dir: Path | None = None
    limits: TimeLimits = TimeLimits()
    grants: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    isolation: IsolationMode | None = None  # None: required where a bot is not a bundled one, else auto


@dataclass(frozen=True)
class MatchView:
    """What the person at the terminal is shown as the match goes: each game (its record, the
    match's score or None in duplicate, who sat where, the names by player), each move in words
    (None: moves are not shown), and each bot that could not start (its label, why)."""

    on_game: Callable[[GameRecord, MatchScore | None, Sequence[int], Sequence[str]], None]
    on_move: Callable[[str], None] | None = None
    on_lost_at_start: Callable[[str, str], None] = lambda label, why: None


@dataclass(frozen=True)
class MatchOutcome:
    names: tuple[str, ...]  # by player, as named
    labels: tuple[str, ...]  # by player, a bot named twice told apart (random_bot#0)
    start_faults: tuple[tuple[int, str], ...]  # (player, why) of the bots that never played
    result: MatchResult | None = None  # a match's totals and winners
    standings: Standings | None = None  # a duplicate's points per game

    def start_failure(self) -> str | None:
        """The sentence a script must see when a bot never played (its moves were the referee's)."""
        if not self.start_faults:
            return None
        player, reason = self.start_faults[0]
        return f"{self.labels[player]} could not start, so its moves were the referee's: {reason}"


def check_options(options: MatchOptions) -> None:
    """Options that cannot go together; ArenaError says which."""
    if not MIN_BOTS <= len(options.bots) <= MAX_BOTS:
        raise ArenaError(f"a table seats {MIN_BOTS} to {MAX_BOTS} bots; you named {len(options.bots)}")
    if options.duplicate and options.games is not None:
        raise ArenaError("--duplicate plays every deal in every seating: give the number of deals with --deals, "
                         "not --games")
    if options.deals != 2 and not options.duplicate:
        raise ArenaError("--deals counts the deals of --duplicate: give --duplicate too, or --games for a match")
    if options.duplicate and options.seats is Seats.FIXED:
        raise ArenaError("--duplicate plays every seating: it cannot keep the seats fixed")


def match_rules(options: MatchOptions) -> Rules:
    """The rules of the match: the --rule options, at a table of as many seats as bots named."""
    chosen = dict(options.rule_options)
    if "num_players" in chosen and chosen["num_players"] != str(len(options.bots)):
        raise ArenaError(f"--rule num_players={chosen['num_players']} does not match the {len(options.bots)} "
                         "bots named")
    chosen["num_players"] = str(len(options.bots))
    try:
        return Rules.from_options(chosen)
    except GameError as exc:
        raise ArenaError(str(exc)) from None


class MatchSession:
    """One `arena play`: `open` decides (or refuses), `play` plays and returns the outcome."""

    def __init__(self, options: MatchOptions, say: Callable[[str], None] = lambda line: None,
                 note: Callable[[str], None] = lambda line: None) -> None:
        self.options = options
        self.say = say  # the match's own lines: the isolation
        self.note = note  # what went wrong beside the games (a transcript that could not be written)
        self.rules: Rules
        self.settings: BotSettings
        self.manifests: list[BotManifest] = []

    def open(self) -> None:
        """Everything before the bots start: the options, the rules, the --log folder (before the
        builds, which may take a while), the bots found and prepared under the isolation found."""
        options = self.options
        check_options(options)
        self.rules = match_rules(options)
        log_dir = None if options.log_dir is None else usable_log_folder(options.log_dir)
        settings = BotSettings(limits=options.limits, log_dir=log_dir, grants=options.grants)
        found = [load_manifest(ref) for ref in options.bots]
        strangers = [name for name in options.grants if name not in {m.name for m in found}]
        if strangers:
            raise ArenaError(f"--grant {strangers[0]}...: no bot of this match is named {strangers[0]!r}")
        isolation = play_isolation(options.isolation, found)
        self.settings = replace(settings, isolation=isolation)
        self.say(f"isolation: {isolation.summary()}")
        self.manifests = [ready_bot(m, self.settings, isolation)[0].manifest for m in found]

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.manifests]

    def play(self, view: MatchView) -> MatchOutcome:
        """Start the table's bots, play, and stop every bot (a Ctrl-C passes through, after)."""
        names = self.names
        labels = seat_labels(names)
        with open_table(self.manifests, self.settings) as table:
            for player, seat in enumerate(table):
                if not seat.alive:
                    view.on_lost_at_start(labels[player], seat.dead_reason)
            if self.options.duplicate:
                return self._play_duplicate(table, labels, view)
            result = self._play_match(table, view)
        return MatchOutcome(tuple(names), tuple(labels), result.start_faults, result=result)

    def _play_match(self, table: list[Seat], view: MatchView) -> MatchResult:
        options, names = self.options, self.names
        rotate = options.seats is Seats.ROTATE
        seating_now = [tuple(range(len(names)))]  # whose move is whose: the game's seating

        def on_game(record: GameRecord, score: MatchScore, seating: Sequence[int]) -> None:
            view.on_game(record, score, seating, names)
            self._write_transcript(record)
            if rotate:
                seating_now[0] = rotation(record.number + 1, len(names))

        def on_event(event: Event) -> None:
            assert view.on_move is not None
            view.on_move(describe_event(event, [names[p] for p in seating_now[0]]))

        return play_match(table, self.rules, options.seed, games=options.games, limits=options.limits,
                          on_game=on_game, on_event=on_event if view.on_move else None, rotate=rotate)

    def _play_duplicate(self, table: list[Seat], labels: list[str], view: MatchView) -> MatchOutcome:
        from arena.tournament.duplicate import duplicate_standings, play_duplicate

        options = self.options
        start_faults = handshake_faults(table)

        def on_game(spec: GameSpec, record: GameRecord) -> None:
            view.on_game(record, None, [labels.index(label) for label in spec.bots], labels)
            self._write_transcript(record)

        def on_event(spec: GameSpec, event: Event) -> None:
            assert view.on_move is not None
            view.on_move(describe_event(event, list(spec.bots)))

        played = play_duplicate(table, labels, self.rules, options.seed, options.deals, limits=options.limits,
                                on_game=on_game, on_event=on_event if view.on_move else None)
        return MatchOutcome(tuple(self.names), tuple(labels), tuple(start_faults),
                            standings=duplicate_standings(played, labels))

    def _write_transcript(self, record: GameRecord) -> None:
        """The game's transcript into the --log folder, if one was given."""
        log_dir = self.settings.log_dir
        if log_dir is None:
            return
        path = log_dir / f"game-{record.number:04d}.transcript.txt"
        try:  # the bots can write into the log folder: a FIFO there must not hang the match
            with open_log_for_append(path, "a", encoding="utf-8") as transcript:
                transcript.truncate(0)
                transcript.write(record.transcript.to_text())
        except OSError as exc:
            self.note(f"cannot write {path}: {exc.strerror or exc}")


__all__ = ["MatchOptions", "MatchOutcome", "MatchSession", "MatchView", "check_options", "match_rules"]
