"""What `arena standings` and the other read commands cost on a big results database, in the worst
state a file is read in: a tournament stopped part-way whose games were stored out of game order
(issue 40; first measured for issue 34).

    .venv/bin/python benchmarks/standings.py                 # 1,000,000 games (building takes minutes)
    .venv/bin/python benchmarks/standings.py --games 200000  # smaller
    .venv/bin/python benchmarks/standings.py --db big.db --keep   # reuse/keep the file

The database: synthetic but realistic rows of a 12-entry round robin at tables of 3 (220 tables,
six seatings a deal, seed 42), each game taking the transcript, move count and faults of one of a
few hundred real random games, and a finishing order drawn from a Plackett-Luce model of twelve
strengths (so that the ratings have something to find); about 1% of games carry a fault. The
config schedules half as many games again as are stored. The games are stored as a run of eight
workers stores them: each takes the next table and plays all its deals, one game after another,
the eight side by side; the run stops after --games. So most tables are complete, eight are half
played, the rest not started; bots differ in games played; and game numbers (paired: deal by deal
across tables) come far out of order. Rows go in through `ResultStore.add_encoded` in transactions
of 20,000 games; then the index of game numbers a run makes when it first stores the tournament's
fingerprint (arena/results/number_order.py), which `arena games` walks.

Everything is read through the results object, `TournamentResults` (arena/tournament/results.py),
as the commands and the live board read it. The measurements run on a copy of the file (the
refresh adds games to it):
- standings: `TournamentResults.standings(with_history=True)` (what `arena standings` calls: the
  kept totals, the ratings' fit and its history, the facts, and the history JSON adds), then the
  result rendered in every format (json, csv, markdown, html, the terminal report), timed together
  as "all formats". Cold: in a fresh process, as a user's command, with the file's pages dropped
  from the OS cache first (goal < 2 s). Warm: best of --repeat runs in this process, each with a
  new results object (goal < 0.5 s).
- peak memory: the peak RSS of that fresh process (/proc's VmHWM, else getrusage's ru_maxrss):
  interpreter, imports, SQLite's cache and the Python heap (goal < 100 MB).
- refresh: a live-board refresh mid-run (`standings(head_to_head=False, completeness=...)` of the
  run's own results object, as arena/report/live.py's `_refresh_board` calls it) after 1,000 more
  games, the previous refresh having left the file in the OS cache; best and worst of REFRESHES,
  each after its own 1,000 (goal < 20 ms).
- `arena games` (its default first page of 100 games), `arena replay` of one game, and the SPRT
  state of a gauntlet with stop = "sprt", each once (goal < 1 s each).
- the fit alone: the Plackett-Luce fit of the whole counts by this arena's Newton steps in numpy,
  beside scipy.optimize's trust-exact solver on the same objective (its import timed in a fresh
  process), and the largest difference between their ratings: why the arena does not use scipy.

The last line, for scripts: `standings: games N, warm W s, cold C s, peak M MB, refresh R ms`.
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import math
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402

from arena.game import Rules, game_points  # noqa: E402
from arena.play.records import Fault, FaultKind, GameRecord  # noqa: E402
from arena.play.selfplay import play_random_game  # noqa: E402
from arena.report import export, html  # noqa: E402
from arena.report.games import render_game_table  # noqa: E402
from arena.report.standings import render_standings_report  # noqa: E402
from arena.results import number_order  # noqa: E402
from arena.results.plackett_luce import PRIOR_SD, fit  # noqa: E402
from arena.results.rows import compress_transcript, encode_game  # noqa: E402
from arena.results.sprt import MIN_DEAL_SETS  # noqa: E402
from arena.results.standings import Completeness  # noqa: E402
from arena.results.store import ResultStore  # noqa: E402
from arena.schedule.games import table_games  # noqa: E402
from arena.schedule.numbers import PAIRED  # noqa: E402
from arena.tournament.config import TournamentConfig, config_from_dict  # noqa: E402
from arena.tournament.results import GameQuery, TournamentResults  # noqa: E402

ENTRIES = [f"bot{i:02d}" for i in range(12)]
STRENGTHS = dict(zip(ENTRIES, np.linspace(-1.2, 1.2, len(ENTRIES))))  # log-strengths of the drawn orders
WORKERS = 8  # tables played side by side, a whole table each
TABLE_LIMIT = 100  # arena games' first page
NEW_GAMES = 1_000  # the games a live refresh comes after
REFRESHES = 3  # live refreshes timed, each after NEW_GAMES more
GOAL_GAMES = 1_000_000  # the size the goals are set for


def deals_for(games: int) -> int:
    """The config's deals: half as many games again as are stored (a run stopped part-way)."""
    return math.ceil(1.5 * (games + REFRESHES * NEW_GAMES) / (math.comb(len(ENTRIES), 3) * 6))


