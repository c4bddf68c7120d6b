"""The reading commands' reports as text, whatever their format (`arena standings -o FILE`,
`arena replay -o FILE`): the CLI decides where the text goes, this decides what it is."""

from __future__ import annotations

import io
import json
from typing import Any, Sequence

from rich.console import Console

from arena.results.standings import Standings


def standings_document(standings: Standings, format: str, title: str, games_href: str | None = None) -> str:
    """The standings report in `format` (table, markdown, html, json, csv); a table in a file is the
    terminal's, 120 columns wide and without colours, with the tournament's facts."""
    from arena.report import export, html
    from arena.report.standings import render_standings_report

    if format == "table":
        buffer = io.StringIO()
        render_standings_report(standings, Console(file=buffer, width=120, color_system=None), title=title, facts=True)
        return buffer.getvalue()
    if format == "json":
        return export.to_json(standings)
    if format == "csv":
        return export.to_csv(standings)
    if format == "markdown":
        return export.to_markdown(standings, title)
    return html.to_html(standings, title, games_href=games_href)


def replay_document(data: dict[str, Any], format: str, roster: Sequence[str]) -> str:
    """A stored game's data (TournamentResults.replay(...).data) as its self-contained page (html,
    arena/report/replay_page.py) or as JSON."""
    from arena.report.replay_page import replay_page

    return replay_page(data, roster=roster) if format == "html" else json.dumps(data, indent=1) + "\n"


__all__ = ["replay_document", "standings_document"]
