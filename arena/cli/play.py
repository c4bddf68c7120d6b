"""`arena play` (a match at one table) and `arena selfplay` (random players in process)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from arena.cli.common import (GAMES_MAX, GAMES_MIN, SEED_MAX, SEED_MIN, GrantOption, MoveTimeout, RuleOption, StartupTimeout,
                               UsageError, console, err_console, fail, parse_grants, parse_rule_options, stop_on_sigterm,
                               usable_log_dir)
from arena.game import GameError, Rules
from arena.play.isolation_mode import isolation_problem, play_isolation
from arena.wording import count


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


SEATS_CHOICES = ("rotate", "fixed")


def play(
    bots: Annotated[list[str], typer.Argument(help="Bots: names (the workspace's bots/, then the bundled ones), bot folders or bot.toml paths (2 to 5).")],
    games: Annotated[Optional[int], typer.Option(min=GAMES_MIN, max=GAMES_MAX, help="Play exactly N games (default: until the match's scoring ends it, R54-R56).")] = None,
    seed: Annotated[int, typer.Option(min=SEED_MIN, max=SEED_MAX, help="Match seed: deals and the first dealer derive from it.")] = 1,
    rule: RuleOption = None,
    seats: Annotated[str, typer.Option("--seats", help="rotate: the bots move one seat on each game, so each plays every seat; fixed: each keeps the seat it is named at.")] = "rotate",
    duplicate: Annotated[bool, typer.Option("--duplicate", help="Play each deal in every seating with the same cards, as a tournament table does, and give points per game with the 95% interval.")] = False,
    deals: Annotated[int, typer.Option("--deals", min=1, max=1000, help="With --duplicate: how many deals (each played in every seating).")] = 2,
    show: Annotated[bool, typer.Option("--show", help="Render every game move by move.")] = False,
    log: Annotated[Optional[Path], typer.Option(help="Directory for transcripts, protocol lines and bot stderr.")] = None,
    move_timeout: MoveTimeout = 2.0,
    startup_timeout: StartupTimeout = 10.0,
    grant: GrantOption = None,
    isolation: Annotated[Optional[str], typer.Option(
        help="required (the default when a bot is not a bundled one: refused without bubblewrap), auto (isolated "
             "where bubblewrap works, else not) or off. The first line says what the bots got; see arena docs "
             "sandbox.")] = None,
) -> None:
    """Play a match at one table and print each game's result, the points and any faults.

    The seats rotate from game to game (--seats fixed keeps them); --duplicate plays every deal in
    every seating with the same cards, as a tournament does, and ends with points per game."""
    from arena.play.startup import BotSettings
    from arena.play.match import handshake_faults, open_table, play_match, rotation
    from arena.play.records import TimeLimits
    from arena.transport.bot_process import open_log_for_append
    from arena.results.replay import describe_event
    from arena.report.matches import render_game_record, render_match_totals, seat_labels

    if not 2 <= len(bots) <= 5:
        fail(f"a table seats 2 to 5 bots; you named {len(bots)}")
    if seats not in SEATS_CHOICES:
        fail(f"--seats must be one of {', '.join(SEATS_CHOICES)}, not {seats!r}")
    if duplicate and games is not None:
        fail("--duplicate plays every deal in every seating: give the number of deals with --deals, not --games")
    if deals != 2 and not duplicate:
        fail("--deals counts the deals of --duplicate: give --duplicate too, or --games for a match")
    if duplicate and seats == "fixed":
        fail("--duplicate plays every seating: it cannot keep the seats fixed")
    if isolation_problem(isolation):
        fail(isolation_problem(isolation) or "")
    try:
        options = parse_rule_options(rule)
        grants = parse_grants(grant)
    except UsageError as exc:
        fail(str(exc))
    if "num_players" in options and options["num_players"] != str(len(bots)):
        fail(f"--rule num_players={options['num_players']} does not match the {len(bots)} bots named")
    options["num_players"] = str(len(bots))
    rules = _rules_from(options)
    log_dir = usable_log_dir(log)  # before the builds, which may take a while
    stop_on_sigterm()  # before the builds: a SIGTERM during one still ends it and what it started
    limits = TimeLimits(move_timeout_s=move_timeout, startup_timeout_s=startup_timeout)
    settings = BotSettings(limits=limits, log_dir=log_dir, grants=grants)
    manifests, settings = _load_bots(bots, settings, isolation)
    names = [m.name for m in manifests]
    labels = seat_labels(names)  # a bot named twice: random_bot#0 and random_bot#1, whatever its seat
    rotate = seats == "rotate"

    def write_transcript(record) -> None:
        if log_dir is not None:
            path = log_dir / f"game-{record.number:04d}.transcript.txt"
            try:  # the bots can write into the log folder: a FIFO there must not hang the match
                with open_log_for_append(path, "a", encoding="utf-8") as transcript:
                    transcript.truncate(0)
                    transcript.write(record.transcript.to_text())
            except OSError as exc:
                err_console.print(escape(f"note: cannot write {path}: {exc.strerror or exc}"), highlight=False)

    # --show: each move as it is played, named by the bot that made it at the game's seating.
    seating_now = [tuple(range(len(names)))]
    on_event = (lambda event: console.print("  " + describe_event(event, [names[p] for p in seating_now[0]]),
                                            highlight=False)) if show else None

    def on_game(record, score, seating) -> None:
        render_game_record(record, console, score, seating, names)
        write_transcript(record)
        if rotate:
            seating_now[0] = rotation(record.number + 1, len(names))

    try:
        with open_table(manifests, settings) as table:
            for player, seat in enumerate(table):
                if not seat.alive:
                    console.print(f"[red]{escape(labels[player])} could not start:[/red] {escape(seat.dead_reason)}",
                                  highlight=False)
            if duplicate:
                start_faults = handshake_faults(table)
                _play_duplicate(table, labels, rules, seed, deals, limits, write_transcript, show)
                _end_of_match(start_faults, labels)
                return
            result = play_match(table, rules, seed, games=games, limits=limits, on_game=on_game, on_event=on_event,
                                rotate=rotate)
    except KeyboardInterrupt:
        fail("interrupted: every bot was stopped", code=130)
    render_match_totals(names, result.totals, result.winners, len(result.records), console, rotated=rotate)
    _end_of_match(result.start_faults, labels)


def _end_of_match(start_faults, labels) -> None:
    if start_faults:
        # The match was played (and is shown), but with a bot that never played: a setup problem
        # that a script running `arena play` must be able to see.
        player, reason = start_faults[0]
        fail(f"{labels[player]} could not start, so its moves were the referee's: {reason}", code=1)


def _play_duplicate(table, labels, rules, seed: int, deals: int, limits, write_transcript, show: bool) -> None:
    from arena.report.matches import render_game_record
    from arena.results.replay import describe_event
    from arena.report.standings import render_standings_table
    from arena.tournament.duplicate import duplicate_standings, play_duplicate

    def on_game(spec, record) -> None:
        render_game_record(record, console, None, [labels.index(label) for label in spec.bots], labels)
        write_transcript(record)

    def on_event(spec, event) -> None:
        console.print("  " + describe_event(event, list(spec.bots)), highlight=False)

    played = play_duplicate(table, labels, rules, seed, deals, limits=limits, on_game=on_game,
                            on_event=on_event if show else None)
    standings = duplicate_standings(played, labels)
    render_standings_table(standings, console, title=f"{count(deals, 'deal')} in every seating")


def _load_bots(refs: list[str], settings, isolation: str | None):
    """Each bot found, what it asks checked against what is granted, and prepared to run under the
    isolation `--isolation` asks for, which the first line says, as a tournament's does; with the
    settings that hold that isolation."""
    from arena.submission.manifest import ManifestError
    from arena.submission.lookup import load_manifest

    found = []
    for ref in refs:
        try:
            found.append(load_manifest(ref))
        except ManifestError as exc:
            fail(str(exc))
    strangers = [name for name in settings.grants or {} if name not in {m.name for m in found}]
    if strangers:
        fail(f"--grant {strangers[0]}...: no bot of this match is named {strangers[0]!r}")
    from arena.play.ready import ready_bot

    settings = replace(settings, isolation=play_isolation(isolation, found))
    console.print(escape(f"isolation: {settings.isolation.summary()}"), highlight=False)
    return [ready_bot(manifest, settings, settings.isolation)[0].manifest for manifest in found], settings


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