def stored_order(games: int):
    """The specs in the order the run stores them: WORKERS side by side, each playing the next
    table's every deal (module docstring); the first `games` of them and on."""
    deals = deals_for(games)
    tables = iter([table_games(index, combo, deals, 42) for index, combo in
                   enumerate(itertools.combinations(ENTRIES, 3))])
    playing = [iter(next(tables)) for _ in range(WORKERS)]
    while playing:
        for worker in range(len(playing) - 1, -1, -1):
            spec = next(playing[worker], None)
            if spec is None:
                table = next(tables, None)
                if table is None:
                    playing.pop(worker)
                    continue
                playing[worker] = iter(table)
                spec = next(playing[worker])
            yield spec


def templates(count: int, rules: Rules):
    out = []
    for i in range(count):
        game = play_random_game(rules, 1000 + i, i % 3)
        out.append((game.outcome, game.transcript, compress_transcript(game.transcript), len(game.moves)))
    return out


def build(store: ResultStore, games: int, first: int = 0, run_of: int | None = None, batch: int = 20_000) -> float:
    """Store games `first` to `games` - 1 of the run that stores `run_of` games (default: `games`)
    before it stops; returns the seconds taken."""
    import dataclasses

    rules = Rules()
    tpl = templates(300, rules)
    rng = random.Random(7 + first)
    started = time.perf_counter()
    pending = []
    think = ((0.004, 0.006, 0.010),) * 3
    kinds = list(FaultKind)
    for spec in itertools.islice(stored_order(run_of or games), first, games):
        outcome, transcript, blob, moves = tpl[rng.randrange(len(tpl))]
        keys = [STRENGTHS[name] - math.log(-math.log(rng.random() or 1e-300)) for name in spec.bots]
        outcome = dataclasses.replace(outcome, finishing_order=tuple(sorted(range(3), key=lambda s: -keys[s])))
        faults = ()
        if rng.random() < 0.01:
            faults = (Fault(rng.randrange(3), kinds[rng.randrange(len(kinds))], "synthetic fault", rng.randrange(moves or 1)),)
        record = GameRecord(1, spec.bots, outcome, transcript, game_points(outcome, rules), faults, think, moves)
        pending.append(encode_game(spec, record, {"move_timeout_s": 2.0}, transcript_blob=blob))
        if len(pending) >= batch:
            store.add_encoded(pending)
            pending.clear()
    if pending:
        store.add_encoded(pending)
    return time.perf_counter() - started


def forget_cached_pages(path: Path) -> bool:
    """Write the database out and ask the OS to drop its cached pages, so that the next read
    comes from disk, as after a reboot. False where the OS offers no such call."""
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


def config_for(games: int, path: Path, **keys) -> TournamentConfig:
    """The config of the run the benchmark stands in for (module docstring)."""
    data = {"name": "standings benchmark", "seed": 42, "bots": ENTRIES, "table_size": 3, "deals": deals_for(games),
            "database": str(path), **keys}
    return config_from_dict(data, path.with_suffix(".toml"))


