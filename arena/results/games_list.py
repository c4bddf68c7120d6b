"""The stored games of a tournament as a list, for `arena games`: which game to replay.

The standings say that a bot faulted or lost; this finds the games where it did, with the numbers
`arena replay` takes. Pure: it reads `GameRow`s and writes text (CSV, JSON lines); the terminal
table is arena/report/games.py.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from arena.play.records import NOT_COUNTED_FAULTS
from arena.results.league_queue import LeagueTable
from arena.results.league_view import choice_dict
from arena.results.rows import GameRow
from arena.wording import spreadsheet_safe


@dataclass(frozen=True, slots=True)
class GameLine:
    """One stored game, as the list shows it."""

    number: int  # the tournament game number (what bots were sent, what `arena replay` takes)
    key: str
    bots: tuple[str, ...]  # by seat
    order: tuple[str, ...]  # bot names, first out first: the last is the skitgubbe
    points: tuple[int, ...]  # by seat
    reason: str  # how the game ended (normal, forfeit, ...)
    moves: int
    faults: tuple[tuple[int, str, int], ...]  # (seat, kind, how many), counted kinds only, by seat
    versions: tuple[str, ...] = ()  # by seat: the version (content hash) each bot played it with
    superseded: str = ""  # why it is out of the standings (a bot resubmitted or withdrawn); "" if counted
    machine: str = ""  # where it was played: a cluster worker's host and address, else this machine's name
    isolation: str = ""  # what its bots could reach there: "bubblewrap 0.8.0 as uid 65534", "none (why)"
    builds: tuple[str, ...] = ()  # by seat: the digest of what ran (the bot's prepared copy), "" before it was recorded
    table: int = 0  # the schedule's table index (a league's table number)
    choice: LeagueTable | None = None  # a league's game: its table, and why it was chosen (results/league_view.py)

    def fault_text(self) -> str:
        """e.g. "seat 1 timeout x2, seat 2 illegal"; "" without faults."""
        return ", ".join(f"seat {seat} {kind}" + (f" x{times}" if times > 1 else "")
                         for seat, kind, times in self.faults)

    def as_dict(self) -> dict:
        return {"number": self.number, "key": self.key, "bots": list(self.bots), "order": list(self.order),
                "points": list(self.points), "reason": self.reason, "moves": self.moves,
                "faults": [{"seat": seat, "kind": kind, "count": times} for seat, kind, times in self.faults],
                "versions": list(self.versions), "superseded": self.superseded, "machine": self.machine,
                "isolation": self.isolation, "builds": list(self.builds), "table": self.table,
                "table_choice": None if self.choice is None else choice_dict(self.choice)}


def game_line(row: GameRow, number: int, superseded: str = "") -> GameLine:
    counted = Counter((f["seat"], f["kind"]) for f in row.faults if f["kind"] not in NOT_COUNTED_FAULTS)
    versions = (row.extra or {}).get("versions") or {}
    builds = (row.extra or {}).get("builds") or {}
    return GameLine(
        number=number, key=row.key, bots=row.bots, order=tuple(row.bots[s] for s in row.finishing_order),
        points=row.points, reason=row.reason, moves=row.moves,
        faults=tuple((seat, kind, times) for (seat, kind), times in sorted(counted.items())),
        versions=tuple(str(versions.get(name, "")) for name in row.bots), superseded=superseded,
        machine=str((row.extra or {}).get("machine", "")),
        isolation=isolation_text((row.extra or {}).get("isolation")),
        builds=tuple(str(builds.get(name, "")) for name in row.bots) if isinstance(builds, dict) else (),
        table=row.table,
    )


def isolation_text(record) -> str:
    """A game's stored isolation (arena/sandbox/isolation.py, Isolation.record) in words; "" for
    games stored before it was recorded."""
    if not isinstance(record, dict):
        return ""
    if record.get("tool", "none") == "none":
        return f"none ({record['why']})" if record.get("why") else "none"
    uid = record.get("bot_uid")
    return f"{record['tool']} " + (f"as uid {uid}" if uid is not None else "in a user namespace")


def game_lines(rows: Iterable[GameRow | tuple[GameRow, str]], number_of: Callable[[GameRow], int], *,
               bots: Iterable[str] = (), faults_only: bool = False, skitgubbe: str | None = None) -> Iterator[GameLine]:
    """The games that seat every bot in `bots`; with `faults_only`, only those with a counted
    fault (by one of `bots`, when given); with `skitgubbe`, only those that bot finished last.
    A row may come with why it was superseded, as (row, why)."""
    wanted = tuple(bots)
    for item in rows:
        row, why = (item, "") if isinstance(item, GameRow) else item
        if any(name not in row.bots for name in wanted):
            continue
        if skitgubbe is not None and row.bots[row.skitgubbe] != skitgubbe:
            continue
        line = game_line(row, number_of(row), why)
        if faults_only and not any(not wanted or line.bots[seat] in wanted for seat, _, _ in line.faults):
            continue
        yield line


# versions, superseded, machine, isolation, builds, then a league's table and why it was chosen came last:
# readers that go by position keep working.
CSV_FIELDS = ("number", "key", "bots", "order", "points", "reason", "moves", "faults", "versions", "superseded", "machine",
              "isolation", "builds", "table", "table_reason", "table_why")


def csv_header() -> str:
    return _csv_row(CSV_FIELDS)


def csv_row(line: GameLine) -> str:
    """`bots`, `order`, `points` and `versions` as ";"-separated lists (by seat, except `order`)."""
    return _csv_row((line.number, line.key, ";".join(line.bots), ";".join(line.order),
                     ";".join(map(str, line.points)), line.reason, line.moves, line.fault_text(),
                     ";".join(line.versions), line.superseded, line.machine, line.isolation, ";".join(line.builds),
                     line.table, *((line.choice.reason, line.choice.why) if line.choice else ("", ""))))


def json_line(line: GameLine) -> str:
    """One JSON object per line (JSON lines), so that a long list streams."""
    return json.dumps(line.as_dict())


def csv_cells(cells) -> str:
    """One CSV line of `cells`, each made safe for a spreadsheet."""
    return _csv_row(cells)


def _csv_row(cells) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([spreadsheet_safe(cell) for cell in cells])
    return out.getvalue()
