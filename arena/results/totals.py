"""Totals kept beside the games, so that a report reads a few thousand rows, not every game.

Each total is kept by SQL triggers on the rows it sums, in the same transaction as the change:
a game stored, superseded, voided on request, or a row edited by hand all keep them exact, and a
killed run leaves them as whole as its games. On a million games the standings' aggregates over
the games took 4.4 s from a cold file; these tables hold about ten thousand rows.

* totals_orders: games by (bots by seat, finishing order): the head-to-head.
* totals_places, totals_seat_places: games by (bot, place) and by (seat, place): games, wins,
  skitgubbe and places by seat without reading the orders (the live board needs no head-to-head).
* totals_deal_sets: per bot and deal-set size n (seat-games of one bot at one table and deal),
  how many such deal sets, and the sum and sum of squares of their points: integers, so no
  rounding drifts as games come and go. A deal set's mean is points / n, so the interval's
  sums are sum(points) / n and sum(squares) / n^2 over the sizes (results/standings.py).
* totals_deals: per bot and deal, points and seat-games over every table (the SPRT's sums).
* totals_faults: per bot and kind, faults (every kind; the reports leave out the uncounted).
* totals_games: the games and the games ended by the move cap.
* totals_block_*: the ratings' counts per block of stored games (arena/results/rating_totals.py).

Files of schema version 1 have none, and files of version 2 none of the block counts: a run adds
them once it holds the file (ResultStore.upgrade, database.migrate); until then their reports sum
the games the old way (standings_sql.py, ratings_read.py)."""

from __future__ import annotations

import sqlite3
from typing import Any

from arena.results import rating_totals

TABLES = ("totals_orders", "totals_places", "totals_seat_places", "totals_deal_sets", "totals_deals", "totals_faults",
          "totals_games", *rating_totals.TABLES)

# One deal set's points and seat-games after a seat row came or went (bot, table, deal of `ROW`).
_DEAL_SET = ("(SELECT COUNT(*) AS n, COALESCE(SUM(points), 0) AS p FROM seat_results "
             "WHERE bot = ROW.bot AND table_no = ROW.table_no AND deal = ROW.deal)")
