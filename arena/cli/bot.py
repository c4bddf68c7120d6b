"""`arena bot new|check|add|list`: thin Typer commands over the scaffold, the check and the registry."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table

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


# Rows a forced bot may not fail: without a manifest or a build no tournament could start it at all.
UNFORCEABLE_ROWS = ("manifest", "build")
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
    from arena.submission.registry import RegistryError, register, save_check

    bots_dir = _bots_dir(dir)
    folder = Path(path).expanduser().resolve()  # a folder, even one named like a registered bot
    if not folder.exists():
        fail(f"{path}: no such bot folder or manifest")
    try:
        manifest = load_manifest(folder)
    except ManifestError as exc:
        fail(str(exc))
    report = _run_check(str(folder), games, 2.0, 10.0, bots_dir, grant=grant)
    unplayable = [r.name for r in report.results if not r.passed and r.name in UNFORCEABLE_ROWS]
    if not report.passed and (not force or unplayable):
        why = (f"--force registers a bot that plays badly, not one whose {' and '.join(unplayable)} failed: "
               "a tournament could not start it" if force else "fix the failing checks first, or add --force to "
               "register it all the same (it then loses by its faults)")
        console.print(f"[bold red]not registered:[/bold red] {escape(why)}", highlight=False)
        raise typer.Exit(1)
    try:
        reg = register(manifest, bots_dir, replace=replace)
        save_check(reg.directory, {**report.to_dict(), "version": reg.version, **({"forced": True} if force else {})})
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
    _say_stored_games(reg.name, reg.version, bots_dir)
    if not report.passed:  # forced: the check gate stays the tournament's, and each organiser's choice
        failed = ", ".join(r.name for r in report.results if not r.passed)
        console.print(escape(f"note: registered with --force although its check failed ({failed}); a tournament "
                             f"takes it only where its config says [grant.{reg.name}] unchecked = true (or with "
                             "--unchecked), and it then loses by its faults"), highlight=False)


@bot_app.command("list")
def list_(
    dir: DirOption = None,
    tournaments: Annotated[Optional[Path], typer.Option(
        "--tournaments", help="The tournaments folder whose results are read (default: tournaments/ beside the bots folder).")] = None,
) -> None:
    """Registered bots with their current version, the version stored games used, and every version seen.

    Versions are content hashes; beside each bot: its language and transport, the version each
    tournament's stored games used, its last check, and every version seen with that version's check."""
    from arena.submission.registry import list_registered
    from arena.submission.workspace import BUNDLED_BOTS_DIR, TOURNAMENTS
    from arena.tournament.stored_versions import stored_versions

    if dir is not None and not dir.is_dir():
        fail(f"--dir {dir}: no such folder")
    if tournaments is not None and not tournaments.is_dir():
        fail(f"--tournaments {tournaments}: no such folder")
    folder = _bots_dir(dir)
    bots = [(b, "") for b in list_registered(folder)] if folder.is_dir() else []
    if dir is None and folder.resolve() != BUNDLED_BOTS_DIR.resolve():
        # The workspace's bots, then the bundled ones: a name in both means the workspace's.
        mine = {b.name for b, _ in bots}
        bots = [(b, "workspace") for b, _ in bots] + [
            (b, "bundled, hidden by the workspace's" if b.name in mine else "bundled")
            for b in list_registered(BUNDLED_BOTS_DIR, remember=False)]
    if not bots:
        console.print(f"no bots in {escape(str(folder))}", highlight=False)
        return
    stored = stored_versions(tournaments if tournaments is not None else folder.resolve().parent / TOURNAMENTS)
    title = f"bots in {folder}" + (f" and the bundled bots ({BUNDLED_BOTS_DIR})" if any(where for _, where in bots) else "")
    table = Table(title=escape(title))
    for col in ("name", "runs", "version", "stored games", "last check"):
        # A hash cut in two cannot be compared; a path in a refusal folds rather than loses its end.
        table.add_column(col, no_wrap=col in ("name", "version"), overflow="fold")
    histories = []
    for b, where in bots:
        label = escape(b.name) + (f"\n[dim]{escape(where)}[/dim]" if where else "")
        if b.error:
            table.add_row(label, "", "", "", f"[red]cannot use:[/red] {escape(visible_lines(b.error))}")
            continue
        current = b.current or b.version
        version = escape(current) if current else "[dim]-[/dim]"
        if b.version and b.current and b.current != b.version:
            version += f"\n[yellow](added as {escape(b.version)})[/yellow]"
        table.add_row(label, escape(f"{b.language}, {b.transport}"), version,
                      _stored_cell(stored.get(b.name, []) if where != "bundled, hidden by the workspace's" else [], current),
                      _check_cell(b.check, b.current))
        if b.history and not where.startswith("bundled"):  # the bundled bots' are not the workspace's business
            histories.append((b.name, b.history, current))
    console.print(table)
    if histories:
        console.print("versions seen, oldest first (when first seen, that version's last check):", highlight=False)
    for name, history, current in histories:
        for n, line in enumerate(_history_lines(history, current)):
            console.print(f"  {escape(name) if n == 0 else '':<16} {line}", highlight=False)
    for b, _ in bots:
        if b.note:
            console.print(escape(f"note: {b.note}"), highlight=False)
    if any(b.error for b, _ in bots):  # listed, with the file named in its row: a script must see it too
        raise typer.Exit(1)


def _say_stored_games(name: str, version: str, bots_dir: Path) -> None:
    """After a new version is registered: what becomes of the games its tournaments stored of the old
    one (docs/organising.md, "Resubmission and withdrawal"), so that the next run's stop is no surprise."""
    from arena.submission.workspace import TOURNAMENTS
    from arena.tournament.stored_versions import stored_versions

    folder = bots_dir.resolve().parent / TOURNAMENTS
    for s in stored_versions(folder).get(name, []):
        if s.version != version and not s.withdrawn:
            config = folder / f"{s.tournament}.toml"
            console.print(escape(
                f"note: {s.tournament} has games of {name} stored at version {s.version}: they stay stored and "
                f"counted; its next run stops, naming {name}, until you take the new version with "
                f"{command('arena', 'tournament', 'run', config, '--update')} (its old games are then superseded, "
                "kept aside, and its tables played again)"), highlight=False)


