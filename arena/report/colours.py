"""Bots' colours, defined once for every report that colours bots (the HTML page and the live
page, arena/report/html.py; the terminal reports colour no bot): the palette, and the choice of
a bot's colour from its name.

The palette: twelve colours that stay clearly apart, any two of them at least 25 apart in
CIEDE2000 (tests/report/test_colours.py measures it; 2 is a just-noticeable difference), each dark
enough to show as a line on white. The palette before this one gave red and orange, and two
blues 4 apart, to bots side by side.

A bot's colour: the palette slot its name hashes to; if an earlier bot of the tournament's list
(its config's order) has that slot, the next free one. So a bot keeps its colour in every report
of a tournament, whatever its rank, mid-run or at the end, and when bots are added at the end
of the config; no two bots share a colour while the palette lasts."""

from __future__ import annotations

import zlib
from typing import Iterable

PALETTE: tuple[str, ...] = (
    "#0b84e6",  # blue
    "#fa7d28",  # orange
    "#12b450",  # green
    "#c90922",  # red
    "#8d3ee7",  # violet
    "#694100",  # brown
    "#ff50a0",  # pink
    "#3fb6bd",  # teal
    "#0d2354",  # navy
    "#134c0d",  # dark green
    "#b39e00",  # ochre
    "#766f74",  # grey
)


def home_slot(name: str) -> int:
    """The palette slot a name hashes to (crc32: the same on every machine and in every run)."""
    return zlib.crc32(name.encode()) % len(PALETTE)


def bot_colours(names: Iterable[str], roster: Iterable[str] = ()) -> dict[str, str]:
    """Each bot's colour, for `names` and the tournament's `roster` (its bots in config order):
    the roster's bots choose first, in its order, then any other name in alphabetical order;
    each takes its home slot or, when that is taken, the next free one (once the palette is used
    up, colours repeat, from the home slot)."""
    order = list(dict.fromkeys(roster))
    order += sorted(set(names) - set(order))
    colours: dict[str, str] = {}
    taken: set[int] = set()
    for name in order:
        slot = home_slot(name)
        if len(taken) < len(PALETTE):
            while slot in taken:
                slot = (slot + 1) % len(PALETTE)
        taken.add(slot)
        colours[name] = PALETTE[slot]
    return colours


__all__ = ["PALETTE", "bot_colours", "home_slot"]
