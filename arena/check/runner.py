"""`arena bot check`: does a bot keep the contract of protocol.md? Pure logic, no printing.

The bot plays real games through the match layer (connect_bot, play_match, the referee) against the
bundled bots, with protocol lines logged to a temporary folder. Each check is a CheckResult with
evidence lines (the protocol lines around the problem, the tail of the bot's stderr) when it fails.

Checks, in order: manifest, build, handshake, games, legal moves, answers in time, well-formed lines,
stays up, exit on quit, no leftover processes, and for a running ZeroMQ service: conversations apart.
"""

from __future__ import annotations

import secrets
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from arena.check.evidence import Evidence, copy_logs
from arena.check.probes import check_quit, conversations_apart, later_protocol
from arena.check.verdicts import CheckReport, CheckResult, percentile
from arena.game import Rules, RulesError
from arena.play.isolation_mode import network_problem
from arena.play.match import rotation, allow_restarts, close_seat, play_match
from arena.play.records import FaultKind, TimeLimits
from arena.play.seat import Seat
from arena.play.startup import BotSettings, connect_bot, granted, refused_words
from arena.sandbox.folder_copy import copy_refused
from arena.sandbox.limits import LimitRefused
from arena.submission.prepared import prepare_bot
from arena.submission.lookup import load_manifest
from arena.submission.workspace import BUNDLED_BOTS_DIR
from arena.submission.manifest import BotManifest, ManifestError
from arena.submission.versions import content_hash
from arena.wording import count

DEFAULT_OPPONENTS = ("random_bot", "heuristic_bot")
DEFAULT_GAMES = 6
QUIT_WAIT_S = 1.0
# The check stops playing further games once the bot has this many timeouts: the row fails anyway.
TIMEOUTS_ENOUGH = 10
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
    seed = secrets.randbelow(2**62) if seed is None else seed
    table_size = 1 + len(opponents)
    rules = Rules.from_options({"num_players": str(table_size), **(rule_options or {})})
    if rules.num_players != table_size:
        raise RulesError(f"num_players={rules.num_players}: the check plays at a table of {table_size}, "
                         f"the bot and {', '.join(opponents)}")
    results: list[CheckResult] = []
    if isinstance(bot, BotManifest):
        manifest = bot
    else:
        try:
            manifest = load_manifest(bot, bots_dir)
        except ManifestError as exc:
            report = CheckReport(bot=str(bot), directory=None)
            report.results.append(CheckResult("manifest", False, str(exc)))
            return report
    report = CheckReport(bot=manifest.name, directory=manifest.directory, rule_options=dict(rule_options or {}))
    results = report.results
    try:
        report.version = content_hash(manifest)
        given = granted(manifest, BotSettings(sandbox_limits=sandbox_limits, grants=grants))
    except ManifestError as exc:  # a tournament would refuse this bot: say so here first
        results.append(CheckResult("manifest", False, str(exc)))
        return report
    except LimitRefused as exc:
        results.append(CheckResult("manifest", False, refused_words(manifest, exc)))
        return report
    refused = network_problem(manifest, given.limits)
    if refused:
        results.append(CheckResult("manifest", False, refused))
        return report
    results.append(CheckResult("manifest", True, f"{manifest.path} ({manifest.language or 'language ?'}, "
                                                 f"{manifest.transport})"))
    if build:
        # As a tournament runs it: its files copied into the build cache and built there, once
        # per version (arena/submission/prepared.py); the check plays that copy.
        try:
            prepared = prepare_bot(manifest, limits=given.limits)
        except ManifestError as exc:
            text = str(exc)
            results.append(CheckResult("build", False, text.splitlines()[0], tuple(text.splitlines()[1:])))
            report.seconds = time.monotonic() - started
            return report
        how = "built now" if prepared.built_now else "built before, from the build cache"
        built = f"{' '.join(manifest.build)} ({how})" if manifest.build else "nothing to build"
        report.version, report.build = prepared.version, prepared.build
        manifest = prepared.manifest
        # A writable folder is copied at each start under the bot's own limits: one that cannot
        # be is refused here, as at a run's start (every game of it would be charged).
        refused = copy_refused(manifest.directory, given.limits) if manifest.writable_folder else None
        results.append(CheckResult("build", refused is None, built if refused is None else f"{built}; but {refused}"))
        if refused is not None:
            report.seconds = time.monotonic() - started
            return report

    limits = TimeLimits(move_timeout_s=move_timeout_s, startup_timeout_s=startup_timeout_s)
    with tempfile.TemporaryDirectory(prefix="arena-check-") as tmp:
        log_dir = Path(tmp)
        settings = BotSettings(limits=limits, log_dir=log_dir, sandbox_limits=sandbox_limits, grants=grants)
        _run(manifest, report, settings, log_dir, games=games, opponents=opponents,
             opponents_dir=opponents_dir, quit_wait_s=quit_wait_s, seed=seed, rules=rules, first_number=first_number,
             rule_words=_rules_words(rule_options or {}))
        if keep_logs_in is not None:
            report.logs_kept = copy_logs(log_dir, Path(keep_logs_in))
    report.seconds = time.monotonic() - started
    return report


