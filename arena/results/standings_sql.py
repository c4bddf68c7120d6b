"""Standings of a results store in one read snapshot, from the totals it keeps (arena/results/
totals.py: a few thousand rows for a million games), or summed in SQL from the games of a file
without them: the same maths as `standings_from_rows` in arena/results/standings.py, which ranks all."""

from __future__ import annotations

import json
from collections import Counter
from typing import Sequence

from arena.play.records import NOT_COUNTED_FAULTS
from arena.results import totals
from arena.results.standings import Standings, Tally, ranked_standings
from arena.results.store import ResultStore


def compute_standings(store: ResultStore, entries: Sequence[str] | None = None, by_points_per_game: bool = False,
                      head_to_head: bool = True) -> Standings:
    """Standings of every game in `store`, in one read snapshot, from the totals the file keeps
    (arena/results/totals.py), or, in a file of schema version 1 opened to read, aggregated from
    the games; without `head_to_head` (the live board, which shows none) its table stays empty
    where the file keeps totals."""
    agg = Tally()
    with store._read() as db:
        names = dict(db.execute("SELECT id, name FROM bots"))
        kept = totals.present(db)
        if kept:
            _places_kept(db, agg, names)
            if head_to_head:
                _head_to_head(agg, db.execute("SELECT bots, finishing_order, games FROM totals_orders WHERE games > 0"))
            _deal_sets_kept(db, agg, names)
        else:
            _add_orders(agg, db.execute("SELECT bots, finishing_order, COUNT(*) FROM games GROUP BY bots, finishing_order"))
            _deal_sets_summed(db, agg, names)
        faults = (db.execute("SELECT bot, kind, faults FROM totals_faults WHERE faults > 0") if kept else
                  db.execute("SELECT bot, kind, COUNT(*) FROM faults GROUP BY bot, kind"))
        for bot, kind, count in faults:
            if kind in NOT_COUNTED_FAULTS:
                continue
            b = agg.bot(names[bot])
            # Counted here, by kind, not from seat_results.faults: files written before `dead`
            # moves were left out of that column still hold them there.
            b.faults_by_kind[kind] = count
            b.faults += count
            agg.faults_by_kind[kind] = agg.faults_by_kind.get(kind, 0) + count
        last_extra = db.execute("SELECT extra FROM games ORDER BY id DESC LIMIT 1").fetchone()
    if last_extra is not None:
        versions = json.loads(last_extra[0]).get("versions") or {}
        for name, version in versions.items():
            if name in agg.bots:
                agg.bots[name].version = str(version)
    return ranked_standings(agg, entries, by_points_per_game)


def _add_orders(agg: Tally, orders) -> None:
    """Games by (bots by seat, finishing order, count), in a file without kept totals: games,
    places, wins, skitgubbe, places by seat and head-to-head."""
    for bots, order, count in orders:
        by_seat = bots.split(",")
        seats = [int(x) for x in order.split(",")]
        agg.add_order(by_seat, seats, count)
        agg.games += count
        agg.n = max(agg.n, len(seats))
        for place, seat in enumerate(seats, start=1):
            b = agg.bot(by_seat[seat])
            b.games += count
            b.places[place - 1] += count
            if place == 1:
                b.wins += count
            if place == len(seats):
                b.skitgubbe += count


def _places_kept(db, agg: Tally, names: dict[int, str]) -> None:
    """Games, places, wins, skitgubbe and places by seat from the kept counts by place."""
    (agg.games,) = db.execute("SELECT games FROM totals_games").fetchone() or (0,)
    by_seat = db.execute("SELECT seat, place, games FROM totals_seat_places WHERE games > 0").fetchall()
    agg.n = max((place for _, place, _ in by_seat), default=0)
    agg.places_by_seat = [[0] * 5 for _ in range(max((seat + 1 for seat, _, _ in by_seat), default=0))]
    for seat, place, count in by_seat:
        agg.places_by_seat[seat][place - 1] += count
    for bot, place, count in db.execute("SELECT bot, place, games FROM totals_places WHERE games > 0"):
        b = agg.bot(names[bot])
        b.games += count
        b.places[place - 1] += count
        if place == 1:
            b.wins += count
        if place == agg.n:
            b.skitgubbe += count


def _head_to_head(agg: Tally, orders) -> None:
    """The head-to-head of games by (bots by seat, finishing order, count), as `Tally.add_order` counts it."""
    ahead: Counter = Counter()  # (a, b) -> games a finished ahead of b
    for bots_text, order_text, count in orders:
        names = bots_text.split(",")
        finished = [names[int(seat)] for seat in order_text.split(",")]
        for place, name in enumerate(finished):
            for later in finished[place + 1:]:
                ahead[(name, later)] += count
    for (a, b), count in ahead.items():
        ab, ba = agg.h2h.setdefault((a, b), [0, 0]), agg.h2h.setdefault((b, a), [0, 0])
        ab[0] += count
        ab[1] += count
        ba[0] += count


def _deal_sets_kept(db, agg: Tally, names: dict[int, str]) -> None:
    """Points and the deal-set sums of the interval from the kept sizes: a deal set of n seat-games
    with p points has mean p / n, so the means add up to sum(p) / n and their squares to
    sum(p^2) / n^2 over each size."""
    for bot, seats, sets, points, squares in db.execute(
            "SELECT bot, seats, sets, points, squares FROM totals_deal_sets WHERE sets > 0 ORDER BY bot, seats"):
        b = agg.bot(names[bot])
        b.k += sets
        b.s1 += points / seats
        b.s2 += squares / (seats * seats)
        b.points += points


def _deal_sets_summed(db, agg: Tally, names: dict[int, str]) -> None:
    """The same sums from every seat row (a file without kept totals)."""
    for bot, k, s1, s2, points in db.execute(
        "SELECT bot, COUNT(*), SUM(m), SUM(m * m), SUM(s) FROM "
        "(SELECT bot, AVG(points) AS m, SUM(points) AS s FROM seat_results GROUP BY bot, table_no, deal) GROUP BY bot"
    ):
        b = agg.bot(names[bot])
        b.k, b.s1, b.s2, b.points = k, s1, s2, points
