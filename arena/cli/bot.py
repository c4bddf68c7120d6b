"""`arena bot new|check|add|list`: thin Typer commands over the scaffold, the check and the registry."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from arena.cli.common import (GrantOption, MoveTimeout, RuleOption, StartupTimeout, UsageError, command, console, fail,
                               ignore_interrupts, parse_grants, parse_rule_options, stop_on_sigterm, usable_log_dir)
from arena.submission.scaffold import Language
from arena.wording import visible, visible_lines

bot_app = typer.Typer(help="Create, check and register bots.", no_args_is_help=True, add_completion=False,
                      pretty_exceptions_enable=False)

DirOption = Annotated[Optional[Path], typer.Option("--dir", help="The bots folder (default: the workspace's bots/).")]


def _bots_dir(path: Path | None) -> Path:
    from arena.submission.workspace import workspace_bots_dir

    return Path(path) if path is not None else workspace_bots_dir()


@bot_app.command("new")
def new(
    name: Annotated[str, typer.Argument(help="Bot name: 1-32 characters of A-Z a-z 0-9 _ . -, not starting with a dot")],
    lang: Annotated[Language, typer.Option("--lang", "-l", help="The bot's language.")] = "python",
    dir: DirOption = None,
) -> None:
    """Write a new bot folder (bot.toml + source) that plays legal moves and passes `arena bot check`."""
    from arena.submission.scaffold import ScaffoldError, new_bot
    from arena.submission.workspace import BUNDLED_BOTS_DIR, MANIFEST_NAME, find_workspace

    if dir is None and find_workspace() is None:
        console.print(escape(f"note: no workspace here or above: {Path.cwd()} becomes one (its bots/ folder); "
                             "`arena init` makes one with a demo tournament"), highlight=False)
    try:
        folder = new_bot(name, lang, _bots_dir(dir))
    except ScaffoldError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot write the bot folder: {exc}")
    if (BUNDLED_BOTS_DIR / name / MANIFEST_NAME).is_file() and folder.parent.resolve() != BUNDLED_BOTS_DIR.resolve():
        console.print(escape(f"note: {name} is also a bundled bot: in this workspace the name now means yours "
                             "(tournaments that played the bundled one see a changed bot)"), highlight=False)
    files = ", ".join(sorted(p.name for p in folder.iterdir()))
    console.print(f"created [bold]{escape(str(folder))}[/bold] ({escape(files)})", highlight=False)
    # In the workspace, the name finds it; a folder given with --dir is named by its path.
    console.print(f"next: {escape(command('arena', 'bot', 'check', folder if dir is not None else name))}", highlight=False)


def _render_report(report) -> None:
    for r in report.results:
        mark = "[yellow]SKIP[/yellow]" if r.skipped else "[green]PASS[/green]" if r.passed else "[bold red]FAIL[/bold red]"
        console.print(f"{mark}  {r.name:<22} {escape(visible_lines(r.detail))}", highlight=False)
        for line in r.evidence_lines:
            console.print(f"        {escape(visible(line))}", highlight=False, soft_wrap=True)
    if report.sandbox.get("isolation"):
        console.print(escape(f"      isolation: {report.sandbox['isolation']}"), highlight=False)
    verdict = "[green]all checks passed[/green]" if report.passed else "[bold red]check failed[/bold red]"
    failed = [r.name for r in report.results if not r.passed]
    extra = f" ({', '.join(failed)})" if failed else ""
    console.print(f"{escape(report.bot)} {report.version or ''}: {verdict}{escape(extra)} in {report.seconds:.1f} s",
                  highlight=False)


def _run_check(bot: str, games: int, move_timeout: float, startup_timeout: float, bots_dir: Path,
               rule: list[str] | None = None, log: Path | None = None, grant: list[str] | None = None):
    from arena.check.admission import keep
    from arena.check.runner import check_bot
    from arena.game import RulesError
    from arena.submission.registry import save_check

    try:
        options = parse_rule_options(rule)
        grants = parse_grants(grant)
    except UsageError as exc:
        fail(str(exc))
    stop_on_sigterm()  # so that the build and the bots under test are ended, not left behind
    try:
        report = check_bot(bot, games=games, bots_dir=bots_dir, move_timeout_s=move_timeout,
                           startup_timeout_s=startup_timeout, rule_options=options, keep_logs_in=usable_log_dir(log),
                           grants=grants)
    except RulesError as exc:
        fail(f"--rule: {exc}")
    except KeyboardInterrupt:  # it ended with exit code 130 and no word
        ignore_interrupts()
        fail("interrupted: the check was stopped, with its build and every bot it started", code=130)
    if report.directory is None:  # the manifest could not be loaded: a usage error
        fail(report.results[0].detail)
    _render_report(report)
    if log is not None:
        console.print(f"logs kept in {escape(str(log))}: {escape(', '.join(report.logs_kept) or 'none')}", highlight=False)
    try:
        # Kept per user, where no author writes: what lets this version into a tournament here.
        keep(report.to_dict())
        if report.directory.resolve().parent == bots_dir.resolve():
            save_check(report.directory, report.to_dict())
    except OSError:
        pass
    return report


Games = Annotated[int, typer.Option("--games", min=1, max=200, help="Games to play against the bundled bots.")]


@bot_app.command("check")
def check(
    bot: Annotated[str, typer.Argument(help="A bot name under bots/, a bot folder, or a bot.toml.")],
    games: Games = 6,
    move_timeout: MoveTimeout = 2.0,
    startup_timeout: StartupTimeout = 10.0,
    rule: RuleOption = None,
    log: Annotated[Optional[Path], typer.Option(help="Keep the check's protocol lines and bot stderr in this folder.")] = None,
    dir: DirOption = None,
    grant: GrantOption = None,
) -> None:
    """Build the bot and check that it keeps the protocol; exit code 0 only if every check passes.

    Checked: the handshake, legal and timely moves, well-formed lines, exit on quit, nothing left running.
    The games use the default rules; check with the options your tournaments use, e.g.
    --rule phase1_mode=all (which widens two fields of the view)."""
    report = _run_check(bot, games, move_timeout, startup_timeout, _bots_dir(dir), rule, log, grant)
    raise typer.Exit(0 if report.passed else 1)


@bot_app.command("add")
def add(
    path: Annotated[str, typer.Argument(help="The bot folder (or its bot.toml).")],
    games: Games = 6,
    replace: Annotated[bool, typer.Option("--replace", help="Replace a registered bot of the same name.")] = False,
    force: Annotated[bool, typer.Option("--force", help=(
        "Register it even if its games fail the check (a student's broken bot that should lose by its "
        "faults); a tournament then takes it only with [grant.NAME] unchecked = true."))] = False,
    dir: DirOption = None,
    grant: GrantOption = None,
) -> None:
    """Check the bot, then register it under bots/<name>/ with its content hash as version."""
    from arena.submission.manifest import ManifestError
    from arena.submission.lookup import load_manifest
    from arena.submission.registry import RegistryError, destination, register, save_check

    bots_dir = _bots_dir(dir)
    folder = Path(path).expanduser().resolve()  # a folder, even one named like a registered bot
    if not folder.exists():
        fail(f"{path}: no such bot folder or manifest")
    try:
        manifest = load_manifest(folder)
        destination(manifest, bots_dir, replace=replace)  # a name taken is said before a check of seconds
    except (RegistryError, ManifestError) as exc:
        fail(str(exc))
    from arena.check.admission import registration_refusal

    checked = _checked_once(manifest, folder, games, bots_dir, grant)
    failed = [str(row.get("name")) for row in checked.get("checks") or () if isinstance(row, dict) and not row.get("passed")]
    why = registration_refusal(failed, force)
    if why is not None:
        console.print(f"[bold red]not registered:[/bold red] {escape(why)}", highlight=False)
        raise typer.Exit(1)
    try:
        reg = register(manifest, bots_dir, replace=replace)
        save_check(reg.directory, {**checked, "version": reg.version, **({"forced": True} if force else {})})
    except (RegistryError, ManifestError) as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot register {manifest.name}: {exc}")
    from arena.submission.workspace import BUNDLED_BOTS_DIR, MANIFEST_NAME

    if (BUNDLED_BOTS_DIR / reg.name / MANIFEST_NAME).is_file() and reg.directory.parent.resolve() != BUNDLED_BOTS_DIR.resolve():
        console.print(escape(f"note: {reg.name} is also a bundled bot: in this workspace the name now means this one "
                             "(tournaments that played the bundled one see a changed bot)"), highlight=False)
    if reg.note:
        console.print(escape(f"note: {reg.note}"), highlight=False)
    how = "copied to" if reg.copied else "registered in place at"
    change = ""
    if reg.previous_version and reg.previous_version != reg.version:
        change = f" (new version; was {reg.previous_version})"
    elif reg.previous_version == reg.version:
        change = " (unchanged)"
    console.print(f"{escape(reg.name)} {how} {escape(str(reg.directory))}: version {reg.version}{change}",
                  highlight=False)
    from arena.submission.workspace import TOURNAMENTS
    from arena.tournament.stored_versions import superseded_notes

    for line in superseded_notes(reg.name, reg.version, bots_dir.resolve().parent / TOURNAMENTS):
        console.print(escape(f"note: {line}"), highlight=False)
    if failed:  # forced: the check gate stays the tournament's, and each organiser's choice
        console.print(escape(f"note: registered with --force although its check failed ({', '.join(failed)}); a tournament "
                             f"takes it only where its config says [grant.{reg.name}] unchecked = true (or with "
                             "--unchecked), and each fault there is charged to it (fault_policy says who moves for it then)"), highlight=False)


def _checked_once(manifest, folder: Path, games: int, bots_dir: Path, grant: list[str] | None) -> dict:
    """The check `bot add` registers on (CheckReport.to_dict()): the pass kept here of these very
    files (`arena bot check` just before), else a check run now. The same version is never checked
    twice: it would cost the author the seconds again and could only say the same."""
    from arena.check.admission import check_date, kept_pass

    kept = kept_pass(manifest)
    if kept is None:
        return _run_check(str(folder), games, 2.0, 10.0, bots_dir, grant=grant).to_dict()
    console.print(escape(f"{manifest.name} {kept.get('version')}: passed its check of {check_date(kept)} on this machine, so it is "
                         f"not checked again ({command('arena', 'bot', 'check', folder)} checks it anew)"), highlight=False)
    return kept


@bot_app.command("list")
def list_(
    dir: DirOption = None,
    tournaments: Annotated[Optional[Path], typer.Option(
        "--tournaments", help="The tournaments folder whose results are read (default: tournaments/ beside the bots folder).")] = None,
) -> None:
    """Registered bots with their current version, the version stored games used, and every version seen.

    Versions are content hashes; beside each bot: its language and transport, the version each
    tournament's stored games used, its last check, and every version seen with that version's check."""
    from arena.report.bots import render_bot_list
    from arena.submission.registry import listed_with_bundled
    from arena.submission.workspace import BUNDLED_BOTS_DIR, TOURNAMENTS
    from arena.tournament.stored_versions import stored_versions

    if dir is not None and not dir.is_dir():
        fail(f"--dir {dir}: no such folder")
    if tournaments is not None and not tournaments.is_dir():
        fail(f"--tournaments {tournaments}: no such folder")
    folder = _bots_dir(dir)
    # The workspace's bots, then the bundled ones (a name in both means the workspace's).
    bots = listed_with_bundled(folder, with_bundled=dir is None and folder.resolve() != BUNDLED_BOTS_DIR.resolve())
    if not bots:
        console.print(f"no bots in {escape(str(folder))}", highlight=False)
        return
    stored = stored_versions(tournaments if tournaments is not None else folder.resolve().parent / TOURNAMENTS)
    title = f"bots in {folder}" + (f" and the bundled bots ({BUNDLED_BOTS_DIR})" if any(where for _, where in bots) else "")
    render_bot_list(bots, stored, title, console)
    if any(b.error for b, _ in bots):  # listed, with the file named in its row: a script must see it too
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(bot_app, name="bot")
