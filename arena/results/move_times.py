"""Each move's think time, kept with the game's transcript (schema version 3): the replay page shows
how long a bot took over every move, where the games row keeps only each seat's mean and maximum.

They travel in the transcript's compressed text, after it, as one line,

    think10us 12 5 - 33 ...

a token per move of the transcript: the time its bot took to answer, in units of 10 µs (a bot in
Python answers in 50 µs or more; a token costs about 1.3 bytes a move compressed, the transcript
itself 1.6), or `-` where no answer came (a timeout, a bot gone, the second step of a fallback
turn). Kept in the transcript's blob, they move with it wherever the game goes (superseded,
voided); a game stored before version 3 has no such line, and its replay shows no times.
"""

from __future__ import annotations

from typing import Sequence

LINE = "think10us"
UNIT_S = 1e-5


def with_think_times(transcript_text: str, think_s: Sequence[float | None]) -> str:
    """The transcript's text followed by the think-time line (nothing added when none were recorded)."""
    if not think_s:
        return transcript_text
    tokens = " ".join("-" if t is None else str(round(t / UNIT_S)) for t in think_s)
    return f"{transcript_text}{LINE} {tokens}\n"


def split_think_times(text: str) -> tuple[str, tuple[float | None, ...] | None]:
    """(the transcript's own text, the think times per move, or None where the game has none).
    ValueError for a line that does not read."""
    head, found, tail = text.rpartition(f"\n{LINE} ")
    if not found:
        return text, None
    return head + "\n", tuple(None if token == "-" else int(token) * UNIT_S for token in tail.split())