def _run(manifest: BotManifest, report: CheckReport, settings: BotSettings, log_dir: Path, *, games: int,
         opponents: Sequence[str], opponents_dir: Path | None, quit_wait_s: float, seed: int, rules: Rules,
         rule_words: str, first_number: int | None = None) -> None:
    results = report.results
    limits = settings.limits
    label = f"seat0-{manifest.name}"
    ev = Evidence(log_dir, label)
    seats: list[Seat] = []
    procs: list[Any] = []  # every process of the bot under test, restarts included
    try:
        t0 = time.monotonic()
        seat, hello_name = connect_bot(manifest, settings, label)
        startup_ms = (time.monotonic() - t0) * 1000.0
        seats.append(seat)
        procs.append(_process_of(seat))
        guard = getattr(seat.transport, "guard", None)
        if guard is not None:
            report.sandbox = guard.describe()
        limit_ms = limits.startup_timeout_s * 1000.0
        if not seat.alive:
            results.append(CheckResult("handshake", False, f"{seat.dead_reason} (after {startup_ms:.0f} ms)",
                                       ev.both()))
            results.append(CheckResult("games", False, "not played: the bot did not complete the handshake"))
            return
        ok = startup_ms <= limit_ms
        # Not a failure (a bot may call itself what it likes), but worth a word: standings,
        # logs and replays all use the manifest's name.
        other_name = f"; results use the manifest's name, {manifest.name}" if hello_name != manifest.name else ""
        results.append(CheckResult(
            "handshake", ok, f"hello name={hello_name} in {startup_ms:.0f} ms (limit {limit_ms:.0f} ms){other_name}",
            () if ok else ev.both()))
        # As in a match or a tournament, a bot lost in one game starts afresh for the next:
        # otherwise its later games were all the referee's moves, each charged as a loss of its own.
        def restarted(fresh: Seat) -> None:
            procs.append(_process_of(fresh))

        allow_restarts(seat, manifest, settings, label, on_start=restarted)

        rivals = [prepare_bot(load_manifest(name, opponents_dir or BUNDLED_BOTS_DIR)).manifest for name in opponents]
        for i, opp in enumerate(rivals, start=1):
            opp_seat, _ = connect_bot(opp, settings, f"seat{i}-{opp.name}")
            allow_restarts(opp_seat, opp, settings, f"seat{i}-{opp.name}")
            seats.append(opp_seat)
            if not opp_seat.alive:
                results.append(CheckResult("games", False, f"opponent {opp.name} could not start: {opp_seat.dead_reason}"))
                return

        timeouts_seen, played = [0], [0]

        def keep_going(record) -> bool:
            # A bot slower than the limit costs the whole limit at every request: a check of a
            # bot sleeping 2.5 s a move ran for six minutes, with nothing new to learn.
            played[0] += 1
            mine_now = rotation(played[0], len(seats)).index(0)
            timeouts_seen[0] += sum(f.kind is FaultKind.TIMEOUT for f in record.faults if f.seat == mine_now)
            return timeouts_seen[0] < TIMEOUTS_ENOUGH

        # The seats rotate: the bot under test (the match's player 0) plays every seat, since a bot
        # that breaks at another seat than the first passed a check played at seat 0 alone. The
        # games are numbered as a tournament's table may number them, never from 1 alone.
        first = 1 + games * secrets.randbelow(TABLES_NUMBERED) if first_number is None else first_number
        match = play_match(seats, rules, seed, games=games, limits=limits, keep_going=keep_going, rotate=True,
                           first_number=first)
        at = [seating.index(0) for seating in match.seatings]  # its seat in each game
        mine = [f for r, seat in zip(match.records, at) for f in r.faults if f.seat == seat]
        kinds = Counter(f.kind for f in mine)
        think = [t for r, seat in zip(match.records, at) for t in r.think_times_s[seat]]
        seats_played = sorted(set(at))
        decisions = len(think)

        def first_fault(wanted: set[FaultKind]):
            return next((f for f in mine if f.kind in wanted), None)

        def evidence_for(f) -> tuple[str, ...]:
            return ev.both("> fault ") if f is not None and f.kind is not FaultKind.DEAD else ev.both()

        summary = ", ".join(f"{k.value} x{n}" for k, n in kinds.items()) or "no faults"
        if len(match.records) < games:
            summary += (f" (stopped after {count(len(match.records), 'game')} of {games}: "
                        f"{TIMEOUTS_ENOUGH} timeouts or more say enough)")
        results.append(CheckResult(
            "games", not mine,
            f"{count(len(match.records), 'game')} vs {', '.join(opponents)}{rule_words} at "
            f"{_seats_words(seats_played)}; "
            f"{decisions} decisions answered; {summary}"))

        f = first_fault({FaultKind.ILLEGAL, FaultKind.STALE})
        # Answers that were moves of the bot's own: a bot whose every line was malformed made
        # no move to check, and must not read as one whose moves were all legal.
        own_moves = decisions - sum(kinds[k] for k in (FaultKind.MALFORMED, FaultKind.STALE, FaultKind.ILLEGAL))
        # Nothing answered at all: the rows about answers are not tested, rather than passed (an
        # author read "PASS legal moves" as the part that works, of a bot that never moved).
        unanswered = "not tested: no answer came from the bot (see the games row)"
        if not decisions:
            results.append(CheckResult("legal moves", True, unanswered, skipped=True))
        elif f is None and own_moves <= 0:
            results.append(CheckResult(
                "legal moves", False, "no answer was a well-formed move, so no move could be checked",
                evidence_for(first_fault({FaultKind.MALFORMED, FaultKind.OVERLONG}))))
        else:
            results.append(CheckResult(
                "legal moves", f is None,
                "every move was one of the legal moves" if f is None else f"{f.kind.value}: {f.detail}",
                () if f is None else evidence_for(f)))

        # A timed-out request took at least the limit: left out, a bot that always took longer
        # than the limit showed the quick replies to the requests after each timeout (p50 445 ms
        # for a bot that slept 2.5 s a move).
        timed = think + [limits.move_timeout_s] * kinds[FaultKind.TIMEOUT]
        p50, p99 = percentile(timed, 50) * 1000.0, percentile(timed, 99) * 1000.0
        report.think_ms = (p50, p99)
        move_ms = limits.move_timeout_s * 1000.0
        f = first_fault({FaultKind.TIMEOUT})
        in_time = f is None and p99 <= move_ms
        detail = f"think time p50 {p50:.1f} ms, p99 {p99:.1f} ms (limit {move_ms:.0f} ms"
        detail += ", timeouts counted at the limit)" if f is not None else ")"
        if f is not None:
            detail += f"; {kinds[FaultKind.TIMEOUT]} timeout(s): {f.detail}"
            if not decisions:  # its hello came (the handshake passed), and then nothing at all
                detail += ("; no request got any answer, though the hello came: is stdout flushed after "
                           "every line, not only after hello?")
        if f is None and not decisions:
            results.append(CheckResult("answers in time", True, unanswered, skipped=True))
        else:
            results.append(CheckResult("answers in time", in_time, detail, () if in_time else evidence_for(f)))

        f = first_fault({FaultKind.MALFORMED, FaultKind.OVERLONG})
        if f is None and not decisions:
            results.append(CheckResult("well-formed lines", True, unanswered, skipped=True))
        else:
            results.append(CheckResult(
                "well-formed lines", f is None,
                "every line the bot sent was a well-formed protocol line" if f is None else f"{f.kind.value}: {f.detail}",
                () if f is None else evidence_for(f)))

        f = first_fault({FaultKind.EXITED, FaultKind.DEAD})
        afresh = f", then started afresh {count(seats[0].restarts, 'time')} for later games" if seats[0].restarts else ""
        results.append(CheckResult(
            "stays up", f is None and seats[0].alive,
            "the bot played every game to the end" if f is None and seats[0].alive
            else f"lost during the games: {f.detail if f else seats[0].dead_reason}{afresh}",
            () if f is None and seats[0].alive else ev.both()))

        check_quit(manifest, seats[0], report, ev, quit_wait_s)
        if not manifest.is_service:  # a service's conversations are the next row's
            results.append(later_protocol(manifest, rivals, settings, rules, seed + 1, first + games, set(kinds)))
        if manifest.is_service:
            close_seat(seats[0])  # its conversation, still open, would otherwise take the misrouted answer
            results.append(CheckResult("conversations apart", *conversations_apart(manifest, settings)))
    finally:
        # After close, the `members()` scan (session, group, descendants, ARENA_BOT_TOKEN) of each
        # process the bot had must come back empty.
        for s in seats:
            close_seat(s)
        if seats and not manifest.is_service and any(r.name == "handshake" for r in results):
            time.sleep(0.05)
            left = sorted({pid for proc in procs if proc is not None for pid in proc.members()})
            results.append(CheckResult(
                "no leftover processes", not left,
                "nothing of the bot runs after close" if not left
                else f"{len(left)} process(es) of the bot still running after close: {left[:10]}"))


def _seats_words(seats: list[int]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"


def _rules_words(options: Mapping[str, str]) -> str:
    return " under " + ", ".join(f"{k}={v}" for k, v in options.items()) if options else ""


def _process_of(seat: Seat) -> Any:
    """The bot's process record, through any wrapping transports (None for a running service)."""
    return seat.transport.process if seat.transport is not None else None