def check_covers(result, games: int) -> None:
    """The standings count every stored game: in the points, the ratings and their history."""
    history = result.ratings.history if result.ratings is not None else ()
    if result.games != games or not history or history[-1][0] != games:
        raise SystemExit(f"the standings do not cover the {games} stored games ({result.games}, history to "
                         f"{history[-1][0] if history else 0})")
    if any(math.isnan(bot.rating) for bot in result.bots) or sum(bot.games for bot in result.bots) != 3 * games:
        raise SystemExit("not every bot is rated, or the bots' games do not add up")


def render_all(result, title: str) -> dict[str, float]:
    """Each format as `arena standings` makes it, timed: format -> seconds."""
    def table() -> str:
        text = io.StringIO()
        render_standings_report(result, Console(file=text, width=120, color_system=None), title=title, facts=True)
        return text.getvalue()

    return timed_steps({"json": lambda: export.to_json(result), "csv": lambda: export.to_csv(result),
                        "markdown": lambda: export.to_markdown(result, title), "html": lambda: html.to_html(result, title),
                        "table": table})


def standings_once(path: Path, config: TournamentConfig):
    """`arena standings` in every format: (seconds of the standings, format -> seconds, the result)."""
    started = time.perf_counter()
    with TournamentResults(ResultStore(path, read_only=True), config) as results:  # as the commands open it
        result = results.standings(with_history=True)
    report_s = time.perf_counter() - started
    return report_s, render_all(result, config.name), result


def warm_runs(path: Path, config: TournamentConfig, repeat: int):
    """`repeat` runs in this process: (best seconds, worst, the best's standings seconds, its
    formats' seconds, the result)."""
    runs = []
    for _ in range(repeat):
        report_s, formats, result = standings_once(path, config)
        runs.append((report_s + sum(formats.values()), report_s, formats))
    check_covers(result, result.games)
    best, report_s, formats = min(runs, key=lambda run: run[0])
    return best, max(run[0] for run in runs), report_s, formats, result


def max_rss_mb() -> float:
    """This process's peak RSS so far: /proc's VmHWM (getrusage's ru_maxrss carries a parent's
    peak over into its child on Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def once_in_this_process(path: Path, games: int) -> None:
    """The child of `cold_run`: standings in every format once, then its figures as one JSON line."""
    after_imports = max_rss_mb()
    report_s, formats, result = standings_once(path, config_for(games, path))
    print(json.dumps({"report_s": report_s, "formats_s": sum(formats.values()), "rss_after_imports_mb": after_imports,
                      "max_rss_mb": max_rss_mb(), "games": result.games}))


def cold_run(path: Path, games: int) -> dict | None:
    """Standings in every format in a fresh process, as a user's `arena standings`, with the file's
    pages dropped from the OS cache first; None where they cannot be dropped."""
    if not forget_cached_pages(path):
        return None
    started = time.perf_counter()
    child = subprocess.run([sys.executable, __file__, "--db", str(path), "--games", str(games), "--once"],
                           capture_output=True, text=True, check=True)
    figures = json.loads(child.stdout.splitlines()[-1])
    figures["process_s"] = time.perf_counter() - started
    figures["total_s"] = figures["report_s"] + figures["formats_s"]
    return figures


def refresh_after_new_games(path: Path, games: int) -> dict[str, float]:
    """Live-board refreshes mid-run, each after NEW_GAMES more games: seconds of the best and worst
    of REFRESHES ("refresh", "worst"), and of the run's first refresh before them ("first")."""
    config = config_for(games, path)
    store = ResultStore(path)  # the run's, writable
    results = TournamentResults.on_store(store, config)
    total = config.games_scheduled()
    started = time.perf_counter()
    results.standings(head_to_head=False, completeness=Completeness(games, total, 0))
    took = {"first": time.perf_counter() - started}
    runs = []
    have = games
    for _ in range(REFRESHES):
        build(store, have + NEW_GAMES, first=have, run_of=games)  # this run's next 1,000
        have += NEW_GAMES
        started = time.perf_counter()
        standings = results.standings(head_to_head=False, completeness=Completeness(have, total, 0))
        runs.append(time.perf_counter() - started)
        check_covers(standings, have)
    fresh = TournamentResults.on_store(store, config).standings(head_to_head=False)  # what a report reads
    if [(b.bot, b.rating, b.rating_margin) for b in fresh.bots] != [(b.bot, b.rating, b.rating_margin)
                                                                     for b in standings.bots]:
        raise SystemExit("the live refresh's ratings differ from a fresh read's")
    store.close()
    took["refresh"], took["worst"] = min(runs), max(runs)
    return took


