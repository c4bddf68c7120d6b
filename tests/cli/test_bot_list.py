"""`arena bot list` shows the last check of the bot it lists, a bundled one's too."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from arena.submission.registry import list_registered
from arena.submission.workspace import BUNDLED_BOTS_DIR, CACHE_ENV
from tests.cli_support import invoke


def _last_check(listing: str, name: str) -> str:
    """The "last check" cell of `name`'s row: the table's last column, from the line naming the
    bot to the next bot's (every bot here is a something_bot), folded at 80 columns."""
    lines = listing.splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith(f"│ {name} "))
    cell = []
    for line in lines[first:]:
        cells = line.split("│")
        if len(cells) < 3 or (line is not lines[first] and re.fullmatch(r"\w+_bot", cells[1].strip())):
            break
        cell.append(cells[-2].strip())
    return " ".join(filter(None, cell))


def test_a_bundled_bot_checked_from_a_workspace_is_listed_with_that_check(tmp_path, monkeypatch):
    # A check of a bundled bot from a workspace was recorded nowhere (not in the workspace's bots/,
    # and never in the installed package), so the list said "never" just after it passed.
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    assert invoke("init", str(tmp_path / "ws")).exit_code == 0
    monkeypatch.chdir(tmp_path / "ws")
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    checked = invoke("bot", "check", "random_bot", "--games", "1")
    assert checked.exit_code == 0, checked.output

    records = list((tmp_path / "cache" / "skitgubbe-arena" / "checks").glob("random_bot-*.json"))
    assert len(records) == 1  # per user, beside the builds: nothing written into the bundled bots
    record = json.loads(records[0].read_text())
    assert record["passed"] and record["date"] >= started
    listed = {b.name: b for b in list_registered(BUNDLED_BOTS_DIR, remember=False)}["random_bot"]
    assert records[0].name == f"random_bot-{listed.current}.json"
    # The newest of it and a record this checkout's bots/ may hold from a check run in the checkout.
    assert listed.check is not None and listed.check["date"] >= record["date"]

    listing = invoke("bot", "list")
    assert listing.exit_code == 0, listing.output
    cell = _last_check(listing.output, "random_bot")
    shown = re.fullmatch(r"pass (\d{4}-\d\d-\d\d \d\d:\d\d)", cell)
    assert shown and shown.group(1) >= record["date"][:16].replace("T", " "), listing.output
    assert _last_check(listing.output, "my_bot") == "never"  # the starter bot, not checked
