"""CLI commands for tournaments: `tournament new` and `tournament run` (reports: arena/cli/reports.py,
`games`: arena/cli/games.py)."""

from __future__ import annotations

import secrets

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from arena.cli.common import (MoveTimeout, StartupTimeout, UsageError, command, console, err_console, fail,
                               ignore_interrupts, parse_rule_options, prepare_or_fail, stop_on_sigterm, usable_log_dir)
from arena.cli.open_tournament import open_store, prepare
from arena.cli.reports import refuse_own_file
from arena.wording import count

tournament_app = typer.Typer(help="Create and run tournaments: round robin, balanced or gauntlet.", no_args_is_help=True)

def register(app: typer.Typer) -> None:
    app.add_typer(tournament_app, name="tournament")


def _config_path(given: Path) -> Path:
    """A bare name (`mine`: no folder, no suffix) means the workspace's tournaments/mine.toml; a
    file name or path (`mine.toml`, `tournaments/mine.toml`) is written where it says."""
    from arena.submission.workspace import TOURNAMENTS, workspace_or_here

    if len(given.parts) != 1 or given.suffix or given.name in (".", ".."):
        return given
    return workspace_or_here() / TOURNAMENTS / (given.name + ".toml")


@tournament_app.command("new")
def new(
    path: Annotated[Path, typer.Argument(help="Where to write the config: a path (tournaments/mine.toml), or a bare name (mine) for the workspace's tournaments/mine.toml.")],
    bots: Annotated[list[str], typer.Option("--bot", "-b", help="A bot name or manifest path (repeat for each entry).")],
    name: Annotated[Optional[str], typer.Option(help="Tournament name (default: the file's name).")] = None,
    seed: Annotated[Optional[int], typer.Option(
        help="Tournament seed (default: a random one, written in the config). The deals follow from it and the "
        "bots' names: keep it from the bot authors until the tournament is over.")] = None,
    table_size: Annotated[int, typer.Option(min=2, max=5, help="Bots per table.")] = 3,
    deals: Annotated[int, typer.Option(min=1, help="Deals per table, each played in every seating.")] = 2,
    rule: Annotated[Optional[list[str]], typer.Option("--rule", "-r", help="Rule option OPTION=VALUE (repeatable).")] = None,
    workers: Annotated[Optional[int], typer.Option(min=1, help="Worker processes (default: the number of cores).")] = None,
    schedule: Annotated[Optional[str], typer.Option(
        help="round_robin (every combination of bots), balanced (--tables N tables in which every pair "
             "meets equally often) or gauntlet (the first --challengers N bots each meet every combination "
             "of the others). Default: balanced if --tables is given, gauntlet if --challengers is, "
             "else round_robin.")] = None,
    tables: Annotated[Optional[int], typer.Option(help="Tables of a balanced schedule.")] = None,
    challengers: Annotated[Optional[int], typer.Option(
        help="How many of the first --bot entries challenge the others (gauntlet; default 1).")] = None,
    database: Annotated[Optional[Path], typer.Option(
        help="The SQLite results file (default: beside the config, named after it).")] = None,
    move_timeout: MoveTimeout = 2.0,
    startup_timeout: StartupTimeout = 10.0,
    isolation: Annotated[str, typer.Option(
        help="required (the default: other people's bots each see only their own folder, and the run is refused "
             "without bubblewrap), auto (isolated where bubblewrap works, else not) or off. See arena docs sandbox.")]
        = "required",
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write a tournament config from options."""
    from arena.game import GameError, Rules
    from arena.tournament.config import ConfigError
    from arena.tournament.config_write import write_config

    path = _config_path(path)
    if path.exists() and not force:
        fail(f"{path} exists; use --force to overwrite it")
    try:
        options = parse_rule_options(rule)
        if options.get("num_players", str(table_size)) != str(table_size):
            raise UsageError(f"--rule num_players={options['num_players']} does not match --table-size {table_size}")
        options["num_players"] = str(table_size)
        rules = Rules.from_options(options).changed_options()  # validated, with native TOML types
        rules.pop("num_players", None)
        if schedule is None:
            if tables is not None and challengers is not None:
                raise UsageError("--tables makes a balanced schedule and --challengers a gauntlet: give one of them")
            schedule = "balanced" if tables is not None else "gauntlet" if challengers is not None else "round_robin"
        if seed is None:  # a bot that knows the seed can deal every hand itself (a hostile trial did)
            seed = secrets.randbelow(2**31)
        write_config(path, name=name or path.stem, bots=list(bots), seed=seed, table_size=table_size, deals=deals,
                     rules=rules, workers=workers, move_timeout_s=move_timeout, startup_timeout_s=startup_timeout,
                     schedule=schedule, tables=tables, challengers=challengers, database=database,
                     isolation=isolation)
    except ConfigError as exc:
        fail(_in_option_terms(str(exc), path))
    except (UsageError, GameError) as exc:
        fail(str(exc))
    console.print(f"wrote {escape(str(path))}; run it with: {escape(command('arena', 'tournament', 'run', path))}", highlight=False)


# `tournament new` checks what it would write as a config would be checked; its user gave
# options, not keys of a file that does not exist yet.
_OPTION_OF_KEY = {"bots": "--bot", "deals": "--deals", "table_size": "--table-size", "seed": "--seed",
                  "name": "--name", "workers": "--workers", "limits.move_timeout_s": "--move-timeout",
                  "limits.startup_timeout_s": "--startup-timeout", "rules": "--rule", "schedule": "--schedule",
                  "tables": "--tables", "challengers": "--challengers", "database": "--database",
                  "isolation": "--isolation"}


def _in_option_terms(message: str, path: Path) -> str:
    for key, option in _OPTION_OF_KEY.items():
        if f"key {key!r}" in message:
            message = message.replace(f"{path}: ", "", 1).replace(f"key {key!r}", option)
        message = message.replace(f"({key})", f"({option})")
    return message


def _cluster_pool(address: str, manifests, config, versions):
    """The Dask cluster's pool, connected and its workers checked, or a clean error."""
    from arena.tournament.cluster_pool import ClusterError, ClusterPool

    pool = ClusterPool(address, manifests, config, versions)
    try:
        pool.start()
    except ClusterError as exc:
        pool.stop()
        fail(str(exc), code=1)
    return pool


@tournament_app.command("run")
def run(
    config_path: Annotated[Path, typer.Argument(metavar="CONFIG", help="The tournament config (TOML).")],
    workers: Annotated[Optional[int], typer.Option(min=1, help="Worker processes (default: the config's, else the cores).")] = None,
    log: Annotated[Optional[Path], typer.Option(help="Directory for protocol lines and bot stderr, per table.")] = None,
    update: Annotated[bool, typer.Option(
        "--update", help="Take resubmitted bots (their files changed) and bots taken out of the config: their "
                         "stored games are kept out of the standings, and a changed bot's tables are played "
                         "again with the same cards.")] = False,
    cluster: Annotated[Optional[str], typer.Option(
        "--cluster", help="Play the tables on the Dask cluster whose scheduler is at this address "
                          "(tcp://SCHEDULER:8786; default: the config's `cluster`, else this machine's cores).")] = None,
    html_page: Annotated[Optional[Path], typer.Option(
        "--html", metavar="FILE", help="Keep a standings page at this HTML file up to date while the run goes on "
                                       "(it reloads itself in a browser; no server needed), the final report at the end.")] = None,
) -> None:
    """Run (or resume) a tournament: plays only the games not yet stored."""
    from arena.play.startup import BotSettings
    from arena.report.live import LiveBoard
    from arena.results.rows import StoreError
    from arena.sandbox.isolation import find_isolation
    from arena.tournament.runner import build_schedule, describe_balance, describe_gauntlet, run_tournament
    from arena.tournament.early_stop import run_until_decided, sprt_state
    from arena.tournament.config import MAX_WORKERS
    from arena.tournament.local_pool import WorkerDied
    from arena.tournament.cluster_pool import ClusterError
    from arena.tournament.config import CLUSTER_ADDRESS

    if workers is not None and workers > MAX_WORKERS:  # the config's own bound (checked here: a lazy import)
        fail(f"--workers {workers}: expected a whole number from 1 to {MAX_WORKERS}")
    config, manifests = prepare(config_path)
    if cluster is not None and not CLUSTER_ADDRESS.match(cluster):
        fail(f"--cluster {cluster}: expected a Dask scheduler's address, e.g. tcp://scheduler:8786")
    address = cluster or config.cluster
    again = ("--cluster", cluster) if cluster else ()  # what the resume hints repeat
    if html_page is not None:
        refuse_own_file(html_page, config, "--html")
        if not html_page.parent.is_dir():
            fail(f"--html {html_page}: there is no folder {html_page.parent}")
    log = usable_log_dir(log) if not address else log  # made only where it will be written (refused below)
    isolation = find_isolation(config.isolation)
    if config.isolation == "required" and not isolation.active and not address:  # a cluster's workers: checked there
        fail(f"{config.path}: key 'isolation': required, but there is none here: {isolation.why_not}. Install it "
             "with: apt-get install bubblewrap; or, to run every bot with what the arena's user can read, set "
             f"isolation = \"auto\" in {config.path} (docs/sandbox.md)")
    _refuse_what_bots_see(config, log, html_page)
    if address and config.sprt:
        fail(f"{config.path}: key 'stop': an SPRT run plays its deals in waves on this machine's workers; "
             "drop --cluster (or the config's `cluster`) for it")
    local_instead = "drop --cluster to play locally" if cluster else "drop the config's `cluster` to play locally"
    if address and workers is not None:
        fail(f"--workers {workers}: a cluster run plays one table at a time on each of the cluster's worker threads "
             f"(`dask worker ... --nworkers N --nthreads 1`); drop --workers, or {local_instead}")
    if address and log is not None:
        # The logs would be written on the workers' machines, in a folder of this one's name.
        fail(f"--log {log}: a cluster run keeps no protocol or stderr logs (its bots run on the workers' machines); "
             f"drop --log, or {local_instead}")
    if not address:  # the run's first line: what the bots can see here (docs/sandbox.md), as every game records it
        console.print(escape(f"isolation: {isolation.summary()}"), highlight=False)
    if "seed" not in config.raw:
        console.print(f"[yellow]note[/yellow]: {escape(str(config.path))} gives no seed, so the deals use seed 1, which "
                      "any bot author can know: a bot that knows the seed can deal every hand itself. Set a seed of "
                      "your own (before the first game: a changed seed is refused) and keep it to yourself until "
                      "the tournament is over.", highlight=False)
    stop_on_sigterm()  # before the builds: a SIGTERM during one still ends it and what it started
    settings = BotSettings(sandbox_limits=config.sandbox or None, grants=config.grants)
    prepared = {name: prepare_or_fail(m, settings, isolation, config.path) for name, m in manifests.items()}
    _say_grants(manifests, settings, prepared)
    versions = {name: bot.version for name, bot in prepared.items()}
    builds = {name: bot.build for name, bot in prepared.items()}
    sources = manifests  # the bots' own folders, for what the run's messages suggest
    pool = _cluster_pool(address, manifests, config, versions) if address else None
    if pool is not None:  # where the tables are played, and what the bots can see on each machine
        console.print(escape(f"{pool.describe()}; each game records the machine and the isolation it was "
                             "played with"), highlight=False)
    else:  # a cluster's workers prepare their own copies, from the bots' files
        manifests = {name: bot.manifest for name, bot in prepared.items()}
    store, config = open_store(config, manifests, versions, create=True, update=update,
                               files={name: bot.files for name, bot in prepared.items()})
    try:  # from here the store is open (its deals perhaps changed): a Ctrl-C gets the stop message
        _note_changed_limits(store, config, manifests, versions)
        tables = build_schedule(config)
        if config.schedule == "balanced":
            console.print(f"balanced schedule: {describe_balance(tables, config.playing)}", highlight=False)
        elif config.schedule == "gauntlet":
            console.print(escape(f"gauntlet: {describe_gauntlet(config, tables)}"), highlight=False)
        test = None
        status = (lambda: sprt_state(store, config, tables)) if config.sprt else None
        page = _LivePage(html_page, store, config) if html_page is not None else None
        with LiveBoard(config, store, console, test_status=status, on_refresh=page) as board:
            if config.sprt:
                summary, test = run_until_decided(config, manifests, store, tables=tables, on_progress=board.update,
                                                  workers=workers, log_dir=log, versions=versions, builds=builds)
            else:
                summary = run_tournament(config, manifests, store, workers=workers, on_progress=board.update,
                                         log_dir=log, versions=versions, tables=tables, pool=pool, builds=builds)
            ignore_interrupts()  # every game is stored and every bot stopped: only the summary is left
    except (KeyboardInterrupt, SystemExit) as exc:
        ignore_interrupts()  # a second Ctrl-C cut the message on how to resume
        stored = _stored_games(store)
        store.close()
        console.print()
        kept = ("the stored games are kept" if stored is None
                else f"{count(stored, 'game')} {'is' if stored == 1 else 'are'} stored and kept")
        console.print(f"[yellow]stopped[/yellow]: {kept}; every bot was stopped.")
        console.print(f"resume with: {escape(command('arena', 'tournament', 'run', config_path, *again))}", highlight=False)
        raise SystemExit(130 if isinstance(exc, KeyboardInterrupt) else exc.code)
    except (StoreError, WorkerDied, ClusterError) as exc:  # a full disk, a killed worker, a lost scheduler: what is stored stays
        stored = _stored_games(store)
        store.close()
        console.print()  # past the live board's last line
        kept = "the stored games are kept" if stored is None else f"{count(stored, 'game')} stored and kept"
        fail(f"{exc}. Stopped with {kept}; every bot was stopped. "
             f"Resume with: {command('arena', 'tournament', 'run', config_path, *again)}", code=1)
    start_failures = store.start_failures()
    store.close()
    console.print()  # past the live board's last line
    if test is not None:
        console.print(escape(f"Early stopping (SPRT): {test.sentence()}"), highlight=False)
    elif summary.played == 0:
        console.print(f"nothing to play: all {count(summary.total, 'game')} "
                      f"{'is' if summary.total == 1 else 'are'} already stored")
    stored_now = summary.already_done + summary.played
    console.print(f"done: {count(stored_now, 'game')} stored ({summary.played} played now). "
                  f"Report: {escape(command('arena', 'standings', config_path))} --format html -o standings.html", highlight=False)
    if start_failures:
        # The results stand (each such game is a recorded fault), but a bot that never played is
        # a setup problem a script must be able to see, as with `arena play`.
        fail("\n".join(f"{bot} could not start in {count(games, 'game')} ({reason.removeprefix('out of this game: ')}), "
                        f"so its moves there were the referee's. Check it with: {_check_command(sources, bot)}"
                        for bot, games, reason in start_failures), code=1)


class _LivePage:
    """The --html page: rewritten whole at most every LIVE_PAGE_EVERY_S while the run goes on
    (reloading itself as often), and once more, final, at the end. A page that cannot be written
    mid-run is said once and left: the run and its results come first."""

    def __init__(self, path: Path, store, config) -> None:
        self.path, self.store, self.config = path, store, config
        self.written_at = 0.0
        self.broken = False

    def __call__(self, final: bool, progress: str) -> None:
        import time

        from arena.cli.reports import write_live_page

        if self.broken or (not final and time.monotonic() - self.written_at < LIVE_PAGE_EVERY_S):
            return
        try:
            write_live_page(self.path, self.store, self.config, None if final else LIVE_PAGE_EVERY_S,
                            progress=None if final else progress)
        except OSError as exc:
            self.broken = True
            err_console.print(escape(f"note: cannot write --html {self.path}: {exc.strerror or exc}; "
                                     "the run goes on without it"), highlight=False)
        self.written_at = time.monotonic()


LIVE_PAGE_EVERY_S = 5


def _refuse_what_bots_see(config, log: Path | None, html_page: Path | None) -> None:
    """A tournament's results, config, logs or live page inside a folder every sandbox binds (the
    arena's venv, /usr) would be read by every bot: a hostile bot listed the results and config of
    a workspace made inside the venv."""
    from arena.sandbox.isolation import seen_by_bots

    for what, path in (("its config", config.path), ("its results", config.database), ("--log", log),
                       ("--html", html_page)):
        folder = seen_by_bots(path) if path is not None else None
        if folder is not None:
            fail(f"{path}: {what} lies in {folder}, which every bot's sandbox can read (the system's files and the "
                 "arena's own Python are bound into each); move the tournament's folder out of it (docs/sandbox.md)")


def _say_grants(manifests, settings, prepared) -> None:
    """The run's first lines: what a bot asked for beyond the defaults and was granted, and which
    bots were built now (once per version: later runs take the copy from the build cache)."""
    from arena.play.startup import granted

    for name, manifest in manifests.items():
        if manifest.is_service:
            continue
        beyond = granted(manifest, settings).beyond_defaults
        if beyond:
            console.print(escape(f"granted to {name}: {', '.join(beyond)}"), highlight=False)
    for name, bot in prepared.items():
        if bot.built_now and bot.source.build:
            console.print(escape(f"built {name} version {bot.version} (kept for every later run in the build cache)"),
                          highlight=False)


def _stored_games(store) -> int | None:
    """How many games are stored, for a run's last words; None when the count cannot be read (the
    file found damaged in the middle of the run): the words must come out all the same."""
    from arena.results.rows import StoreError

    try:
        return store.game_count()
    except StoreError:
        return None


def _check_command(manifests, bot: str) -> str:
    manifest = manifests.get(bot)
    return command("arena", "bot", "check", manifest.directory if manifest is not None else bot)


def _note_changed_limits(store, config, manifests, versions: dict[str, str]) -> None:
    from arena.tournament.runner import limits_changed, run_record

    changes = limits_changed(store.last_extra(), run_record(config, manifests, versions))
    if changes:
        err_console.print(escape(f"note: limits changed since the last stored game: {'; '.join(changes)}. "
                                 "Stored games keep the limits they were played with (each game records its own)."),
                          highlight=False)
