"""Standings of a results store, aggregated in SQL in one read snapshot (fast on a million games):
the same maths as `standings_from_rows` in arena/results/standings.py, which ranks both."""

from __future__ import annotations

import json
from typing import Sequence

from arena.play.records import NOT_COUNTED_FAULTS
from arena.results.standings import Standings, Tally, ranked_standings, sample_positions
from arena.results.store import ResultStore


def compute_standings(store: ResultStore, entries: Sequence[str] | None = None, by_points_per_game: bool = False,
                      timeline: bool = True) -> Standings:
    """Standings of every game in `store`, aggregated in SQL in one read snapshot;
    `timeline`: sample cumulative points in stored order (the reports take theirs in game-number
    order from arena/results/ratings.py instead).

    Three scans carry the work, each of a compact index rather than the wide games table:
    finishing orders grouped by bots (games, places, wins, skitgubbe, head-to-head, places
    by seat), deal-set sums per bot (points and the interval), and faults by kind.
    """
    agg = Tally()
    with store._read() as db:
        names = dict(db.execute("SELECT id, name FROM bots"))
        for bots, order, count in db.execute("SELECT bots, finishing_order, COUNT(*) FROM games GROUP BY bots, finishing_order"):
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
        for bot, k, s1, s2, points in db.execute(
            "SELECT bot, COUNT(*), SUM(m), SUM(m * m), SUM(s) FROM "
            "(SELECT bot, AVG(points) AS m, SUM(points) AS s FROM seat_results GROUP BY bot, table_no, deal) GROUP BY bot"
        ):
            b = agg.bot(names[bot])
            b.k, b.s1, b.s2, b.points = k, s1, s2, points
        for bot, kind, count in db.execute("SELECT bot, kind, COUNT(*) FROM faults GROUP BY bot, kind"):
            if kind in NOT_COUNTED_FAULTS:
                continue
            b = agg.bot(names[bot])
            # Counted here, by kind, not from seat_results.faults: files written before `dead`
            # moves were left out of that column still hold them there.
            b.faults_by_kind[kind] = count
            b.faults += count
            agg.faults_by_kind[kind] = agg.faults_by_kind.get(kind, 0) + count
        last_extra = db.execute("SELECT extra FROM games ORDER BY id DESC LIMIT 1").fetchone()
        agg.timeline = _sql_timeline(db, names, agg) if timeline else []
    if last_extra is not None:
        versions = json.loads(last_extra[0]).get("versions") or {}
        for name, version in versions.items():
            if name in agg.bots:
                agg.bots[name].version = str(version)
    return ranked_standings(agg, entries, by_points_per_game)


def _sql_timeline(db, names: dict[int, str], agg: Tally) -> list[tuple[int, dict[str, int]]]:
    """Cumulative points per bot after each sampled game count, by range scans of seat_results' key."""
    positions = sample_positions(agg.games)
    if not positions:
        return []
    first, last = db.execute("SELECT MIN(id), MAX(id) FROM games").fetchone()
    if last - first + 1 == agg.games:
        # Games are numbered on insert and never deleted, so ids are normally gapless: the
        # k-th game is first + k - 1 and a million ids need not be read just to find 200.
        id_at = [first + position - 1 for position in positions]
    else:  # gaps (a file edited by hand, say): read the ids in order
        ids = db.execute("SELECT id FROM games ORDER BY id").fetchall()
        id_at = [ids[position - 1][0] for position in positions]
    bot_ids = [bid for bid in names if names[bid] in agg.bots]
    cumulative = {names[bid]: 0 for bid in bot_ids}
    timeline = []
    low = 0
    query = "SELECT SUM(points) FROM seat_results WHERE bot = ? AND game_id > ? AND game_id <= ?"
    for position, high in zip(positions, id_at):
        for bid in bot_ids:
            got = db.execute(query, (bid, low, high)).fetchone()[0]
            if got:
                cumulative[names[bid]] += got
        timeline.append((position, dict(cumulative)))
        low = high
    return timeline
