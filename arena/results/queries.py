"""The figures other layers read from a results store, each one SQL aggregate in one read
transaction, returned as named values: the SQL stays in arena/results/, and a caller (the
reports, the SPRT's waves) never sees a table or a column. The standings' own aggregates are in
standings_sql.py; store.py keeps the connection and its transactions."""

from __future__ import annotations

from dataclasses import dataclass

from arena.results import totals
from arena.results.store import ResultStore


@dataclass(frozen=True, slots=True)
class GamesSummary:
    """The current games of a store as a whole, for the tournament's facts."""

    first_finished_at: float | None  # time.time() when the first stored game ended; None with no games
    last_finished_at: float | None
    capped_games: int  # games ended by the move cap (reason "capped")
    games: int


@dataclass(frozen=True, slots=True)
class DealPoints:
    """What one bot scored over one deal: every seat it held in that deal's games, at every table."""

    bot: str
    deal: int
    points: int  # summed over those seats
    seats: int  # seat-games: a bot at two seats of one game counts twice


def games_summary(store: ResultStore) -> GamesSummary:
    """First and last finishing times, capped games and games, of the current (not superseded) games."""
    with store._read() as db:
        if totals.present(db):  # kept: two ends of an index and one row
            first_at, last_at = db.execute("SELECT (SELECT MIN(finished_at) FROM games), "
                                           "(SELECT MAX(finished_at) FROM games)").fetchone()
            capped, games = db.execute("SELECT capped, games FROM totals_games").fetchone() or (0, 0)
        else:
            first_at, last_at, capped, games = db.execute(
                "SELECT MIN(finished_at), MAX(finished_at), COUNT(CASE WHEN reason = 'capped' THEN 1 END), COUNT(*) "
                "FROM games").fetchone()
    return GamesSummary(first_at, last_at, capped, games)


def points_by_deal(store: ResultStore) -> list[DealPoints]:
    """Each bot's points and seats per deal over the current games (kept in totals_deals, or summed
    from seat_results in a file without totals), one row per bot and deal, in no particular order."""
    with store._read() as db:
        if totals.present(db):
            rows = db.execute("SELECT b.name, t.deal, t.points, t.seats FROM totals_deals t JOIN bots b ON b.id = t.bot "
                              "WHERE t.seats > 0").fetchall()
        else:
            rows = db.execute("SELECT b.name, s.deal, SUM(s.points), COUNT(*) FROM seat_results s "
                              "JOIN bots b ON b.id = s.bot GROUP BY s.bot, s.deal").fetchall()
    return [DealPoints(name, deal, points, seats) for name, deal, points, seats in rows]


__all__ = ["GamesSummary", "DealPoints", "games_summary", "points_by_deal"]