def _stored_cell(stored, current: str) -> str:
    """Per tournament, the version its current stored games used; marked when it is not the bot's
    version now (`arena tournament run CONFIG --update` replays them)."""
    if not stored:
        return "[dim]none[/dim]"
    lines = []
    for s in stored:
        mark = " [dim](withdrawn)[/dim]" if s.withdrawn else \
            "" if s.version == current else " [yellow](not current: --update replays)[/yellow]"
        lines.append(f"{escape(s.tournament)}: {escape(s.version)}{mark}")
    return "\n".join(lines)


def _check_cell(check, current: str) -> str:
    if check is None:
        return "[dim]never[/dim]"
    ok = "[green]pass[/green]" if check.get("passed") else "[red]fail[/red]"
    if check.get("forced") and not check.get("passed"):
        failed = [str(row.get("name")) for row in check.get("checks") or () if isinstance(row, dict) and not row.get("passed")]
        ok += f" ({escape(', '.join(failed))}; added with --force)" if failed else " (added with --force)"
    date = str(check.get("date", ""))[:16].replace("T", " ")
    checked = check.get("version", "")
    stale = f" [yellow](of {escape(checked)})[/yellow]" if checked and current and checked != current else ""
    rules = check.get("rules") or {}
    under = " under " + ", ".join(f"{k}={v}" for k, v in rules.items()) if rules else ""
    return f"{ok} {escape(date)}{escape(under)}{stale}"


def _history_lines(history, current: str) -> list[str]:
    """Every version seen, oldest first: hash, when first seen, that version's last check."""
    lines = []
    for entry in history:
        seen = str(entry.get("first_seen", ""))[:16].replace("T", " ")
        check = entry.get("check") or None
        verdict = "[dim]not checked[/dim]" if check is None else \
            "[green]passed its check[/green]" if check.get("passed") else "[red]failed its check[/red]"
        now = " [bold](current)[/bold]" if entry.get("version") == current else ""
        lines.append(f"{escape(str(entry.get('version')))}  {escape(seen)}  {verdict}{now}")
    return lines or ["[dim]-[/dim]"]


def register(app: typer.Typer) -> None:
    app.add_typer(bot_app, name="bot")
