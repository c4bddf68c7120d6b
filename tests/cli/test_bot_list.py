"""`arena bot list` shows the last check of the bot it lists, a bundled one's too."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import pytest

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
    # A bundled bot plays unchecked (check/admission.py): "never" read as a bot that would be refused.
    # (One that no check in this checkout's own bots/ has a record of.)
    unchecked = next(name for name in ("heuristic_bot", "shell_bot", "js_bot", "zmq_bot", "c_bot")
                     if not (BUNDLED_BOTS_DIR / name / ".check.json").exists())
    assert _last_check(listing.output, unchecked) == "none needed (the arena's own)", listing.output


@pytest.mark.slow
def test_a_copied_bots_version_line_is_ignored_with_a_note(tmp_path, monkeypatch):
    """The organiser's trial: a bot folder copied from a registered one kept its `version =` line, and
    `bot list` showed the new bot "added as" a version of the other, `bot add` "was" that version."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    bots = tmp_path / "bots"
    assert invoke("bot", "new", "alice_bot", "--dir", str(tmp_path / "src")).exit_code == 0
    assert invoke("bot", "add", str(tmp_path / "src" / "alice_bot"), "--dir", str(bots), "--games", "1").exit_code == 0
    alice_version = next(line for line in (bots / "alice_bot" / "bot.toml").read_text().splitlines()
                         if line.startswith("version")).split('"')[1]
    copy = bots / "bob_bot"
    copy.mkdir()
    for path in (bots / "alice_bot").iterdir():  # as `cp -r` copies it, its records too
        (copy / path.name).write_bytes(path.read_bytes())
    toml = copy / "bot.toml"
    toml.write_text(toml.read_text().replace('name = "alice_bot"', 'name = "bob_bot"'))

    listing = " ".join(invoke("bot", "list", "--dir", str(bots)).output.split())
    assert f'version = "{alice_version}" is no version registered or checked here of bob_bot' in listing, listing
    assert "added as" not in listing and "alice_bot" in listing
    bob = {b.name: b for b in list_registered(bots)}["bob_bot"]
    assert bob.version == "" and {b.name: b for b in list_registered(bots)}["alice_bot"].version == alice_version

    added = " ".join(invoke("bot", "add", str(copy), "--dir", str(bots), "--games", "1").output.split())
    assert "note:" in added and "ignored" in added and f"was {alice_version}" not in added, added
    assert {b.name: b for b in list_registered(bots)}["bob_bot"].version == bob.current  # written anew
