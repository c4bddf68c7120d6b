"""A run of a tournament (`arena tournament run`), from its config to its last stored game: the
options checked against the config, the bots prepared (what each asks checked against what the
organiser grants, its copy built once per version), the results opened, locked and reconciled
with a changed config or resubmitted bots, the tables played locally or on a cluster, and
everything closed. The CLI words what this decides (arena/cli/tournament.py): every refusal is an
ArenaError with its sentence, and what a run says along the way goes through `say` and `note`.

    with TournamentSession(config_path, RunOptions(...), say=print, note=print) as session:
        outcome = session.play(on_progress)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from arena.errors import ArenaError
from arena.play.protocol_log import usable_log_folder
from arena.play.ready import ready_bot
from arena.play.startup import BotSettings
from arena.results.rows import StoreError
from arena.results.sprt import SprtState
from arena.results.store import ResultStore
from arena.sandbox.isolation import Isolation, find_isolation, seen_by_bots
from arena.submission.manifest import BotManifest
from arena.submission.prepared import PreparedBot
from arena.tournament.config import CLUSTER_ADDRESS, MAX_WORKERS, TournamentConfig
from arena.tournament.local_pool import WorkerDied
from arena.tournament.opening import Note, load_tournament, open_results, own_file
from arena.tournament.output_files import refuse_unwritable
from arena.tournament.pool import Pool
from arena.tournament.results import TournamentResults
from arena.tournament.run_plan import RunPlan, build_schedule, run_record
from arena.tournament.runner import (Progress, RunSummary, builds_changed, describe_schedule, limits_changed,
                                     run_tournament)
from arena.wording import count
from arena.wording import shell_command as command

if TYPE_CHECKING:  # its module is imported only by a cluster's run (it needs Dask's)
    from arena.tournament.cluster_pool import ClusterPool


@dataclass(frozen=True)
class RunOptions:
    """What the organiser's command line adds to the config."""

    workers: int | None = None
    log_dir: Path | None = None
    update: bool = False  # take resubmitted and withdrawn bots
    cluster: str | None = None  # --cluster: a Dask scheduler's address, over the config's
    html_page: Path | None = None  # a live standings page
    replay_faults: tuple[str, ...] = ()  # --replay-faults: stored games with these fault kinds are voided, played again
    unchecked: bool = False  # --unchecked: versions that have not passed their check here play all the same
    until_s: float | None = None  # a league: stop choosing tables after this long (--until)
    games: int | None = None  # a league: stop choosing tables once this many games were handed out (--games)

    def next_part(self, played: int, spent_s: float) -> RunOptions:
        """The options for a league's next part, once it took a change: --games less what was played,
        --until less the time spent (both count from the command's start), --replay-faults done."""
        from dataclasses import replace

        return replace(self, replay_faults=(), games=None if self.games is None else max(1, self.games - played),
                       until_s=None if self.until_s is None else max(1.0, self.until_s - spent_s))


@dataclass(frozen=True)
class RunOutcome:
    summary: RunSummary
    test: SprtState | None  # an SPRT run's decision
    league: str = ""  # a league run: why it stopped choosing tables
    reopen: bool = False  # a league run that stopped for a change it takes: open it again and go on


class RunStopped(ArenaError):
    """The run ended before its last game (a full disk, a lost worker or scheduler): what is
    stored is kept, and the same command resumes."""

    exit_code = 1


