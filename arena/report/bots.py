"""`arena bot list`'s table: each bot with its language and transport, its version, the version
each tournament's stored games used, its last check, and every version seen (Rich)."""

from __future__ import annotations

from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.check.admission import needs_check
from arena.submission.registry import HIDDEN, ListedBot
from arena.tournament.stored_versions import StoredVersion
from arena.wording import visible_lines


def render_bot_list(bots: Sequence[tuple[ListedBot, str]], stored: dict[str, list[StoredVersion]], title: str,
                    console: Console) -> None:
    """The table of `bots` ((bot, where it comes from: "" for the folder listed, "workspace",
    "bundled" or HIDDEN)), then the versions seen of the workspace's bots, then their notes."""
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
                      _stored_cell(stored.get(b.name, []) if where != HIDDEN else [], current),
                      _check_cell(b.check, current, b.directory is None or needs_check(b.directory)))
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


def _stored_cell(stored: Sequence[StoredVersion], current: str) -> str:
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


def _check_cell(check: dict | None, current: str, needed: bool = True) -> str:
    """The bot's last check; for a bundled bot never checked here, that it plays without one."""
    if check is None:
        return "[dim]never[/dim]" if needed else "[dim]none needed (the arena's own)[/dim]"
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


def _history_lines(history: Sequence[dict], current: str) -> list[str]:
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


__all__ = ["render_bot_list"]
