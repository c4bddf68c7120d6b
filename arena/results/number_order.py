"""Stored games in game-number order, found by an index rather than by reading every row.

A layout's game numbers (arena/schedule/numbers.py) grow with one SQL expression of a game's
table, deal and seating that does not depend on how many tables or deals there are: the pairing
for PAIRED, (deal, table, seating) for BY_DEAL, (table, deal, seating) for BY_TABLE. An index on
that expression lets `ORDER BY` walk the games in number order and stop after a page."""

from __future__ import annotations

from typing import Any

from arena.schedule.numbers import BY_DEAL, BY_TABLE, PAIRED

# The ORDER BY of each layout, written as the index is (SQLite uses an index on an expression
# only for the same expression): arena/schedule/numbers.py's pair_index, then the seating.
ORDER_BY = {
    PAIRED: "(CASE WHEN table_no < deal THEN deal * deal + table_no ELSE table_no * table_no + table_no + deal END), "
            "seating",
    BY_DEAL: "deal, table_no, seating",
    BY_TABLE: "table_no, deal, seating",
}
INDEX = "games_by_number"


def layout_of(fingerprint: dict | None) -> str:
    """The layout a stored fingerprint numbers its games by: the first arenas' fingerprints name
    none (BY_TABLE); results with no fingerprint yet are new ones (PAIRED)."""
    if fingerprint is None:
        return PAIRED
    layout = fingerprint.get("game_numbers", BY_TABLE)
    return layout if layout in ORDER_BY else BY_TABLE


def create_index(db: Any, layout: str) -> None:
    """The index that walks `games` in `layout`'s number order (in the caller's transaction); one
    made for another layout is replaced."""
    wanted = f"CREATE INDEX {INDEX} ON games ({ORDER_BY[layout]})"
    found = db.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", (INDEX,)).fetchone()
    if found is not None and found[0] == wanted:
        return
    if found is not None:
        db.execute(f"DROP INDEX {INDEX}")
    db.execute(wanted)


__all__ = ["ORDER_BY", "INDEX", "layout_of", "create_index"]