def games_page(results: TournamentResults) -> dict[str, float]:
    """`arena games` as it runs by default: the first page, the count beyond it, the table."""
    query = GameQuery(limit=TABLE_LIMIT)
    took = {}
    started = time.perf_counter()
    shown = list(results.games(query))
    took["first page read"] = time.perf_counter() - started
    started = time.perf_counter()
    more = results.count_games(query) - len(shown)
    took["count"] = time.perf_counter() - started
    started = time.perf_counter()
    render_game_table(shown, Console(file=io.StringIO(), width=120, color_system=None), title=results.config.name)
    took["table"] = time.perf_counter() - started
    if more < 0:
        raise SystemExit(f"arena games counted fewer games than it showed ({more})")
    return took


def replay_game(results: TournamentResults, number: int) -> dict[str, float]:
    """`arena replay CONFIG NUMBER` (the referee's view), step by step."""
    took = {}
    started = time.perf_counter()
    shown = results.replay(str(number))
    took["read the game"] = time.perf_counter() - started
    started = time.perf_counter()
    console = Console(file=io.StringIO(), width=120, color_system=None)
    for line in shown.lines():
        console.print(line, highlight=False, markup=False)
    took["replay and print"] = time.perf_counter() - started
    return took


def sprt_decision(path: Path, games: int):
    """The SPRT state of a gauntlet of bot00 against every 2 of the others (stop = "sprt") on the
    stored games, as `arena standings` and a run's board get it. Returns (seconds, the state)."""
    deals = max(MIN_DEAL_SETS, deals_for(games))
    config = config_for(games, path, schedule="gauntlet", challengers=1, stop="sprt", sprt_delta1=0.1, deals=deals)
    with TournamentResults(ResultStore(path, read_only=True), config) as results:
        started = time.perf_counter()
        state = results.test()
        return time.perf_counter() - started, state


def fit_comparison(path: Path, config: TournamentConfig) -> str:
    """The whole counts' fit by the arena's Newton steps, and by scipy.optimize's trust-exact on
    the same objective, each the best of five; scipy's import in a fresh process."""
    from arena.results.ratings_read import RatingsReader

    reader = RatingsReader()
    with TournamentResults(ResultStore(path, read_only=True), config) as results:
        reader.read(results.store)
    assert reader.counts is not None
    names, incidence, set_games, wins = reader.counts
    sets = set_games
    ours = min(timed_steps({"fit": lambda: fit(incidence, set_games, wins)})["fit"] for _ in range(5))
    mine = fit(incidence, set_games, wins)
    import_s = subprocess.run([sys.executable, "-c", "import time; t = time.perf_counter(); import scipy.optimize; "
                               "print(time.perf_counter() - t)"], capture_output=True, text=True, check=True)
    from scipy.optimize import minimize

    precision = 1 / PRIOR_SD**2

    def objective(theta):
        totals = incidence @ np.exp(theta)
        chance = incidence * np.exp(theta) / totals[:, None]
        value = -(wins @ theta - set_games @ np.log(totals) - precision * theta @ theta / 2)
        expected = chance.T @ set_games
        hessian = np.diag(expected) - chance.T @ (set_games[:, None] * chance) + precision * np.eye(theta.size)
        return value, -(wins - expected - precision * theta), hessian

    scipy_s = math.inf
    for _ in range(5):  # the best of five, as the numpy fit's
        started = time.perf_counter()
        solved = minimize(lambda t: objective(t)[0], np.zeros(len(names)), jac=lambda t: objective(t)[1],
                          hess=lambda t: objective(t)[2], method="trust-exact", options={"gtol": 1e-10})
        scipy_s = min(scipy_s, time.perf_counter() - started)
    difference = np.max(np.abs(solved.x - mine.theta)) * 400 / math.log(10)
    return (f"the fit of the whole counts ({len(names)} bots, {len(sets)} stage sets): numpy Newton {ours * 1000:.2f} ms "
            f"({mine.steps} steps); scipy.optimize trust-exact {scipy_s * 1000:.2f} ms, its import "
            f"{float(import_s.stdout) * 1000:.0f} ms in a fresh process; largest difference {difference:.1e} rating points")


