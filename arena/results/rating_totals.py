"""The counts the ratings are fitted from, kept by SQL triggers beside the games per block of
games in stored order, so that the fit and its history read a few thousand rows, not every game.

A game of n bots is n - 1 Plackett-Luce stages (arena/results/plackett_luce.py): its winner, and
the set of bots still in play (their names sorted, comma-separated, a name twice for self-play).
Per block of stored games (game id >> shift):

* totals_block_games: games, and `changes`, raised by every change to the block (a cache of the
  block's fit holds while it is unchanged);
* totals_block_sets: how often each stage set was met;
* totals_block_wins: how many stages each bot won.

Summed over every block, they are the whole tournament's counts: the ratings. Summed over the
blocks up to each one, they are the ratings' history, by stored order. When a game id reaches
MAX_BLOCKS blocks, the trigger `totals_blocks_merge` merges the blocks two by two and doubles
their size (in the same transaction), so a million games keep between 100 and 200 blocks: about
300 rows each for 12 bots at tables of 3. A game superseded or voided leaves its block's counts
with it, as it leaves every other total (arena/results/totals.py)."""

from __future__ import annotations

from typing import Any

MAX_BLOCKS = 200  # the history's points, at most
TABLES = ("totals_blocks", "totals_block_games", "totals_block_sets", "totals_block_wins")

_BLOCK = "(ROW.id >> (SELECT shift FROM totals_blocks))"
# The names by seat as a JSON array: the text quoted whole as JSON (any quote, backslash or control
# character escaped), then split at its commas, which no name holds (results/rows.py refuses one).
_NAMES = "('[' || replace(json_quote(ROW.bots), ',', '\",\"') || ']')"
_ORDER = "('[' || ROW.finishing_order || ']')"
_NAME_AT = f"json_extract({_NAMES}, '$[' || SEAT.value || ']')"
_STAGES = f"json_each({_ORDER}) AS o WHERE o.key < json_array_length({_ORDER}) - 1"
# The set of bots in play at stage o.key: the names from there on, sorted (a subquery's order is
# the order group_concat sees; the reader sorts again, so the order only keeps rows few).
_STAGE_SET = (f"(SELECT group_concat(name, ',') FROM (SELECT {_NAME_AT.replace('SEAT.', 'r.')} AS name "
              f"FROM json_each({_ORDER}) AS r WHERE r.key >= o.key ORDER BY name))")

_CHANGE = f"""
    INSERT INTO totals_block_games VALUES ({_BLOCK}, SIGN, 1)
        ON CONFLICT (block) DO UPDATE SET games = games + excluded.games, changes = changes + 1;
    INSERT INTO totals_block_wins SELECT {_BLOCK}, {_NAME_AT.replace('SEAT.', 'o.')}, SIGN FROM {_STAGES}
        ON CONFLICT (block, bot) DO UPDATE SET stages = stages + excluded.stages;
    INSERT INTO totals_block_sets SELECT {_BLOCK}, {_STAGE_SET}, SIGN FROM {_STAGES}
        ON CONFLICT (block, stage_set) DO UPDATE SET games = games + excluded.games;"""


def _change(row: str, sign: int) -> str:
    return _CHANGE.replace("ROW.", f"{row}.").replace("SIGN", str(sign))


def _merge(table: str, key: str, sums: str) -> str:
    """Blocks two by two into one, through negative numbers (no key is met twice on the way)."""
    return f"""
    INSERT INTO {table} SELECT -1 - (block >> 1){', ' + key if key else ''}, {sums} FROM {table} WHERE block >= 0
        GROUP BY block >> 1{', ' + key if key else ''};
    DELETE FROM {table} WHERE block >= 0;
    UPDATE {table} SET block = -1 - block;"""


SCHEMA = f"""
CREATE TABLE IF NOT EXISTS totals_blocks (id INTEGER PRIMARY KEY CHECK (id = 1), shift INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS totals_block_games (block INTEGER PRIMARY KEY, games INTEGER NOT NULL,
    changes INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS totals_block_sets (block INTEGER NOT NULL, stage_set TEXT NOT NULL, games INTEGER NOT NULL,
    PRIMARY KEY (block, stage_set)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS totals_block_wins (block INTEGER NOT NULL, bot TEXT NOT NULL, stages INTEGER NOT NULL,
    PRIMARY KEY (block, bot)) WITHOUT ROWID;

CREATE TRIGGER IF NOT EXISTS totals_blocks_in AFTER INSERT ON games BEGIN {_change("NEW", 1)}
END;
CREATE TRIGGER IF NOT EXISTS totals_blocks_out AFTER DELETE ON games BEGIN {_change("OLD", -1)}
END;
CREATE TRIGGER IF NOT EXISTS totals_blocks_change AFTER UPDATE OF id, bots, finishing_order ON games BEGIN
    {_change("OLD", -1)} {_change("NEW", 1)}
END;
CREATE TRIGGER IF NOT EXISTS totals_blocks_merge AFTER INSERT ON games
    WHEN (NEW.id >> (SELECT shift FROM totals_blocks)) >= {MAX_BLOCKS} BEGIN
    UPDATE totals_blocks SET shift = shift + 1;
    {_merge("totals_block_games", "", "SUM(games), SUM(changes)")}
    {_merge("totals_block_sets", "stage_set", "SUM(games)")}
    {_merge("totals_block_wins", "bot", "SUM(stages)")}
END;
"""


