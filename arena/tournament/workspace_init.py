"""`arena init [DIR]`: make a workspace (arena/submission/workspace.py) with a starter bot, a demo
tournament of it against bundled bots, and a .gitignore for what runs leave behind."""

from __future__ import annotations

import secrets

import shutil
from dataclasses import dataclass
from pathlib import Path

from arena.submission.manifest import MANIFEST_NAME
from arena.submission.scaffold import new_bot
from arena.submission.workspace import BOTS, TOURNAMENTS, find_workspace, guide_path, is_workspace
from arena.tournament.config import load_config, load_entries

STARTER_BOT = "my_bot"
# Bundled opponents that need nothing beyond Python and a POSIX shell: a new workspace's demo runs
# wherever the arena does (c_bot needs a compiler, js_bot Node, zmq_bot nothing more but adds little).
DEMO_OPPONENTS = ("random_bot", "heuristic_bot", "shell_bot")

DEMO_CONFIG = """\
# A demo tournament: your starter bot (bots/{bot}) against bundled example bots, round robin at
# tables of three. Every deal is played in all 6 seatings of its table with the same cards.
# Run it:   arena tournament run tournaments/demo.toml
# Read it:  arena standings tournaments/demo.toml
name = "demo"
seed = {seed}  # chosen at random by `arena init`: the deals follow from it; keep it from bot authors
bots = [{bots}]
table_size = 3
deals = 4
scoring = "placement"
fault_policy = "fallback"
# Your own bot and the bundled ones: isolated where bubblewrap is installed, run without it
# elsewhere. For other people's bots, use "required" (arena tournament new writes it).
isolation = "auto"

[limits]
move_timeout_s = 2.0
startup_timeout_s = 10.0
start_retry_s = 120.0   # a bot that cannot be started or reached for reasons outside it: retried this long, then its games are void

# A tournament takes a version of a bot only once it passed `arena bot check {bot}` on this machine,
# unless you let it in: your starter bot is, so that the demo runs at once. Other people's bots:
# check them, rather than let them in so.
[grant.{bot}]
unchecked = true
"""

GITIGNORE = """\
# What the arena writes while it runs: results, logs and per-machine records, not source.
tournaments/*.sqlite
tournaments/*.sqlite-*
tournaments/*.run-lock
tournaments/logs/
logs/
bots/*/.check.json
bots/*/.versions.json
"""


class WorkspaceExists(Exception):
    """The folder is a workspace already: init changes nothing."""


class WorkspaceRefused(Exception):
    """The folder is no place for a workspace (in a bot's folder, or in a workspace's bots/ or
    tournaments/): init changes nothing, and says where to make it instead."""


def _refusal(folder: Path) -> str | None:
    """Why `folder` (resolved) is no place for a workspace, or None. A workspace made in a bot's
    folder or in another's bots/ was taken for a bot (or a broken one) of the one around it, and
    the commands run in it lost the bots and tournaments of that one."""
    if (folder / MANIFEST_NAME).is_file():
        return f"{folder} is a bot's folder (it has {MANIFEST_NAME}): make the workspace elsewhere; nothing was changed"
    for above in folder.parents:
        if (above / MANIFEST_NAME).is_file():
            return (f"{folder} is inside the bot's folder {above} (it has {MANIFEST_NAME}): make the workspace "
                    "outside it; nothing was changed")
    for above in (folder, *folder.parents):
        if above.name in (BOTS, TOURNAMENTS) and is_workspace(above.parent):
            return (f"{folder} is inside {above}, the {above.name}/ folder of the workspace {above.parent}: "
                    f"work in that workspace, or make the new one outside {above}; nothing was changed")
    return None


@dataclass(frozen=True, slots=True)
class Workspace:
    folder: Path
    starter: Path  # the starter bot's folder
    demo: Path  # the demo tournament's config
    inside: Path | None = None  # a workspace around it: commands in the new one use the new one


def init_workspace(folder: Path) -> Workspace:
    """Make `folder` (created if missing) a workspace. WorkspaceExists when it holds bots/ or
    tournaments/ already; WorkspaceRefused when it is in a bot's folder or in a workspace's bots/
    or tournaments/; OSError when it cannot be written. The demo config is checked as a run
    would load it before init returns."""
    folder = Path(folder).expanduser().resolve()
    if is_workspace(folder):
        raise WorkspaceExists(f"{folder} is a workspace already (it has {BOTS}/ or {TOURNAMENTS}/): nothing was changed")
    refusal = _refusal(folder)
    if refusal is not None:
        raise WorkspaceRefused(refusal)
    folder.mkdir(parents=True, exist_ok=True)
    starter = new_bot(STARTER_BOT, "python", folder / BOTS)
    (folder / TOURNAMENTS).mkdir()
    demo = folder / TOURNAMENTS / "demo.toml"
    names = ", ".join(f'"{name}"' for name in (STARTER_BOT, *DEMO_OPPONENTS))
    demo.write_text(DEMO_CONFIG.format(bot=STARTER_BOT, bots=names, seed=secrets.randbelow(2**31)), encoding="utf-8")
    ignore = folder / ".gitignore"
    present = ignore.read_text(encoding="utf-8").splitlines() if ignore.exists() else []
    missing = [line for line in GITIGNORE.splitlines() if line and line not in present]
    if missing:  # a .gitignore of the user's own keeps its lines, and gets the results' patterns
        with open(ignore, "a", encoding="utf-8") as out:
            out.write(("\n" if present and present[-1] else "") + "\n".join(missing) + "\n")
    # The bot protocol beside the starter bot, which refers to it.
    shutil.copyfile(guide_path("protocol"), folder / "protocol.md")
    load_entries(load_config(demo))  # the bare names find the starter bot and the bundled ones
    return Workspace(folder, starter, demo, find_workspace(folder.parent))


__all__ = ["STARTER_BOT", "DEMO_OPPONENTS", "WorkspaceExists", "WorkspaceRefused", "Workspace", "init_workspace"]
