"""`arena play` (a match at one table) and `arena selfplay` (random players in process)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.markup import escape

from arena.cli.common import (GAMES_MAX, GAMES_MIN, SEED_MAX, SEED_MIN, GrantOption, MoveTimeout, RuleOption, StartupTimeout,
                               UsageError, console, err_console, fail, parse_grants, parse_rule_options, stop_on_sigterm)
from arena.game import GameError, Rules
from arena.play.seating import Seats
from arena.sandbox.isolation import IsolationMode
from arena.wording import count

if TYPE_CHECKING:
    from arena.tournament.match_session import MatchView


def selfplay(
    games: Annotated[int, typer.Option(min=GAMES_MIN, max=GAMES_MAX, help="How many games to play.")] = 100,
    seed: Annotated[int, typer.Option(min=SEED_MIN, max=SEED_MAX, help="Seed for the deals and the random players.")] = 1,
    rule: RuleOption = None,
) -> None:
    """Play games between built-in random players (in process) and summarise them."""
    from arena.report.matches import render_selfplay
    from arena.play.selfplay import selfplay as run_selfplay

    rules = _rules(rule)
    render_selfplay(run_selfplay(rules, games, seed), console)


def play(
    bots: Annotated[list[str], typer.Argument(help="Bots: names (the workspace's bots/, then the bundled ones), bot folders or bot.toml paths (2 to 5).")],
    games: Annotated[Optional[int], typer.Option(min=GAMES_MIN, max=GAMES_MAX, help="Play exactly N games (default: until the match's scoring ends it, R54-R56).")] = None,
    seed: Annotated[int, typer.Option(min=SEED_MIN, max=SEED_MAX, help="Match seed: deals and the first dealer derive from it.")] = 1,
    rule: RuleOption = None,
    seats: Annotated[Seats, typer.Option("--seats", help="rotate: the bots move one seat on each game, so each plays every seat; fixed: each keeps the seat it is named at.")] = Seats.ROTATE,
    duplicate: Annotated[bool, typer.Option("--duplicate", help="Play each deal in every seating with the same cards, as a tournament table does, and give points per game with the 95% interval.")] = False,
    deals: Annotated[int, typer.Option("--deals", min=1, max=1000, help="With --duplicate: how many deals (each played in every seating).")] = 2,
    show: Annotated[bool, typer.Option("--show", help="Render every game move by move.")] = False,
    log: Annotated[Optional[Path], typer.Option(help="Directory for transcripts, protocol lines and bot stderr.")] = None,
    move_timeout: MoveTimeout = 2.0,
    startup_timeout: StartupTimeout = 10.0,
    grant: GrantOption = None,
    isolation: Annotated[Optional[IsolationMode], typer.Option(
        help="required (the default when a bot is not a bundled one: refused without bubblewrap), auto (isolated "
             "where bubblewrap works, else not) or off. The first line says what the bots got; see arena docs "
             "sandbox.")] = None,
) -> None:
    """Play a match at one table and print each game's result, the points and any faults.

    The seats rotate from game to game (--seats fixed keeps them); --duplicate plays every deal in
    every seating with the same cards, as a tournament does, and ends with points per game."""
    from arena.play.records import TimeLimits
    from arena.report.matches import render_match_totals
    from arena.report.standings import render_standings_table
    from arena.tournament.match_session import MatchOptions, MatchSession

    try:
        rule_options, grants = parse_rule_options(rule), parse_grants(grant)
    except UsageError as exc:
        fail(str(exc))
    options = MatchOptions(tuple(bots), games, seed, rule_options, seats, duplicate, deals, log,
                           TimeLimits(move_timeout_s=move_timeout, startup_timeout_s=startup_timeout), grants,
                           isolation)
    stop_on_sigterm()  # before the builds: a SIGTERM during one still ends it and what it started
    session = MatchSession(options, say=lambda line: console.print(escape(line), highlight=False),
                           note=lambda line: err_console.print(escape(f"note: {line}"), highlight=False))
    session.open()
    try:
        outcome = session.play(_match_view(show))
    except KeyboardInterrupt:
        fail("interrupted: every bot was stopped", code=130)
    if outcome.result is not None:
        result = outcome.result
        render_match_totals(list(outcome.names), result.totals, result.winners, len(result.records), console,
                            rotated=seats is Seats.ROTATE)
    if outcome.standings is not None:
        render_standings_table(outcome.standings, console, title=f"{count(deals, 'deal')} in every seating")
    failure = outcome.start_failure()
    if failure is not None:
        # The match was played (and is shown), but with a bot that never played: a setup problem
        # that a script running `arena play` must be able to see.
        fail(failure, code=1)


def _match_view(show: bool) -> MatchView:
    """How the match is shown: each game's line, each move with --show, each bot that could not start."""
    from arena.report.matches import render_game_record
    from arena.tournament.match_session import MatchView

    def on_lost_at_start(label: str, why: str) -> None:
        console.print(f"[red]{escape(label)} could not start:[/red] {escape(why)}", highlight=False)

    return MatchView(
        on_game=lambda record, score, seating, players: render_game_record(record, console, score, seating, players),
        on_move=(lambda line: console.print("  " + line, highlight=False)) if show else None,
        on_lost_at_start=on_lost_at_start)


def _rules(pairs: list[str] | None) -> Rules:
    try:
        return _rules_from(parse_rule_options(pairs))
    except UsageError as exc:
        fail(str(exc))


def _rules_from(options: dict[str, str]) -> Rules:
    try:
        return Rules.from_options(options)
    except GameError as exc:
        fail(str(exc))


def register(app: typer.Typer) -> None:
    app.command()(selfplay)
    app.command()(play)
