"""One table of a tournament, played where a worker runs it (a local worker process or a cluster
worker): its bots started once, each game of the table played in order, every game reported as
it ends."""

from __future__ import annotations

from typing import Callable

from arena import protocol
from arena.game import Game
from arena.play.match import open_table, revive_seats, tell_match_start
from arena.play.records import GameRecord, TimeLimits
from arena.play.referee import play_game
from arena.play.startup import BotSettings
from arena.schedule.games import GameSpec, TableSpec
from arena.submission.manifest import BotManifest
from arena.tournament.config import TournamentConfig


def play_table(table: TableSpec, manifests: dict[str, BotManifest], config: TournamentConfig,
               settings: BotSettings, report: Callable[[GameSpec, GameRecord], None],
               keep_going: Callable[[], bool] = lambda: True, unwinding: Callable[[], None] | None = None) -> None:
    """Play `table`'s games with bots started once for the table, `report`ing each as it ends;
    `keep_going` is asked before each game (a cluster run that was stopped says no). `unwinding`
    is called when a SIGTERM's SystemExit comes, before the table's bots are closed (a local
    worker's clean-up must not be cut short by a second SIGTERM)."""
    if not table.games:
        return  # nothing to play: no bot is started for it
    numbers = config.game_numbers()
    limits: TimeLimits = settings.limits
    with open_table([manifests[name] for name in table.entries], settings) as seats:
        # A table is one match for its bots (protocol.md section 4), of the games still to play.
        match_line = protocol.format_match_start(config.rules, len(table.games))
        tell_match_start(seats, match_line)
        by_name = dict(zip(table.entries, seats))
        try:
            for spec in table.games:
                if not keep_going():
                    return
                game = Game.new(config.rules, spec.seed, spec.dealer)
                revive_seats(seats, match_line)
                record = play_game(game, [by_name[name] for name in spec.bots], number=numbers.of(spec), limits=limits)
                report(spec, record)
        except SystemExit:
            if unwinding is not None:
                unwinding()
            raise


__all__ = ["play_table"]
