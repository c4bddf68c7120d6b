"""`arena bot check`: does a bot keep the contract of protocol.md? Pure logic, no printing.

The bot plays real games through the match layer (connect_bot, play_match, the referee) against the
bundled bots, with protocol lines logged to a temporary folder. Each check is a CheckResult with
evidence lines (the protocol lines around the problem, the tail of the bot's stderr) when it fails,
made by a function of its own: `_manifest_row`, `_build_row`, `_handshake_row`, the rows read off the
games (arena/check/rows.py `GAME_ROWS`), the probes (arena/check/probes.py) and `_leftover_row`.

Rows, in order: manifest, build, handshake, games, legal moves, answers in time, well-formed lines,
stays up, exit on quit, later protocol (for a running ZeroMQ service: conversations apart), no
leftover processes. A row that cannot be reached (no build, no handshake) is left out.
"""

from __future__ import annotations

import secrets
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from arena.check.evidence import Evidence, copy_logs
from arena.check.probes import check_quit, conversations_apart, later_protocol
from arena.check.rows import GAME_ROWS, TIMEOUTS_ENOUGH, Played
from arena.check.verdicts import CheckReport, CheckResult
from arena.game import Rules, RulesError
from arena.play.isolation_mode import network_problem
from arena.play.match import rotation, allow_restarts, close_seat, play_match
from arena.play.records import FaultKind, GameRecord, TimeLimits
from arena.play.seat import Seat
from arena.play.startup import BotSettings, connect_bot, granted, refused_words
from arena.sandbox.folder_copy import copy_refused
from arena.sandbox.limits import LimitRefused, Limits
from arena.submission.prepared import prepare_bot
from arena.submission.lookup import load_manifest
from arena.submission.workspace import BUNDLED_BOTS_DIR
from arena.submission.manifest import BotManifest, ManifestError
from arena.submission.versions import content_hash

DEFAULT_OPPONENTS = ("random_bot", "heuristic_bot")
DEFAULT_GAMES = 6
QUIT_WAIT_S = 1.0
TABLES_NUMBERED = 200  # its games' numbers start where one of this many tables of a tournament's may


def check_bot(
    bot: str | Path | BotManifest,
    *,
    games: int = DEFAULT_GAMES,
    bots_dir: Path | None = None,
    opponents: Sequence[str] = DEFAULT_OPPONENTS,
    opponents_dir: Path | None = None,
    move_timeout_s: float = 2.0,
    startup_timeout_s: float = 10.0,
    quit_wait_s: float = QUIT_WAIT_S,
    seed: int | None = None,
    first_number: int | None = None,
    sandbox_limits: Mapping[str, Any] | None = None,
    grants: Mapping[str, Mapping[str, Any]] | None = None,
    build: bool = True,
    rule_options: Mapping[str, str] | None = None,
    keep_logs_in: Path | None = None,
) -> CheckReport:
    """Run every check on one bot (a name under bots_dir, a folder, a bot.toml, or a manifest).

    `rule_options` are the games' rule options (as `--rule`); a bad one raises `RulesError`
    before anything is built or started. `keep_logs_in`: a folder to copy the check's protocol
    and stderr logs into (they are written to a fresh temporary folder first, so that the
    evidence quoted never comes from an earlier check). `seed`: the deals' (default: a new one each
    check, as a tournament keeps its own secret: a bot must not know the check's hands);
    `first_number`: its first game's number (default: where one of a tournament's tables may start)."""
    started = time.monotonic()
    options = dict(rule_options or {})
    rules = _table_rules(options, opponents)
    plan = _Plan(games=games, opponents=tuple(opponents), opponents_dir=opponents_dir, quit_wait_s=quit_wait_s,
                 seed=secrets.randbelow(2**62) if seed is None else seed, rules=rules,
                 first_number=1 + games * secrets.randbelow(TABLES_NUMBERED) if first_number is None else first_number,
                 rule_words=_rules_words(options))
    report, taken = _manifest_row(bot, bots_dir, BotSettings(sandbox_limits=sandbox_limits, grants=grants), options)
    manifest = taken[0] if taken is not None else None
    if taken is not None and build:
        manifest = _build_row(*taken, report)
    if manifest is not None:
        limits = TimeLimits(move_timeout_s=move_timeout_s, startup_timeout_s=startup_timeout_s)
        with tempfile.TemporaryDirectory(prefix="arena-check-") as tmp:
            log_dir = Path(tmp)
            settings = BotSettings(limits=limits, log_dir=log_dir, sandbox_limits=sandbox_limits, grants=grants)
            _play_rows(manifest, report, settings, plan)
            if keep_logs_in is not None:
                report.logs_kept = copy_logs(log_dir, Path(keep_logs_in))
    report.seconds = time.monotonic() - started
    return report


