"""The results database's schema, and one game as its rows and back.

`encode_game` turns a played game into its rows (pure, so bulk loaders can encode in
parallel); `decode_row` turns a games row (plus its transcript) into a `GameRow`.
"""

from __future__ import annotations

import json
import time
import zlib
from dataclasses import dataclass, field
from typing import NotRequired, Sequence, TypedDict

from arena.errors import ArenaError
from arena.game import GameError, Transcript
from arena.play.records import NOT_COUNTED_FAULTS, GameRecord
from arena.results.move_times import split_think_times, with_think_times
from arena.schedule.games import GameSpec


# Version 2 keeps totals beside the games (arena/results/totals.py); version 3 also the ratings'
# counts per block of games (arena/results/rating_totals.py), no ratings checkpoint, and each
# move's think time in the transcript's blob (arena/results/move_times.py). A file of an older
# version is read as it is and made one of version 3 when a run opens it to write (database.migrate).
SCHEMA_VERSION = "3"
READABLE_SCHEMA_VERSIONS = ("1", "2", "3")

# The tables (arena/results/store.py's docstring says what each is for).
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    table_no INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    seating INTEGER NOT NULL,
    bots TEXT NOT NULL,             -- names by seat, comma-separated
    seed INTEGER NOT NULL,
    dealer INTEGER NOT NULL,
    finishing_order TEXT NOT NULL,  -- seats, first out first, comma-separated
    skitgubbe INTEGER NOT NULL,
    reason TEXT NOT NULL,
    points TEXT NOT NULL,           -- per seat, comma-separated
    moves INTEGER NOT NULL,
    faults TEXT NOT NULL,           -- JSON list of {seat, kind, detail, move}
    think_mean_ms TEXT NOT NULL,    -- per seat, comma-separated
    think_max_ms TEXT NOT NULL,
    extra TEXT NOT NULL,            -- JSON object (limits in force, bot versions, ...)
    finished_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS games_orders ON games (bots, finishing_order);
