"""`arena play --duplicate`: one table's deals, each played in every seating of its bots with the
same cards, as a tournament table plays them (arena/schedule/games.py), summed up as standings are:
points per game with a 95% interval over deal sets (arena/results/standings.py)."""

from __future__ import annotations

from typing import Callable, Sequence

from arena import protocol
from arena.game import Event, Game, Rules
from arena.play.match import remaining_match_line, revive_seats, tell_match_start
from arena.play.records import GameRecord, TimeLimits
from arena.play.referee import play_game
from arena.play.seat import Seat
from arena.results.rows import GameRow
from arena.results.standings import Standings, standings_from_rows
from arena.schedule.games import GameSpec, table_games


def duplicate_specs(labels: Sequence[str], deals: int, seed: int) -> tuple[GameSpec, ...]:
    """Every deal of one table in every seating; `labels` tell apart a bot seated twice."""
    return table_games(0, tuple(labels), deals, seed)


def play_duplicate(seats: Sequence[Seat], labels: Sequence[str], rules: Rules, seed: int, deals: int, *,
                   limits: TimeLimits = TimeLimits(),
                   on_game: Callable[[GameSpec, GameRecord], None] | None = None,
                   on_event: Callable[[GameSpec, Event], None] | None = None) -> list[tuple[GameSpec, GameRecord]]:
    """Play the games of `duplicate_specs` with the table's `seats` (one per label, started once);
    `on_event` sees each move as it is played, with its game's spec (who sits where)."""
    specs = duplicate_specs(labels, deals, seed)
    match_line = protocol.format_match_start(rules, len(specs), dealers_given=True)
    tell_match_start(seats, match_line)
    by_label = dict(zip(labels, seats))
    played = []
    for number, spec in enumerate(specs, start=1):
        game = Game.new(rules, spec.seed, spec.dealer)
        revive_seats(seats, remaining_match_line(rules, len(specs), number, dealers_given=True))
        shown = None if on_event is None else (lambda event, spec=spec: on_event(spec, event))
        record = play_game(game, [by_label[label] for label in spec.bots], number=number, limits=limits,
                           on_event=shown)
        played.append((spec, record))
        if on_game is not None:
            on_game(spec, record)
    return played  # a tournament table's way: `quit` and no `matchover` (protocol.md section 4)


def duplicate_standings(played: Sequence[tuple[GameSpec, GameRecord]], labels: Sequence[str]) -> Standings:
    rows = [GameRow(id=number, key=spec.key, table=spec.table, deal=spec.deal, bots=spec.bots,
                    finishing_order=record.outcome.finishing_order, points=tuple(record.points), seating=spec.seating,
                    faults=tuple({"seat": f.seat, "kind": f.kind.value} for f in record.faults))
            for number, (spec, record) in enumerate(played, start=1)]
    return standings_from_rows(rows, list(labels))


__all__ = ["duplicate_specs", "play_duplicate", "duplicate_standings"]
