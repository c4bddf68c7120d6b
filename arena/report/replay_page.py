"""The replay page of one stored game: the game's JSON (arena/results/replay_json.py) in a page whose
own script (replay_assets/engine.js, the rules' state transitions; replay_assets/page.js, the
drawing and stepping) replays it from the deal in the browser. Nothing is fetched from anywhere:
`arena replay -o game.html` writes one self-contained file (script and style inline); a report's
folder of game pages shares one copy of them (`ASSET_FILES`, written once beside the pages).

Text from bots and organisers never becomes markup: the data travels as JSON inside a
`<script type="application/json">` with every `<`, `>` and `&` escaped, the script puts it into
text nodes only, and a Content-Security-Policy lets only the page's own scripts run and nothing
load from elsewhere."""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from html import escape
from importlib import resources
from typing import Any, Sequence

from arena.report.colours import bot_colours

ASSET_SCRIPTS = ("engine.js", "page.js")  # in this order: page.js uses engine.js
ASSET_STYLE = "page.css"
# What a folder of pages shares: the scripts as one file, and the style.
SHARED_SCRIPT, SHARED_STYLE = "replay.js", "replay.css"


@functools.cache
def asset(name: str) -> str:
    """The text of one of the page's files (package data of arena.report)."""
    return resources.files("arena.report").joinpath("replay_assets", name).read_text(encoding="utf-8")


def shared_script() -> str:
    return "\n".join(asset(name) for name in ASSET_SCRIPTS)


def asset_files() -> dict[str, str]:
    """The files a folder of game pages shares: name -> text."""
    return {SHARED_SCRIPT: shared_script(), SHARED_STYLE: asset(ASSET_STYLE)}


def _script_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


@functools.cache
def _inline_policy() -> str:
    """Only the page's own two scripts may run (by their hashes); nothing is loaded from anywhere."""
    hashes = " ".join(_script_hash(asset(name)) for name in ASSET_SCRIPTS)
    return f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data:"


# A folder's pages load the shared files beside them (a file: page's own folder is 'self').
_LINKED_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:"


def json_for_script(value: Any) -> str:
    """JSON that cannot end its <script> element early or open a comment: <, > and & escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def steps_of(game: dict) -> int:
    """The last step of the game's replay: one per move, and one for a forfeit (R53)."""
    return len(game["moves"]) + (game["outcome"]["forfeited_seat"] is not None)


def seat_colours(game: dict, roster: Sequence[str] = ()) -> list[str]:
    """Each seat's bot's colour, as every report of the tournament gives it (arena/report/colours.py)."""
    names = [bot["name"] for bot in game["bots"]]
    colours = bot_colours(names, roster=roster)
    return [colours[name] for name in names]


def replay_page(game: dict, *, roster: Sequence[str] = (), back: str | None = None, back_words: str = "all games",
                shared: str | None = None) -> str:
    """The page of `game` (replay_json.game_replay's dict). `roster`: the tournament's bots in config
    order, for their colours; `back`: a link to the list of games; `shared`: the relative folder of
    the shared script and style (a report's folder of pages), None for one self-contained page."""
    number = game["game"]["number"]
    title = f"Game {number if number is not None else game['game']['key']}"
    if game["game"].get("tournament"):
        title += f" · {game['game']['tournament']}"
    page = {"colours": seat_colours(game, roster), "back": back, "back_words": back_words}
    if shared is None:
        policy = _inline_policy()
        style = f"<style>{asset(ASSET_STYLE)}</style>"
        scripts = "".join(f"<script>{asset(name)}</script>" for name in ASSET_SCRIPTS)
    else:
        policy = _LINKED_POLICY
        style = f'<link rel="stylesheet" href="{escape(shared + SHARED_STYLE)}">'
        scripts = f'<script src="{escape(shared + SHARED_SCRIPT)}"></script>'
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · replay</title>{style}</head><body>\n"
        "<noscript><p>This replay draws the game with its own script, which is off in this browser; "
        "<code>arena replay CONFIG GAME</code> shows the game as text.</p></noscript>\n"
        f'<main data-step="0" data-steps="{steps_of(game)}"></main>\n'
        f'<script type="application/json" id="game">{json_for_script(game)}</script>\n'
        f'<script type="application/json" id="page">{json_for_script(page)}</script>\n'
        f"{scripts}\n</body></html>\n"
    )