_BUCKET_UPSERT = ("ON CONFLICT (bot, seats) DO UPDATE SET sets = sets + excluded.sets, points = points + excluded.points, "
                  "squares = squares + excluded.squares")

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS totals_orders (bots TEXT NOT NULL, finishing_order TEXT NOT NULL, games INTEGER NOT NULL,
    PRIMARY KEY (bots, finishing_order)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS totals_places (bot INTEGER NOT NULL, place INTEGER NOT NULL, games INTEGER NOT NULL,
    PRIMARY KEY (bot, place)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS totals_seat_places (seat INTEGER NOT NULL, place INTEGER NOT NULL, games INTEGER NOT NULL,
    PRIMARY KEY (seat, place)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS totals_deal_sets (bot INTEGER NOT NULL, seats INTEGER NOT NULL, sets INTEGER NOT NULL,
    points INTEGER NOT NULL, squares INTEGER NOT NULL, PRIMARY KEY (bot, seats)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS totals_deals (bot INTEGER NOT NULL, deal INTEGER NOT NULL, points INTEGER NOT NULL,
    seats INTEGER NOT NULL, PRIMARY KEY (bot, deal)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS totals_faults (bot INTEGER NOT NULL, kind TEXT NOT NULL, faults INTEGER NOT NULL,
    PRIMARY KEY (bot, kind)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS totals_games (id INTEGER PRIMARY KEY CHECK (id = 1), games INTEGER NOT NULL,
    capped INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS games_finished_at ON games (finished_at);

CREATE TRIGGER IF NOT EXISTS totals_game_in AFTER INSERT ON games BEGIN
    INSERT INTO totals_orders VALUES (NEW.bots, NEW.finishing_order, 1)
        ON CONFLICT (bots, finishing_order) DO UPDATE SET games = games + 1;
    INSERT INTO totals_games VALUES (1, 1, NEW.reason = 'capped')
        ON CONFLICT (id) DO UPDATE SET games = games + 1, capped = capped + excluded.capped;
END;
CREATE TRIGGER IF NOT EXISTS totals_game_out AFTER DELETE ON games BEGIN
    UPDATE totals_orders SET games = games - 1 WHERE bots = OLD.bots AND finishing_order = OLD.finishing_order;
    UPDATE totals_games SET games = games - 1, capped = capped - (OLD.reason = 'capped');
END;
CREATE TRIGGER IF NOT EXISTS totals_game_change AFTER UPDATE OF bots, finishing_order, reason ON games BEGIN
    UPDATE totals_orders SET games = games - 1 WHERE bots = OLD.bots AND finishing_order = OLD.finishing_order;
    INSERT INTO totals_orders VALUES (NEW.bots, NEW.finishing_order, 1)
        ON CONFLICT (bots, finishing_order) DO UPDATE SET games = games + 1;
    UPDATE totals_games SET capped = capped - (OLD.reason = 'capped') + (NEW.reason = 'capped');
END;

CREATE TRIGGER IF NOT EXISTS totals_seat_in AFTER INSERT ON seat_results BEGIN
    UPDATE totals_deal_sets SET sets = sets - 1, points = points - (d.p - NEW.points),
        squares = squares - (d.p - NEW.points) * (d.p - NEW.points)
        FROM {_DEAL_SET.replace("ROW.", "NEW.")} AS d WHERE bot = NEW.bot AND seats = d.n - 1;
    INSERT INTO totals_deal_sets SELECT NEW.bot, d.n, 1, d.p, d.p * d.p FROM {_DEAL_SET.replace("ROW.", "NEW.")} AS d
        WHERE true {_BUCKET_UPSERT};
    INSERT INTO totals_deals VALUES (NEW.bot, NEW.deal, NEW.points, 1)
        ON CONFLICT (bot, deal) DO UPDATE SET points = points + excluded.points, seats = seats + 1;
    INSERT INTO totals_places VALUES (NEW.bot, NEW.place, 1) ON CONFLICT (bot, place) DO UPDATE SET games = games + 1;
    INSERT INTO totals_seat_places VALUES (NEW.seat, NEW.place, 1)
        ON CONFLICT (seat, place) DO UPDATE SET games = games + 1;
END;
CREATE TRIGGER IF NOT EXISTS totals_seat_out AFTER DELETE ON seat_results BEGIN
    UPDATE totals_deal_sets SET sets = sets - 1, points = points - (d.p + OLD.points),
        squares = squares - (d.p + OLD.points) * (d.p + OLD.points)
        FROM {_DEAL_SET.replace("ROW.", "OLD.")} AS d WHERE bot = OLD.bot AND seats = d.n + 1;
    INSERT INTO totals_deal_sets SELECT OLD.bot, d.n, 1, d.p, d.p * d.p FROM {_DEAL_SET.replace("ROW.", "OLD.")} AS d
        WHERE d.n > 0 {_BUCKET_UPSERT};
    UPDATE totals_deals SET points = points - OLD.points, seats = seats - 1 WHERE bot = OLD.bot AND deal = OLD.deal;
    UPDATE totals_places SET games = games - 1 WHERE bot = OLD.bot AND place = OLD.place;
    UPDATE totals_seat_places SET games = games - 1 WHERE seat = OLD.seat AND place = OLD.place;
END;

CREATE TRIGGER IF NOT EXISTS totals_fault_in AFTER INSERT ON faults BEGIN
    INSERT INTO totals_faults VALUES (NEW.bot, NEW.kind, 1) ON CONFLICT (bot, kind) DO UPDATE SET faults = faults + 1;
END;
CREATE TRIGGER IF NOT EXISTS totals_fault_out AFTER DELETE ON faults BEGIN
    UPDATE totals_faults SET faults = faults - 1 WHERE bot = OLD.bot AND kind = OLD.kind;
END;
""" + rating_totals.SCHEMA


def present(db: Any) -> bool:
    """Whether the file keeps the standings' totals (schema version 2 on; version 3 also the
    ratings' block counts, rating_totals.present)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'totals_places'").fetchone() is not None


def create(db: Any) -> None:
    """The tables, the triggers that keep them, and their sums of the games already stored (in the
    caller's transaction): a results file of schema version 1 becomes one of version 3."""
    for statement in statements(SCHEMA):
        db.execute(statement)
    rebuild(db)


def rebuild(db: Any) -> None:
    """Every total summed again from the games (in the caller's transaction)."""
    for table in TABLES:
        db.execute(f"DELETE FROM {table}")
    rating_totals.rebuild(db)
    db.execute("INSERT INTO totals_orders SELECT bots, finishing_order, COUNT(*) FROM games GROUP BY bots, finishing_order")
    db.execute("INSERT INTO totals_places SELECT bot, place, COUNT(*) FROM seat_results GROUP BY bot, place")
    db.execute("INSERT INTO totals_seat_places SELECT seat, place, COUNT(*) FROM seat_results GROUP BY seat, place")
    db.execute("INSERT INTO totals_deal_sets SELECT bot, n, COUNT(*), SUM(p), SUM(p * p) FROM (SELECT bot, COUNT(*) AS n, "
               "SUM(points) AS p FROM seat_results GROUP BY bot, table_no, deal) GROUP BY bot, n")
    db.execute("INSERT INTO totals_deals SELECT bot, deal, SUM(points), COUNT(*) FROM seat_results GROUP BY bot, deal")
    db.execute("INSERT INTO totals_faults SELECT bot, kind, COUNT(*) FROM faults GROUP BY bot, kind")
    db.execute("INSERT INTO totals_games SELECT 1, COUNT(*), COUNT(CASE WHEN reason = 'capped' THEN 1 END) FROM games")


def statements(script: str) -> list[str]:
    """The statements of `script` (a trigger's body, with its inner `;`, kept whole)."""
    out, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    return out


__all__ = ["TABLES", "SCHEMA", "present", "create", "rebuild", "statements"]