@dataclass
class TournamentSession:
    config_path: Path
    options: RunOptions = field(default_factory=RunOptions)
    say: Callable[[str], None] = lambda line: None  # the run's own lines: isolation, grants, schedule
    note: Note = lambda line: None  # what it notes of the stored results and the config

    def __post_init__(self) -> None:
        self.store: ResultStore | None = None
        self.pool: Pool | None = None  # a cluster's, connected at opening; None: the plan's local workers
        self.prepared: dict[str, PreparedBot] = {}
        self.sources: dict[str, BotManifest] = {}  # the bots as found, in their own folders
        self.config: TournamentConfig  # set by open(), first of all
        self.isolation: Isolation  # found once, by open(): the plan hands it down
        self.plan: RunPlan  # the run as open() decided it, handed to the runner and the pools
        self.address = ""  # a Dask scheduler's, when the tables are played on a cluster
        self._stored_when_closed: int | None = None
        self.failed_starts: str | None = None  # start_failure_words, once played

    # ---------------------------------------------------------------- opening

    def __enter__(self) -> TournamentSession:
        try:
            self.open()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        """Everything before the first game, ending in the run's plan; an ArenaError for what
        refuses the run."""
        options = self.options
        if options.workers is not None and options.workers > MAX_WORKERS:
            raise ArenaError(f"--workers {options.workers}: expected a whole number from 1 to {MAX_WORKERS}")
        self.config, self.sources = load_tournament(self.config_path)
        if options.cluster is not None and not CLUSTER_ADDRESS.match(options.cluster):
            raise ArenaError(f"--cluster {options.cluster}: expected a Dask scheduler's address, e.g. tcp://scheduler:8786")
        self.address = options.cluster or self.config.cluster
        self._refuse_options()
        self.isolation = self._find_isolation()
        self._refuse_what_bots_see()
        if not self.address:  # the run's first line: what the bots can see here, as every game records it
            self.say(f"isolation: {self.isolation.summary()}")
        if "seed" not in self.config.raw:
            self.note(f"{self.config.path} gives no seed, so the deals use seed 1, which any bot author can know: a "
                      "bot that knows the seed can deal every hand itself. Set a seed of your own (before the first "
                      "game: a changed seed is refused) and keep it to yourself until the tournament is over.")
        self._prepare_bots()
        self.plan = self._plan()
        described = describe_schedule(self.config, self.plan.tables)
        if described:
            self.say(described)

    def _find_isolation(self) -> Isolation:
        """The isolation the bots get here: probed once, for the whole run."""
        config = self.config
        isolation = find_isolation(config.isolation)
        if config.isolation == "required" and not isolation.active and not self.address:  # a cluster's: checked there
            raise ArenaError(f"{config.path}: key 'isolation': required, but there is none here: {isolation.why_not}. "
                             "To run every bot with what the arena's "
                             f"user can read instead, set isolation = \"auto\" in {config.path} (docs/sandbox.md)")
        return isolation

    def _plan(self) -> RunPlan:
        """The pool picked (a cluster's connected), the results opened and reconciled, the run's
        record made (and what changed since the last stored game noted), the schedule built."""
        versions = {name: bot.version for name, bot in self.prepared.items()}
        builds = {name: bot.build for name, bot in self.prepared.items()}
        cluster = None
        if self.address:
            self.pool = cluster = self._cluster_pool(versions)
            self.say(f"{cluster.describe()}; each game records the machine and the isolation it was played with")
            manifests = self.sources  # a cluster's workers prepare their own copies, from the bots' files
        else:
            manifests = {name: bot.manifest for name, bot in self.prepared.items()}
        self.store, self.config = open_results(self.config, manifests, versions, create=True,
                                               update=self.options.update, note=self.note,
                                               files={name: bot.files for name, bot in self.prepared.items()})
        if self.config.kind.open_ended:
            from arena.tournament.league_final import begin_final

            begin_final(self.store, self.config, self.say)  # a frozen league's final round robin, laid out once
        record = run_record(self.config, manifests, versions, self.isolation, builds)
        self._note_changes(self.store.last_extra(), record)
        if self.options.replay_faults:
            self._void_on_request(self.options.replay_faults)
        tables = build_schedule(self.config)
        plan = RunPlan(self.config, manifests, self.isolation, record, tuple(tables), versions, builds,
                       self.options.workers, self.options.log_dir, self.address)
        if cluster is not None:
            cluster.follow(plan)
        return plan

    def _note_changes(self, last: dict | None, now: dict) -> None:
        """What differs from the last stored game's record: limits, isolation, builds."""
        changes = limits_changed(last, now)
        if changes:
            self.note(f"limits changed since the last stored game: {'; '.join(changes)}. Stored games keep the "
                      "limits they were played with (each game records its own).")
        for line in builds_changed(last, now):
            self.note(line)

    def _void_on_request(self, kinds: tuple[str, ...]) -> None:
        """--replay-faults: stored games with a fault of these kinds (a bot that could not start,
        in a run of an arena that did not know void games) leave the results and are played again."""
        from arena.results.voids import void_on_request

        assert self.store is not None
        asked = f"--replay-faults {','.join(kinds)}"
        moved = void_on_request(self.store, kinds, asked)
        self.say(f"{asked}: {count(moved, 'stored game')} with such a fault voided: kept apart (arena games "
                 f"{command(self.config_path)} --void), out of the standings, and played again now with the same cards")

    def _refuse_options(self) -> None:
        """Options that cannot go together with the config or with each other; the --log folder
        made, where it will be written, before any bot starts."""
        from arena.play.records import FaultKind, NOT_COUNTED_FAULTS

        config, options = self.config, self.options
        if not config.kind.open_ended:
            given = "--until" if options.until_s is not None else "--games" if options.games is not None else None
            if given:
                raise ArenaError(f"{given}: only a league (schedule = \"league\") plays until stopped; "
                                 f"{config.path} is {config.kind.words}, which ends with its last game")
        allowed = [kind.value for kind in FaultKind if kind.value not in NOT_COUNTED_FAULTS]
        unknown = [kind for kind in options.replay_faults if kind not in allowed]
        if unknown:  # before the run's first line: a refused option says so alone
            raise ArenaError(f"--replay-faults {unknown[0]}: not a fault kind; give one of {', '.join(allowed)} "
                             "(protocol.md section 9)")
        if options.html_page is not None:
            own = own_file(options.html_page, config)
            if own is not None:
                raise ArenaError(f"--html {options.html_page} is this tournament's own {own}; write the report to "
                                 "another file")
            if not options.html_page.parent.is_dir():
                raise ArenaError(f"--html {options.html_page}: there is no folder {options.html_page.parent}")
            refuse_unwritable(options.html_page, "--html")
        if not self.address:
            if options.log_dir is not None:
                usable_log_folder(options.log_dir)
            return
        if config.sprt:
            raise ArenaError(f"{config.path}: key 'stop': an SPRT run plays its deals in waves on this machine's "
                             "workers; drop --cluster (or the config's `cluster`) for it")
        instead = ("drop --cluster to play locally" if options.cluster else
                   "drop the config's `cluster` to play locally")
        if options.workers is not None:
            raise ArenaError(f"--workers {options.workers}: a cluster run plays one table at a time on each of the "
                             f"cluster's worker threads (`dask worker ... --nworkers N --nthreads 1`); drop --workers, "
                             f"or {instead}")
        if options.log_dir is not None:
            # The logs would be written on the workers' machines, in a folder of this one's name.
            raise ArenaError(f"--log {options.log_dir}: a cluster run keeps no protocol or stderr logs (its bots run "
                             f"on the workers' machines); drop --log, or {instead}")

    def _refuse_what_bots_see(self) -> None:
        """A tournament's results, config, logs or live page inside a folder every sandbox binds
        (the arena's venv, /usr) would be read by every bot: a hostile bot listed the results and
        config of a workspace made inside the venv."""
        for what, path in (("its config", self.config.path), ("its results", self.config.database),
                           ("--log", self.options.log_dir), ("--html", self.options.html_page)):
            folder = seen_by_bots(path) if path is not None else None
            if folder is not None:
                raise ArenaError(f"{path}: {what} lies in {folder}, which every bot's sandbox can read (the system's "
                                 "files and the arena's own Python are bound into each); move the tournament's folder "
                                 "out of it (docs/sandbox.md)")

    def _prepare_bots(self) -> None:
        """Each bot's ask checked against the grants, then its copy built (once per version); the
        run says what was granted beyond the defaults, and which bots were built now."""
        settings = BotSettings(sandbox_limits=self.config.sandbox or None, grants=self.config.grants)
        for name, manifest in self.sources.items():
            self.prepared[name], given = ready_bot(manifest, settings, self.isolation, self.config.path)
            if given.beyond_defaults and not manifest.is_service:
                self.say(f"granted to {name}: {', '.join(given.beyond_defaults)}")
        for name, bot in self.prepared.items():
            if bot.built_now and bot.source.build:
                self.say(f"built {name} version {bot.version} (kept for every later run in the build cache)")
        self._admit_checked()

    def _admit_checked(self) -> None:
        """A version that has not passed `arena bot check` here does not play, unless the organiser
        lets it in (--unchecked, or [grant.NAME] unchecked = true); the run says whom it let in."""
        from arena.check.admission import refusal

        refused = []
        for name, bot in self.prepared.items():
            found = refusal(bot)
            if found is None:
                continue
            if self.options.unchecked or (self.config.grants.get(name) or {}).get("unchecked"):
                how = "--unchecked" if self.options.unchecked else f"[grant.{name}] unchecked = true"
                self.say(f"let in unchecked by {how}: {name} version {found.version} {found.why}")
            else:
                refused.append(found)
        if refused:
            lines = [f"{r.bot} version {r.version} {r.why}: check it with "
                     f"{command('arena', 'bot', 'check', self.sources[r.bot].directory)}" for r in refused]
            raise ArenaError("; ".join(lines) + ". A version plays only once it passed its check on this machine; to "
                             f"let one in all the same, add [grant.NAME] unchecked = true to {self.config.path} "
                             "(that bot, every run) or run with --unchecked (every bot, this run)")

    def _cluster_pool(self, versions: dict[str, str]) -> ClusterPool:
        """The Dask cluster's pool, connected and its workers checked (ClusterError: its sentence)."""
        from arena.tournament.cluster_pool import ClusterPool

        from arena.tournament.cluster_exposure import exposure_warnings

        pool = ClusterPool(self.address, self.sources, self.config, versions)
        try:
            pool.start()
            for line in exposure_warnings(self.address, pool.client.scheduler_info()):
                self.note(line)
        except BaseException:
            pool.stop()
            raise
        return pool

    # ---------------------------------------------------------------- playing

    def results(self) -> TournamentResults:
        """The run's results to read while it goes on (its live board and page): on its own store."""
        assert self.store is not None  # open()
        return TournamentResults.on_store(self.store, self.config)

    def play(self, on_progress: Callable[[Progress], None] | None = None) -> RunOutcome:
        """Play what is not stored yet. RunStopped when the run cannot go on (what is stored stays);
        a Ctrl-C (KeyboardInterrupt) or SIGTERM (SystemExit) passes through, every bot stopped."""
        from arena.tournament.cluster_pool import ClusterError

        assert self.store is not None
        test = None
        try:
            if self.config.kind.open_ended:
                return self._play_league(on_progress)
            if self.config.sprt:
                from arena.tournament.early_stop import run_until_decided

                summary, test = run_until_decided(self.plan, self.store, on_progress=on_progress, on_note=self.note)
            else:
                summary = run_tournament(self.plan, self.store, pool=self.pool, on_progress=on_progress,
                                         on_note=self.note)
        except (StoreError, WorkerDied, ClusterError) as exc:  # a full disk, a killed worker, a lost scheduler
            raise RunStopped(f"{exc}. Stopped with {self.kept_words(short=True)}; every bot was stopped. "
                             f"Resume with: {self.resume_command()}") from None
        return RunOutcome(summary, test)

    def _play_league(self, on_progress: Callable[[Progress], None] | None) -> RunOutcome:
        """A league's run (tournament/league_run.py), watching for bots, versions and a freeze to take."""
        from arena.tournament.league_run import LeagueLimits, run_league
        from arena.tournament.league_watch import LeagueWatch

        assert self.store is not None
        options = self.options
        def ready(config: TournamentConfig, manifest: BotManifest) -> object:
            return ready_bot(manifest, BotSettings(sandbox_limits=config.sandbox or None, grants=config.grants),
                             self.isolation, config.path)

        watch = LeagueWatch(self.config, self.plan.versions, update=options.update, unchecked=options.unchecked,
                            note=self.note, ready=ready)
        summary, why = run_league(self.plan, self.store, pool=self.pool, limits=LeagueLimits(options.until_s, options.games),
                                  watch=watch, on_progress=on_progress, on_note=self.note)
        return RunOutcome(summary, None, league=why, reopen=watch.taken is not None)

    def start_failures(self) -> list[tuple[str, int, str]]:
        """(bot, games, why) of the bots that never played in some games of the tournament."""
        assert self.store is not None
        return list(self.store.start_failures())

    def kept_words(self, short: bool = False) -> str:
        """What is stored, for a stopped run's last words: the count, unless the file cannot say it."""
        stored = self._stored_games()
        if stored is None:
            return "the stored games are kept"
        if short:
            return f"{count(stored, 'game')} stored and kept"
        return f"{count(stored, 'game')} {'is' if stored == 1 else 'are'} stored and kept"

    def resume_command(self) -> str:
        """The command that resumes this run, with the options it was started with that shape how it
        goes on (--workers, --log, --html, --cluster); not --update or --replay-faults, which this
        run has carried out already."""
        options, again = self.options, []
        for option, value in (("--workers", options.workers), ("--log", options.log_dir),
                              ("--html", options.html_page), ("--cluster", options.cluster)):
            if value is not None:
                again += [option, value]
        return command("arena", "tournament", "run", self.config_path, *again)

    def check_command(self, bot: str) -> str:
        """How to check a bot that could not start: by its own folder, never its prepared copy."""
        manifest = self.sources.get(bot)
        return command("arena", "bot", "check", manifest.directory if manifest is not None else bot)

    def _stored_games(self) -> int | None:
        # The file found damaged in the middle of the run: the words must come out all the same.
        if self.store is None:
            return self._stored_when_closed
        try:
            return self.store.game_count()
        except StoreError:
            return None

    def close(self) -> None:
        """Stop the cluster's client, close the results; idempotent."""
        if self.pool is not None:
            self.pool.stop()
            self.pool = None
        if self.store is not None:
            self._stored_when_closed = self._stored_games()  # for the last words of a run stopped now
            self.store.close()
            self.store = None


__all__ = ["RunOptions", "RunOutcome", "RunStopped", "TournamentSession"]