CREATE TABLE IF NOT EXISTS transcripts (game_id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS seat_results (
    bot INTEGER NOT NULL,
    game_id INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    points INTEGER NOT NULL,
    place INTEGER NOT NULL,
    faults INTEGER NOT NULL,
    skitgubbe INTEGER NOT NULL,     -- 1 when this seat finished last
    PRIMARY KEY (bot, game_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS seat_results_deal ON seat_results (bot, table_no, deal, points);
CREATE TABLE IF NOT EXISTS faults (
    game_id INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    bot INTEGER NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    move INTEGER NOT NULL
);
"""


# Each table's columns as its INSERT names them, in the order of the tuples `encode_game` builds
# (`decode_row` reads games rows as "id" and then these): the INSERTs' column lists and
# placeholders are made from them, so a column added here cannot leave a count of `?` behind.
GAME_COLUMNS = ("key", "table_no", "deal", "seating", "bots", "seed", "dealer", "finishing_order", "skitgubbe",
                "reason", "points", "moves", "faults", "think_mean_ms", "think_max_ms", "extra", "finished_at")
SEAT_COLUMNS = ("bot", "game_id", "seat", "table_no", "deal", "points", "place", "faults", "skitgubbe")
FAULT_COLUMNS = ("game_id", "seat", "bot", "kind", "detail", "move")


def insert_sql(table: str, columns: tuple[str, ...], verb: str = "INSERT") -> str:
    """`INSERT INTO table (a, b) VALUES (?, ?)`: the column list and its placeholders from one tuple."""
    return f"{verb} INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


class DamagedRow(ValueError):
    """A stored row whose text no longer decodes (a damaged file); the store names the file."""


class StoreError(ArenaError):
    """A results database that cannot be used as asked (incompatible run, missing game, bad file)."""


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",")) if text else ()


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(",")) if text else ()


@dataclass(frozen=True)
class GameRow:
    """One stored game, decoded. ``transcript`` is decoded from ``transcript_data`` on first use."""

    id: int
    key: str
    table: int
    deal: int
    bots: tuple[str, ...]
    finishing_order: tuple[int, ...]
    points: tuple[int, ...]
    seating: int = 0
    seed: int = 0
    dealer: int = 0
    reason: str = "normal"
    moves: int = 0
    faults: tuple[dict, ...] = ()  # {"seat", "kind", "detail", "move"} and "stderr" where kept
    think_mean_ms: tuple[float, ...] = ()
    think_max_ms: tuple[float, ...] = ()
    extra: dict = field(default_factory=dict)
    finished_at: float = 0.0
    transcript_data: bytes = field(default=b"", repr=False)

    @property
    def skitgubbe(self) -> int:
        return self.finishing_order[-1]

    @property
    def transcript(self) -> Transcript:
        cached = self.__dict__.get("_transcript")
        if cached is None:
            if not self.transcript_data:
                raise StoreError(f"game {self.key} has no stored transcript")
            try:
                text, think_s = split_think_times(zlib.decompress(self.transcript_data).decode("utf-8"))
                cached = Transcript.from_text(text)
            except (zlib.error, ValueError, GameError) as exc:
                raise DamagedRow(f"game {self.key}: its transcript does not decode: {exc}") from None
            if think_s is not None and len(think_s) != len(cached.moves):
                raise DamagedRow(f"game {self.key}: {len(think_s)} think times for {len(cached.moves)} moves")
            self.__dict__["_transcript"] = cached
            self.__dict__["_think_s"] = think_s
        return cached

    @property
    def move_think_s(self) -> tuple[float | None, ...] | None:
        """Each move's think time (move_times.py), or None for a game stored without them."""
        self.transcript  # decodes both
        found: tuple[float | None, ...] | None = self.__dict__["_think_s"]
        return found


class _FaultEntry(TypedDict):
    """One fault as the games row's `faults` JSON keeps it."""

    seat: int
    kind: str
    detail: str
    move: int
    stderr: NotRequired[str]  # the tail of the bot's stderr, where the run kept stderr (--log)


def compress_transcript(transcript: Transcript, move_think_s: Sequence[float | None] = ()) -> bytes:
    """The blob of `transcripts.data`: the transcript's text and each move's think time, compressed."""
    return zlib.compress(with_think_times(transcript.to_text(), move_think_s).encode("utf-8"), 6)


def encode_game(spec: GameSpec, record: GameRecord, extra: dict | None = None, *, transcript_blob: bytes | None = None,
                finished_at: float | None = None) -> tuple[tuple, bytes, list[tuple], list[tuple]]:
    """The rows one game becomes: (games row without id, transcript blob, seat rows, fault rows).

    Seat and fault rows carry bot *names* (resolved to ids on insert) and lack the game id.
    """
    outcome = record.outcome
    n = len(record.bots)
    if any("," in name for name in record.bots):
        raise StoreError(f"game {spec.key}: bot names must not contain commas: {record.bots}")
    if tuple(spec.bots) != tuple(record.bots):
        raise StoreError(f"game {spec.key}: the record's bots {record.bots} differ from the schedule's {spec.bots}")
    fault_list: list[_FaultEntry] = [{"seat": f.seat, "kind": getattr(f.kind, "value", str(f.kind)), "detail": f.detail,
                                      "move": f.move_number} for f in record.faults]
    for entry, fault in zip(fault_list, record.faults):
        if fault.stderr:  # kept only where the run keeps stderr (--log): the row stays small otherwise
            entry["stderr"] = fault.stderr
    faults_per_seat = [0] * n
    for f in fault_list:
        if f["kind"] not in NOT_COUNTED_FAULTS:
            faults_per_seat[f["seat"]] += 1
    means, maxes = [], []
    for seat in range(n):
        times = record.think_times_s[seat] if seat < len(record.think_times_s) else ()
        means.append(f"{1000 * sum(times) / len(times):.3f}" if times else "0")
        maxes.append(f"{1000 * max(times):.3f}" if times else "0")
    order = outcome.finishing_order
    game = (
        spec.key, spec.table, spec.deal, spec.seating, ",".join(record.bots), spec.seed, spec.dealer,
        ",".join(map(str, order)), order[-1], getattr(outcome.reason, "value", str(outcome.reason)),
        ",".join(map(str, record.points)), record.moves, json.dumps(fault_list),
        ",".join(means), ",".join(maxes), json.dumps(extra or {}, sort_keys=True),
        time.time() if finished_at is None else finished_at,
    )
    blob = transcript_blob if transcript_blob is not None else compress_transcript(record.transcript,
                                                                                   record.move_think_s)
    places = {seat: place for place, seat in enumerate(order, start=1)}
    seats = [(record.bots[s], s, spec.table, spec.deal, record.points[s], places[s], faults_per_seat[s],
              int(places[s] == n)) for s in range(n)]
    fault_rows = [(f["seat"], record.bots[f["seat"]], f["kind"], f["detail"], f["move"]) for f in fault_list]
    return game, blob, seats, fault_rows


def decode_row(row: tuple) -> GameRow:
    """A games row (and its transcript) as a GameRow; DamagedRow if its text no longer decodes."""
    (id_, key, table_no, deal, seating, bots, seed, dealer, order, _skitgubbe, reason, points, moves, faults,
     think_mean, think_max, extra, finished_at) = row[:18]
    try:
        return _decoded_row(row, id_, key, table_no, deal, seating, bots, seed, dealer, order, reason, points, moves,
                            faults, think_mean, think_max, extra, finished_at)
    except (ValueError, TypeError, AttributeError) as exc:
        raise DamagedRow(f"game {key!r} (row {id_}) does not decode: {exc}") from None


def _decoded_row(row, id_, key, table_no, deal, seating, bots, seed, dealer, order, reason, points, moves, faults,
                 think_mean, think_max, extra, finished_at) -> GameRow:
    return GameRow(
        id=id_, key=key, table=table_no, deal=deal, seating=seating, bots=tuple(bots.split(",")), seed=seed,
        dealer=dealer, finishing_order=_ints(order), reason=reason, points=_ints(points), moves=moves,
        faults=tuple(json.loads(faults)), think_mean_ms=_floats(think_mean), think_max_ms=_floats(think_max),
        extra=json.loads(extra), finished_at=finished_at, transcript_data=row[18] if len(row) > 18 and row[18] else b"",
    )