def rebuild(db: Any) -> None:
    """The block counts summed again from the games (in the caller's transaction), in blocks of
    the size they had (of the size that keeps them below MAX_BLOCKS, when that is larger)."""
    kept = db.execute("SELECT shift FROM totals_blocks").fetchone()
    shift = max(kept[0] if kept else 0, shift_for(db))
    for table in TABLES:
        db.execute(f"DELETE FROM {table}")
    db.execute("INSERT INTO totals_blocks VALUES (1, ?)", (shift,))
    games, sets, wins = _summed_sql(shift)
    db.execute(f"INSERT INTO totals_block_games SELECT block, games, games FROM ({games})")
    db.execute(f"INSERT INTO totals_block_sets {sets}")
    db.execute(f"INSERT INTO totals_block_wins {wins}")


def _summed_sql(shift: int) -> tuple[str, str, str]:
    """SELECTs of the three counts summed from the games in blocks of 2^shift ids: the stages of
    each distinct (bots, finishing order), a few thousand, joined to the games counted by it and
    block (a walk of the index games_orders), rather than every game's stages worked out."""
    stages = (f"WITH pairs AS (SELECT DISTINCT bots, finishing_order FROM games), "
              f"stage_of AS (SELECT p.bots, p.finishing_order, {_NAME_AT.replace('SEAT.', 'o.')} AS winner, "
              f"{_STAGE_SET} AS stage_set FROM pairs AS p, {_STAGES}), "
              f"counted AS (SELECT bots, finishing_order, id >> {shift} AS block, COUNT(*) AS n FROM games "
              f"GROUP BY bots, finishing_order, block) ").replace("ROW.", "p.")
    joined = "FROM counted c JOIN stage_of s ON s.bots = c.bots AND s.finishing_order = c.finishing_order"
    return (f"SELECT id >> {shift} AS block, COUNT(*) AS games FROM games GROUP BY 1 ORDER BY 1",
            f"{stages} SELECT c.block, s.stage_set, SUM(c.n) {joined} GROUP BY 1, 2",
            f"{stages} SELECT c.block, s.winner, SUM(c.n) {joined} GROUP BY 1, 2")


def present(db: Any) -> bool:
    """Whether the file keeps the block counts (schema version 3 on)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'totals_block_sets'").fetchone() is not None


def block_changes(db: Any) -> list[tuple[int, int, int]]:
    """(block, games, changes) of every block, in stored order."""
    return db.execute("SELECT block, games, changes FROM totals_block_games ORDER BY block").fetchall()


def block_counts(db: Any, blocks: list[int]) -> tuple[list[tuple[int, str, int]], list[tuple[int, str, int]]]:
    """The stage sets (block, set, games) and stage wins (block, bot, stages) of `blocks`, none zero."""
    if not blocks:
        return [], []
    low = min(blocks)
    sets = db.execute("SELECT block, stage_set, games FROM totals_block_sets WHERE block >= ? AND games != 0",
                      (low,)).fetchall()
    wins = db.execute("SELECT block, bot, stages FROM totals_block_wins WHERE block >= ? AND stages != 0",
                      (low,)).fetchall()
    wanted = set(blocks)
    return [row for row in sets if row[0] in wanted], [row for row in wins if row[0] in wanted]


def summed_counts(db: Any, shift: int) -> tuple[list[tuple[int, int, int]], list[tuple[int, str, int]],
                                                 list[tuple[int, str, int]]]:
    """The same three, summed from the games (a file of an older schema, read as it is), in blocks of 2^shift ids."""
    games, sets, wins = _summed_sql(shift)
    return ([(block, count, 0) for block, count in db.execute(games)], db.execute(sets).fetchall(),
            db.execute(wins).fetchall())


def shift_for(db: Any) -> int:
    """The block size (2^shift game ids) that keeps the stored games in fewer than MAX_BLOCKS blocks."""
    (last,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()
    shift = 0
    while last >> shift >= MAX_BLOCKS:
        shift += 1
    return shift


__all__ = ["MAX_BLOCKS", "TABLES", "SCHEMA", "rebuild", "present", "block_changes", "block_counts", "summed_counts",
           "shift_for"]