@dataclass(frozen=True, slots=True)
class _Plan:
    """How the check plays: decided once by check_bot, handed to the rows that play."""

    games: int
    opponents: tuple[str, ...]
    opponents_dir: Path | None
    quit_wait_s: float
    seed: int
    rules: Rules
    first_number: int  # its games are numbered as a tournament's table may number them, never from 1 alone
    rule_words: str


def _table_rules(options: Mapping[str, str], opponents: Sequence[str]) -> Rules:
    table_size = 1 + len(opponents)
    rules = Rules.from_options({"num_players": str(table_size), **options})
    if rules.num_players != table_size:
        raise RulesError(f"num_players={rules.num_players}: the check plays at a table of {table_size}, "
                         f"the bot and {', '.join(opponents)}")
    return rules


def _manifest_row(bot: str | Path | BotManifest, bots_dir: Path | None, settings: BotSettings,
                  options: Mapping[str, str]) -> tuple[CheckReport, tuple[BotManifest, Limits] | None]:
    """The manifest row: the bot's manifest, as a tournament would take it, and the limits it runs
    under (None when refused)."""
    try:
        manifest = bot if isinstance(bot, BotManifest) else load_manifest(bot, bots_dir)
    except ManifestError as exc:
        return CheckReport(bot=str(bot), directory=None, results=[CheckResult("manifest", False, str(exc))]), None
    report = CheckReport(bot=manifest.name, directory=manifest.directory, rule_options=dict(options))
    try:
        report.version = content_hash(manifest)
        limits = granted(manifest, settings).limits
        refused = network_problem(manifest, limits)
    except ManifestError as exc:  # a tournament would refuse this bot: say so here first
        refused = str(exc)
    except LimitRefused as exc:
        refused = refused_words(manifest, exc)
    if refused:
        report.results.append(CheckResult("manifest", False, refused))
        return report, None
    report.results.append(CheckResult("manifest", True, f"{manifest.path} ({manifest.language or 'language ?'}, "
                                                        f"{manifest.transport})"))
    return report, (manifest, limits)


def _build_row(manifest: BotManifest, limits: Limits, report: CheckReport) -> BotManifest | None:
    """The build row. As a tournament runs it: its files copied into the build cache and built there,
    once per version (arena/submission/prepared.py); the check plays that copy (None: it cannot)."""
    try:
        prepared = prepare_bot(manifest, limits=limits)
    except ManifestError as exc:
        text = str(exc)
        report.results.append(CheckResult("build", False, text.splitlines()[0], tuple(text.splitlines()[1:])))
        return None
    how = "built now" if prepared.built_now else "built before, from the build cache"
    built = f"{' '.join(manifest.build)} ({how})" if manifest.build else "nothing to build"
    report.version, report.build = prepared.version, prepared.build
    # A writable folder is copied at each start under the bot's own limits: one that cannot be is
    # refused here, as at a run's start (every game of it would be charged).
    refused = copy_refused(prepared.manifest.directory, limits) if prepared.manifest.writable_folder else None
    report.results.append(CheckResult("build", refused is None, built if refused is None else f"{built}; but {refused}"))
    return prepared.manifest if refused is None else None


def _play_rows(manifest: BotManifest, report: CheckReport, settings: BotSettings, plan: _Plan) -> None:
    """The rows of a bot that starts: handshake, the games' rows, the probes, no leftover processes."""
    label = f"seat0-{manifest.name}"
    ev = Evidence(settings.log_dir or Path(), label)
    seats: list[Seat] = []
    procs: list[Any] = []  # every process of the bot under test, restarts included
    try:
        bot = _handshake_row(manifest, report, settings, label, ev)
        seats.append(bot)
        procs.append(_process_of(bot))
        if not bot.alive:
            report.results.append(CheckResult("games", False, "not played: the bot did not complete the handshake"))
            return
        # As in a match or a tournament, a bot lost in one game starts afresh for the next:
        # otherwise its later games were all the referee's moves, each charged as a loss of its own.
        allow_restarts(bot, manifest, settings, label, on_start=lambda fresh: procs.append(_process_of(fresh)))
        rivals = _seat_rivals(seats, report, settings, plan)
        if rivals is None:
            return
        played = _play_games(seats, settings, plan, ev)
        report.think_ms = played.think_ms
        report.results.extend(row(played) for row in GAME_ROWS)
        _probe_rows(manifest, report, settings, plan, ev, rivals, bot, set(played.kinds))
    finally:
        for s in seats:
            close_seat(s)
        if seats and not manifest.is_service:
            report.results.append(_leftover_row(procs))


