"""One table of a tournament, played where a worker runs it (a local worker process or a cluster
worker): its bots started once, each game of the table played in order, every game reported as
it ends."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from arena import protocol
from arena.game import Game
from arena.play.match import open_table, remaining_match_line, revive_seats, tell_match_start
from arena.play.records import GameRecord, TimeLimits, VoidGame
from arena.play.referee import play_game
from arena.play.seat import Seat
from arena.play.startup import BotSettings
from arena.schedule.games import GameSpec, TableSpec
from arena.submission.manifest import BotManifest
from arena.tournament.config import TournamentConfig


def play_table(table: TableSpec, manifests: dict[str, BotManifest], config: TournamentConfig,
               settings: BotSettings, report: Callable[[GameSpec, GameRecord | VoidGame], None],
               keep_going: Callable[[], bool] = lambda: True, unwinding: Callable[[], None] | None = None,
               notify: Callable[[str], None] | None = None) -> None:
    """Play `table`'s games with bots started once for the table, `report`ing each as it ends;
    `keep_going` is asked before each game (a cluster run that was stopped says no). `unwinding`
    is called when a SIGTERM's SystemExit comes, before the table's bots are closed (a local
    worker's clean-up must not be cut short by a second SIGTERM). `notify`: a line for the
    organiser, sent as it happens (a start tried again).

    A bot that cannot be started or reached for a reason outside its code is tried again for up
    to the config's `start_retry_s`; if it is still out, the game is void, and so are the table's
    games after it, reported untried: the runner pauses that bot (arena/tournament/feed.py). A
    service of a bot whose retry window of the run is spent (`table.retried`) is charged instead."""
    if not table.games:
        return  # nothing to play: no bot is started for it
    if table.retried:
        settings = replace(settings, retries_spent=frozenset(table.retried))
    numbers = config.game_numbers()
    limits: TimeLimits = settings.limits
    games = len(table.games)
    with open_table([manifests[name] for name in table.entries], settings) as seats:
        # A table is one match for its bots (protocol.md section 4), of the games still to play.
        tell_match_start(seats, protocol.format_match_start(config.rules, games, dealers_given=True))
        by_name = dict(zip(table.entries, seats))
        try:
            for index, spec in enumerate(table.games):
                if not keep_going():
                    return
                revive_seats(seats, remaining_match_line(config.rules, games, index + 1, dealers_given=True),
                             retry_s=config.start_retry_s, keep_going=keep_going,
                             on_retry=_retry_teller(notify, table.index))
                lost = next((seat for seat in seats if not seat.alive and seat.void), None)
                if lost is not None:
                    _void_from(table.games[index:], lost, numbers.of, report)
                    return
                game = Game.new(config.rules, spec.seed, spec.dealer)
                record = play_game(game, [by_name[name] for name in spec.bots], number=numbers.of(spec), limits=limits)
                report(spec, record)
        except SystemExit:
            if unwinding is not None:
                unwinding()
            raise


def _retry_teller(notify: Callable[[str], None] | None, table: int) -> Callable[[Seat, float], None] | None:
    """What tells the organiser that a bot's start failed outside it and is being tried again."""
    if notify is None:
        return None

    def tell(seat: Seat, retry_s: float) -> None:
        notify(f"{seat.name} could not be started or reached at table {table} ({seat.dead_reason}): "
               f"trying again for up to {retry_s:g} s (start_retry_s) before its games there are void")
    return tell


def _void_from(specs: Sequence[GameSpec], lost: Seat, number_of: Callable[[GameSpec], int],
               report: Callable[[GameSpec, GameRecord | VoidGame], None]) -> None:
    """The first game void as tried, the rest of the table void untried (the same bot would fail them)."""
    first, *rest = specs
    report(first, VoidGame(number_of(first), first.bots, lost.name, lost.dead_reason))
    why = f"not tried: {lost.name} could not be started or reached at this table ({lost.dead_reason})"
    for spec in rest:
        report(spec, VoidGame(number_of(spec), spec.bots, lost.name, why, tried=False))


__all__ = ["play_table"]
