"""Standings speed on a big results database, and the database's size per 1,000 games.

    .venv/bin/python benchmarks/standings.py                 # 1,000,000 games (building takes a minute or two)
    .venv/bin/python benchmarks/standings.py --games 50000   # smaller
    .venv/bin/python benchmarks/standings.py --db big.db --keep   # reuse/keep the file

Synthetic but realistic rows: a 12-entry round robin at tables of 3 (220 tables, six
seatings per deal, as many deals as needed), each game taking the outcome, points,
move count and (compressed) transcript of one of a few hundred real random games;
about 1% of games carry a fault. Rows go in through `ResultStore.add_encoded` in
transactions of 20,000 games. Goal: standings of 1,000,000 games in under 5 s, both
cold (the file's pages dropped from the OS cache first) and warm (best and worst of
--repeat runs after it).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.game import Rules, game_points  # noqa: E402
from arena.play.records import Fault, FaultKind, GameRecord  # noqa: E402
from arena.schedule.games import table_games  # noqa: E402
from arena.play.selfplay import play_random_game  # noqa: E402
from arena.results.standings_sql import compute_standings  # noqa: E402
from arena.results.store import ResultStore  # noqa: E402
from arena.results.rows import compress_transcript, encode_game  # noqa: E402

ENTRIES = [f"bot{i:02d}" for i in range(12)]


def templates(count: int, rules: Rules):
    out = []
    for i in range(count):
        game = play_random_game(rules, 1000 + i, i % 3)
        out.append((game.outcome, game.transcript, compress_transcript(game.transcript), game_points(game.outcome, rules), len(game.moves)))
    return out


def specs(games: int):
    import itertools

    combos = list(itertools.combinations(ENTRIES, 3))
    per_deal = len(combos) * 6
    deals = math.ceil(games / per_deal)
    made = 0
    for deal in range(deals):  # deal-major order: every table advances together, as with many workers
        for index, combo in enumerate(combos):
            for spec in table_games(index, combo, deal + 1, 42)[deal * 6:]:
                if made == games:
                    return
                made += 1
                yield spec


def build(store: ResultStore, games: int, batch: int = 20_000) -> float:
    rules = Rules()
    tpl = templates(300, rules)
    rng = random.Random(7)
    started = time.perf_counter()
    pending = []
    think = ((0.004, 0.006, 0.010),) * 3
    kinds = list(FaultKind)
    for spec in specs(games):
        outcome, transcript, blob, points, moves = tpl[rng.randrange(len(tpl))]
        faults = ()
        if rng.random() < 0.01:
            faults = (Fault(rng.randrange(3), kinds[rng.randrange(len(kinds))], "synthetic fault", rng.randrange(moves or 1)),)
        record = GameRecord(1, spec.bots, outcome, transcript, points, faults, think, moves)
        pending.append(encode_game(spec, record, {"move_timeout_s": 2.0}, transcript_blob=blob))
        if len(pending) >= batch:
            store.add_encoded(pending)
            pending.clear()
    if pending:
        store.add_encoded(pending)
    return time.perf_counter() - started


def forget_cached_pages(path: Path) -> bool:
    """Write the database out and ask the OS to drop its cached pages, so that the next read
    comes from disk, as after a reboot. A build of a million games leaves hundreds of MB of
    dirty pages behind; timed before they are written, the first run measured the writeback.
    False where the OS offers no such call."""
    if not hasattr(os, "posix_fadvise"):
        return False
    for file in (path, Path(str(path) + "-wal")):
        if file.exists():
            fd = os.open(file, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--db", type=Path, default=None, help="database file (default: a temporary file)")
    parser.add_argument("--keep", action="store_true", help="keep the database file")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    path = args.db or Path(tempfile.mkdtemp(prefix="arena-bench-")) / "results.db"
    store = ResultStore(path)
    have = store.game_count()
    if have < args.games:
        print(f"building {args.games - have:,} games in {path} ...", flush=True)
        if have:
            raise SystemExit(f"{path} already holds {have} games; use a fresh file")
        took = build(store, args.games)
        print(f"  inserted {args.games:,} games in {took:.1f} s ({args.games / took:,.0f} games/s)")
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    games = store.game_count()
    size = sum(os.path.getsize(p) for p in [path, Path(str(path) + "-wal")] if p.exists())
    print(f"database: {games:,} games, {size / 1e6:.1f} MB, {size / games * 1000 / 1e6:.3f} MB per 1,000 games")
    cold_s = None
    if forget_cached_pages(path):
        started = time.perf_counter()
        compute_standings(store, ENTRIES)
        cold_s = time.perf_counter() - started
    times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        standings = compute_standings(store, ENTRIES)
        times.append(time.perf_counter() - started)
    worst_s = max(times + [cold_s or 0.0])
    cold = f"cold (file out of the OS cache) {cold_s:.2f} s, " if cold_s is not None else "cold: not measured, "
    print(f"standings of {standings.games:,} games: {cold}warm best {min(times):.2f} s, worst {max(times):.2f} s "
          f"over {args.repeat} runs (goal < 5 s){'  OK' if worst_s < 5 else '  TOO SLOW'}")
    top = standings.bots[0]
    print(f"  leader {top.bot}: {top.points} points, {top.points_per_game:.3f} ± {top.ci95_half_width:.3f} per game, "
          f"{len(standings.timeline)} timeline points, {sum(standings.faults_by_kind.values())} faults")
    store.close()
    if args.db is None and not args.keep:
        for p in path.parent.iterdir():
            p.unlink()
        path.parent.rmdir()


if __name__ == "__main__":
    main()