def _handshake_row(manifest: BotManifest, report: CheckReport, settings: BotSettings, label: str,
                   ev: Evidence) -> Seat:
    t0 = time.monotonic()
    seat, hello_name = connect_bot(manifest, settings, label)
    startup_ms = (time.monotonic() - t0) * 1000.0
    if seat.guard is not None:
        report.sandbox = seat.guard.describe()
    if not seat.alive:
        report.results.append(CheckResult("handshake", False, f"{seat.dead_reason} (after {startup_ms:.0f} ms)",
                                          ev.both()))
        return seat
    limit_ms = settings.limits.startup_timeout_s * 1000.0
    ok = startup_ms <= limit_ms
    # Not a failure (a bot may call itself what it likes), but worth a word: standings, logs and
    # replays all use the manifest's name.
    other_name = f"; results use the manifest's name, {manifest.name}" if hello_name != manifest.name else ""
    report.results.append(CheckResult(
        "handshake", ok, f"hello name={hello_name} in {startup_ms:.0f} ms (limit {limit_ms:.0f} ms){other_name}",
        () if ok else ev.both()))
    return seat


def _seat_rivals(seats: list[Seat], report: CheckReport, settings: BotSettings,
                 plan: _Plan) -> list[BotManifest] | None:
    """Start the opponents beside the bot (in `seats`); None, with a failed games row, if one cannot."""
    rivals = [prepare_bot(load_manifest(name, plan.opponents_dir or BUNDLED_BOTS_DIR)).manifest
              for name in plan.opponents]
    for i, opp in enumerate(rivals, start=1):
        opp_seat, _ = connect_bot(opp, settings, f"seat{i}-{opp.name}")
        allow_restarts(opp_seat, opp, settings, f"seat{i}-{opp.name}")
        seats.append(opp_seat)
        if not opp_seat.alive:
            report.results.append(CheckResult("games", False, f"opponent {opp.name} could not start: {opp_seat.dead_reason}"))
            return None
    return rivals


def _play_games(seats: list[Seat], settings: BotSettings, plan: _Plan, ev: Evidence) -> Played:
    """The seats rotate: the bot under test (the match's player 0) plays every seat, since a bot that
    breaks at another seat than the first passed a check played at seat 0 alone."""
    timeouts_seen, played = 0, 0

    def keep_going(record: GameRecord) -> bool:
        # A bot slower than the limit costs the whole limit at every request: a check of a bot
        # sleeping 2.5 s a move ran for six minutes, with nothing new to learn.
        nonlocal timeouts_seen, played
        played += 1
        mine_now = rotation(played, len(seats)).index(0)
        timeouts_seen += sum(f.kind is FaultKind.TIMEOUT for f in record.faults if f.seat == mine_now)
        return timeouts_seen < TIMEOUTS_ENOUGH

    match = play_match(seats, plan.rules, plan.seed, games=plan.games, limits=settings.limits, keep_going=keep_going,
                       rotate=True, first_number=plan.first_number, dealers_given=True)
    return Played(match=match, games=plan.games, opponents=plan.opponents, rule_words=plan.rule_words,
                  limits=settings.limits, bot=seats[0], ev=ev)


def _probe_rows(manifest: BotManifest, report: CheckReport, settings: BotSettings, plan: _Plan, ev: Evidence,
                rivals: list[BotManifest], bot: Seat, known: set[FaultKind]) -> None:
    """What the games alone would not show (arena/check/probes.py)."""
    check_quit(manifest, bot, report, ev, plan.quit_wait_s)
    if manifest.is_service:
        close_seat(bot)  # its conversation, still open, would otherwise take the misrouted answer
        report.results.append(CheckResult("conversations apart", *conversations_apart(manifest, settings)))
    else:
        report.results.append(later_protocol(manifest, rivals, settings, plan.rules, plan.seed + 1,
                                             plan.first_number + plan.games, known))


def _leftover_row(procs: list[Any]) -> CheckResult:
    """After close, the `members()` scan (session, group, descendants, ARENA_BOT_TOKEN) of each
    process the bot had must come back empty."""
    time.sleep(0.05)
    left = sorted({pid for proc in procs if proc is not None for pid in proc.members()})
    return CheckResult("no leftover processes", not left,
                       "nothing of the bot runs after close" if not left
                       else f"{len(left)} process(es) of the bot still running after close: {left[:10]}")


def _rules_words(options: Mapping[str, str]) -> str:
    return " under " + ", ".join(f"{k}={v}" for k, v in options.items()) if options else ""


def _process_of(seat: Seat) -> Any:
    """The bot's process record, through any wrapping transports (None for a running service)."""
    return seat.transport.process if seat.transport is not None else None
