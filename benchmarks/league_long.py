"""Does a league slow down as it goes on? Its pace and its board after many tables played.

    .venv/bin/python benchmarks/league_long.py                     # 0, 20,000 and 200,000 tables
    .venv/bin/python benchmarks/league_long.py --tables 0 1000000 --games 120

A league of five copies of random_bot (benchmarks/server.py's), its bots checked and past its
first 30 games. Then, for each --tables count in turn, the league's table of tables
(results/league_queue.py) is filled up to that many played tables, each three of the five bots at
random, as a league that has run for days has them (a class league at 100 games a minute plays
about 24,000 tables a day; the tables are added without their games, which the standings keep
counted apart, in totals). At each count:
- pace: `arena tournament run CONFIG --games G` (--games, default 300: 50 tables), timed from its
  start to its end, in games per minute (its start-up, about 2 s, is in it alike at each count);
- board: the live board's standings (`TournamentResults.standings`, what the server's board and
  `arena standings` read first), the best of 5, in ms.
The last line reads `league_long: games per minute at T tables: ...; board ms at T tables: ...`.
Goal: neither moves with the tables played (a league that keeps playing is as fast in its second
week as in its first hour)."""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import BOTS, arena, prepare_league  # noqa: E402  the same league as the server's benchmark

from arena.results.league_queue import PLAYED, LeagueTable, league_tables, queue_tables  # noqa: E402
from arena.results.store import ResultStore  # noqa: E402
from arena.tournament.results import TournamentResults  # noqa: E402


def add_played_tables(database: Path, up_to: int, rng: random.Random) -> int:
    """The league's tables made `up_to` in number, the added ones played; how many there are."""
    with ResultStore(database) as store:
        known = league_tables(store)
        first = known[-1].number + 1 if known else 0
        added = [LeagueTable(first + i, tuple(rng.sample(BOTS, 3)), "information", "added by the benchmark")
                 for i in range(max(0, up_to - len(known)))]
        for start in range(0, len(added), 50_000):
            queue_tables(store, added[start:start + 50_000])
        with store._write() as db:  # the benchmark's own shortcut: a table's status set as end_table would
            db.execute("UPDATE league_tables SET status = ? WHERE number >= ?", (PLAYED, first))
        return len(known) + len(added)


def board_ms(config: Path) -> float:
    results = TournamentResults.open(config)
    try:
        best = float("inf")
        for _ in range(5):
            started = time.perf_counter()
            results.standings(with_history=False)
            best = min(best, time.perf_counter() - started)
        return best * 1000
    finally:
        results.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[0, 20_000, 200_000])
    parser.add_argument("--games", type=int, default=300, help="games each timed run plays")
    args = parser.parse_args()
    rng = random.Random(7)
    pace, board = [], []
    with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        folder = Path(tmp) / "league"
        config = prepare_league(folder, env)
        for wanted in sorted(args.tables):
            tables = add_played_tables(folder / "league.sqlite", wanted, rng)
            board.append((tables, board_ms(config)))
            started = time.perf_counter()
            ran = arena("tournament", "run", str(config), "--games", str(args.games), cwd=folder, env=env)
            if ran.returncode != 0:
                raise SystemExit(f"the league's run failed:\n{ran.stdout}{ran.stderr}")
            pace.append((tables, args.games * 60 / (time.perf_counter() - started)))
            print(f"{tables} tables: {pace[-1][1]:.0f} games per minute, board {board[-1][1]:.1f} ms", flush=True)
    print("league_long: games per minute at T tables: " + ", ".join(f"{t}: {p:.0f}" for t, p in pace)
          + "; board ms at T tables: " + ", ".join(f"{t}: {ms:.1f}" for t, ms in board))


if __name__ == "__main__":
    main()
