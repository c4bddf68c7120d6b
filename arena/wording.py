"""How the arena words things for people: counted nouns, and a bot's own text quoted safely.

Every layer may use it; it imports nothing of the project."""

from __future__ import annotations

import datetime as dt
import re
import shlex


def shell_command(*words: object) -> str:
    """A command to suggest, quoted for a POSIX shell so it can be pasted as it is (a config path
    with a space in it broke the pasted resume command)."""
    return " ".join(shlex.quote(str(w)) for w in words)


def as_written(value: object) -> str:
    """A config's value as its author wrote it in TOML: `true`, not Python's True."""
    return ("true" if value else "false") if isinstance(value, bool) else repr(value)


def count(number: int, noun: str) -> str:
    """'1 game', '2 games', '0 games': English plurals of the nouns we count (all take an s)."""
    return f"{number} {noun if number == 1 else noun + 's'}"


def visible(text: str) -> str:
    """A bot's text as it may be quoted to a person: control and other non-printable characters
    as escapes (\\x1b, \\x00, \\n), so that a quoted line cannot move the cursor, erase what
    the terminal shows or forge a line of the arena's own."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def visible_lines(text: str) -> str:
    """Text for a terminal whose lines are kept: each line `visible` (a file name, a build's
    output or a bot's words in an error may hold escape sequences that would rewrite the screen)."""
    return "\n".join(visible(line) for line in text.split("\n"))


def quoted(text: str, limit: int) -> str:
    """A bot's text as a fault or a report quotes it: `visible`, and cut after `limit` characters."""
    return visible(text if len(text) <= limit else text[:limit] + "...")


# What a spreadsheet reads as the start of a formula (OWASP, "CSV injection").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell: object) -> object:
    """A CSV cell as a spreadsheet shows it and never runs it: text that a spreadsheet would take
    for a formula (a bot named `-2-3`, `=HYPERLINK(...)`) gets a leading `'`; numbers, in text
    or not (`-0.25`), stay as they are."""
    if isinstance(cell, str) and cell.startswith(_FORMULA_STARTS):
        try:
            number = float(cell)
        except ValueError:
            number = float("nan")
        if number != number or number in (float("inf"), float("-inf")):  # no finite number: text
            return "'" + cell
    return cell


def when_text(timestamp: float | None) -> str:
    """A stored time.time() as reports write it, in UTC; "" for none."""
    if timestamp is None:
        return ""
    return dt.datetime.fromtimestamp(timestamp, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


_DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$")
MAX_DURATION_S = 366 * 86400  # a league of a year at most per run: beyond it a typo, not a plan


def duration_s(text: str) -> float:
    """A duration as people write it (2h, 90m, 1h30m, 45s, 3d, or seconds) in seconds; ValueError
    saying what was expected."""
    found = _DURATION.match(text.strip().lower())
    if found is None or not any(found.groups()):
        raise ValueError(f"{text!r}: expected a duration such as 2h, 90m, 1h30m, 45s or 3d")
    days, hours, minutes, seconds = (int(part or 0) for part in found.groups())
    total = days * 86400 + hours * 3600 + minutes * 60 + seconds
    if not 1 <= total <= MAX_DURATION_S:
        raise ValueError(f"{text!r}: expected a duration from 1s to 366d")
    return float(total)
