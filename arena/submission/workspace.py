"""Where bots are looked up and things are made: the user's workspace and the bundled bots.

A workspace is the folder a user works in, holding `bots/` and `tournaments/` (`arena init`
makes one; this repository is one). A command's workspace is the nearest of the current folder
and its parents that holds either; a tournament config's is the nearest one from the config's
own folder, so a config plays the same bots whichever folder it is run from. A bare bot name
means the workspace's `bots/NAME` first, then the bundled example bot of that name.

The bundled bots are the repository's top-level `bots/` folder: in a checkout (an editable
install) they are read from there; a wheel carries them as package data in
`arena/bundled_bots/`. Nothing is ever written into the installed package: every bot runs from a
copy in the per-user build cache (arena/submission/prepared.py).
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.submission.manifest import MANIFEST_NAME

BOTS = "bots"
TOURNAMENTS = "tournaments"
_PACKAGE = Path(__file__).resolve().parents[1]  # arena/
_INSTALLED_BUNDLE = _PACKAGE / "bundled_bots"  # where a wheel puts the repository's bots/
BUNDLED_BOTS_DIR = _INSTALLED_BUNDLE if _INSTALLED_BUNDLE.is_dir() else _PACKAGE.parent / BOTS
CACHE_ENV = "XDG_CACHE_HOME"
# The bot protocol and the docs: the repository's, or the wheel's package data `arena.guide`.
_GUIDE_ROOT = _PACKAGE / "guide" if (_PACKAGE / "guide").is_dir() else _PACKAGE.parent
GUIDES = {"protocol": "protocol.md", "rules": "docs/rules.md", "sandbox": "docs/sandbox.md",
          "organising": "docs/organising.md", "cluster": "docs/cluster.md", "league": "docs/league.md"}


def guide_path(name: str) -> Path:
    """The file of a document in GUIDES (`arena docs NAME`)."""
    return _GUIDE_ROOT / GUIDES[name]


def is_workspace(folder: Path) -> bool:
    """A folder with bots/ or tournaments/, unless it is a bot's own folder (its bot.toml): a bot
    author's tournaments/ made inside a bot's folder had made that folder the workspace."""
    return ((folder / BOTS).is_dir() or (folder / TOURNAMENTS).is_dir()) and not (folder / MANIFEST_NAME).is_file()


def find_workspace(start: Path | None = None) -> Path | None:
    """The nearest of `start` (default: the current folder) and its parents that is a workspace."""
    here = Path(start if start is not None else Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if is_workspace(folder):
            return folder
    return None


def workspace_or_here() -> Path:
    """Where a command that makes things writes: the current workspace, else the current folder
    (which the first `bots/` or `tournaments/` written makes a workspace)."""
    return find_workspace() or Path.cwd().resolve()


def workspace_bots_dir() -> Path:
    return workspace_or_here() / BOTS


def lookup_dirs(bots_dir: Path | None = None, base_dir: Path | None = None) -> list[Path]:
    """Where a bare bot name is looked up, in order: `bots_dir` when given, else the bots/ of the
    workspace (of `base_dir`, a config's folder, when given; else of the current folder); then the
    bundled bots."""
    first: Path | None
    if bots_dir is not None:
        first = Path(bots_dir)
    else:
        workspace = find_workspace(base_dir)
        first = workspace / BOTS if workspace is not None else None
    found = [first] if first is not None else []
    if not any(_same(d, BUNDLED_BOTS_DIR) for d in found):
        found.append(BUNDLED_BOTS_DIR)
    return found


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def is_bundled(directory: Path) -> bool:
    """A bot folder of the bundled bots (of this checkout or of the installed package)."""
    return _same(Path(directory).parent, BUNDLED_BOTS_DIR)


def cache_dir() -> Path:
    base = os.environ.get(CACHE_ENV) or str(Path.home() / ".cache")
    return Path(base) / "skitgubbe-arena" / "builds"


__all__ = ["BOTS", "TOURNAMENTS", "BUNDLED_BOTS_DIR", "MANIFEST_NAME", "GUIDES", "guide_path", "is_workspace", "find_workspace", "workspace_or_here",
           "workspace_bots_dir", "lookup_dirs", "is_bundled", "cache_dir"]