def timed_steps(steps: dict) -> dict[str, float]:
    """Run each step once: name -> seconds."""
    took = {}
    for name, work in steps.items():
        started = time.perf_counter()
        work()
        took[name] = time.perf_counter() - started
    return took


def steps_text(took: dict[str, float]) -> str:
    return ", ".join(f"{name} {seconds:.3f}" for name, seconds in took.items())


def verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=GOAL_GAMES)
    parser.add_argument("--db", type=Path, default=None, help="database file (default: a temporary file)")
    parser.add_argument("--keep", action="store_true", help="keep the database file")
    parser.add_argument("--build-only", action="store_true", help="build the database file and stop")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)  # the cold run's fresh process
    args = parser.parse_args()
    if args.once:
        once_in_this_process(args.db, args.games)
        return
    path = args.db or Path(tempfile.mkdtemp(prefix="arena-bench-")) / "results.db"
    store = ResultStore(path)
    have = store.game_count()
    if have < args.games:
        print(f"building {args.games - have:,} games in {path} ...", flush=True)
        if have:
            raise SystemExit(f"{path} already holds {have} games; use a fresh file")
        took = build(store, args.games)
        print(f"  inserted {args.games:,} games in {took:.1f} s ({args.games / took:,.0f} games/s)")
    with store._write() as db:  # the index a run makes when it stores the tournament's fingerprint
        number_order.create_index(db, PAIRED)
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    games = store.game_count()
    store.close()
    if games != args.games:
        raise SystemExit(f"{path} holds {games:,} games, not the {args.games:,} of --games")
    if args.build_only:
        return
    size = sum(os.path.getsize(p) for p in [path, Path(str(path) + "-wal")] if p.exists())
    print(f"database: {games:,} games, {size / 1e6:.1f} MB, {size / games * 1000 / 1e6:.3f} MB per 1,000 games; "
          f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")

    folder = Path(tempfile.mkdtemp(prefix="arena-bench-copy-"))
    try:
        copy = folder / "results.db"
        shutil.copyfile(path, copy)  # the WAL was checkpointed into the file
        config = config_for(games, copy)
        print(f"config: {config.table_count()} tables x {config.deals} deals x 6 seatings = "
              f"{config.games_scheduled():,} games scheduled, {games:,} stored by {WORKERS} workers a table each")
        cold = cold_run(copy, games)
        warm_s, worst_s, report_s, formats, result = warm_runs(copy, config, args.repeat)
        with TournamentResults(ResultStore(copy, read_only=True), config) as results:
            listing = games_page(results)
            last = max(line.number for line in results.games(GameQuery(by_number=False, limit=50)))
            replay = replay_game(results, last)
        sprt_s, state = sprt_decision(copy, games)
        fit_line = fit_comparison(copy, config)
        refreshes = refresh_after_new_games(copy, games)
        refresh_s = refreshes["refresh"]
    finally:
        shutil.rmtree(folder)

    print(f"arena standings, all formats (standings, then json, csv, markdown, html, table): warm best {warm_s:.3f} s, "
          f"worst {worst_s:.3f} s over {args.repeat} runs; the best: standings {report_s:.3f} s + formats "
          f"{sum(formats.values()):.3f} s ({steps_text(formats)})")
    if cold is not None:
        print(f"  cold, in a fresh process with the file out of the OS cache: {cold['total_s']:.3f} s (standings "
              f"{cold['report_s']:.3f} s + formats {cold['formats_s']:.3f} s; the whole process with Python's start "
              f"and the imports {cold['process_s']:.2f} s)")
        print(f"  peak memory: that process's peak RSS {cold['max_rss_mb']:.0f} MB "
              f"({cold['rss_after_imports_mb']:.0f} MB after its imports)")
    else:
        print("  cold and peak memory: not measured (no posix_fadvise here)")
    top = result.bots[0]
    history = result.ratings.history if result.ratings is not None else ()
    print(f"  leader {top.bot}: {top.points} points in {top.games} games, {top.points_per_game:.3f} ± "
          f"{top.ci95_half_width:.3f} per game, rating {top.rating:.0f} ± {top.rating_margin:.0f}; "
          f"{len(history)} history points to game {history[-1][0]:,}; "
          f"groups {' | '.join(', '.join(group) for group in result.ratings.groups) if result.ratings else ''}")
    print(f"live refresh after {NEW_GAMES:,} new games at {games:,} stored: best {refresh_s * 1000:.1f} ms, worst "
          f"{refreshes['worst'] * 1000:.1f} ms of {REFRESHES} (the run's first refresh before them: "
          f"{refreshes['first'] * 1000:.0f} ms); the same ratings as a fresh read: yes")
    print(f"arena games (first page of {TABLE_LIMIT}): {sum(listing.values()):.3f} s ({steps_text(listing)})")
    print(f"arena replay {last}: {sum(replay.values()):.3f} s ({steps_text(replay)})")
    print(f"SPRT state of a gauntlet of bot00 (stop = \"sprt\"): {sprt_s:.3f} s; {state.sentence()}")
    print(fit_line)

    cold_s = cold["total_s"] if cold is not None else math.nan
    peak_mb = cold["max_rss_mb"] if cold is not None else math.nan
    at = "" if games == GOAL_GAMES else f"; measured at {games:,} games, the goals are for {GOAL_GAMES:,} and this size"
    goals = [
        ("arena standings, all formats, warm < 0.5 s", warm_s < 0.5, f"{warm_s:.3f} s"),
        ("arena standings, all formats, cold < 2 s", cold_s < 2, f"{cold_s:.3f} s"),
        ("peak memory (peak RSS) < 100 MB", peak_mb < 100, f"{peak_mb:.0f} MB"),
        (f"live refresh after {NEW_GAMES:,} new games < 20 ms", refresh_s < 0.02, f"{refresh_s * 1000:.1f} ms"),
        ("arena games, one page < 1 s", sum(listing.values()) < 1, f"{sum(listing.values()):.3f} s"),
        ("arena replay of one game < 1 s", sum(replay.values()) < 1, f"{sum(replay.values()):.3f} s"),
        ("SPRT state < 1 s", sprt_s < 1, f"{sprt_s:.3f} s"),
    ]
    print(f"goals (issue 40, a tournament stopped part-way, its games stored out of game order{at}):")
    for goal, met, figure in goals:
        print(f"  {goal}: {figure}  {verdict(met)}")
    if args.db is None and not args.keep:
        shutil.rmtree(path.parent)
    print(f"standings: games {games}, warm {warm_s:.2f} s, cold {cold_s:.2f} s, peak {peak_mb:.0f} MB, "
          f"refresh {refresh_s * 1000:.0f} ms")


if __name__ == "__main__":
    main()
