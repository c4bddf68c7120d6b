"""What `arena standings` and the other read commands cost on a big results database (issue 34).

    .venv/bin/python benchmarks/standings.py                 # 1,000,000 games (building takes many minutes)
    .venv/bin/python benchmarks/standings.py --games 50000   # smaller
    .venv/bin/python benchmarks/standings.py --db big.db --keep   # reuse/keep the file

The database: synthetic but realistic rows of a 12-entry round robin at tables of 3 (220
tables, six seatings per deal, as many deals as needed, seed 42), each game taking the
outcome, points, move count and (compressed) transcript of one of a few hundred real random
games; about 1% of games carry a fault. Rows go in through `ResultStore.add_encoded` in
transactions of 20,000 games. The config that numbers them is built with `config_from_dict`:
the same entries, table size and seed, and deals enough for the stored games and the 1,000 the
refresh adds (one run, at N games stored); the script checks that it numbers every stored game
and that the ratings and the timeline cover every stored game.

The measurements run on a copy of the file (reports may keep a ratings checkpoint in it, and the
refresh adds games to it), in two states:
- with the ratings' checkpoint a run leaves (arena/results/rating_checkpoint.py: a run's live
  board keeps it at the highest game number up to which every game is stored): what `arena
  standings` meets after a run, and what the goals are judged on;
- without one: the full pass over every game in game-number order, which a report makes when no
  checkpoint serves (a file no run kept one in, or one that no longer holds: games superseded,
  deals or bots added). The script checks that both give the same ratings and timeline.
The builder stores the games deal by deal; a run plays a table's deals one after another (a
worker takes a whole table), so mid-run its settled number, and its checkpoint, stay far lower
in paired game numbers than here: the figures with the checkpoint are those after a run, or
late in one.

What is measured, with the issue's goals (for 1,000,000 games):
- standings: `report_standings`, what `arena standings` calls (the kept totals, the OpenSkill
  ratings and the timeline in game-number order, the facts, and the history JSON adds), then
  the result rendered in every format (json, csv, markdown, html, the terminal table), timed
  together as "all formats". Cold: in a fresh process, as a user's command, with the file's
  pages dropped from the OS cache first (goal < 5 s). Warm: best of --repeat runs in this
  process (goal < 2 s; the full pass: one run).
- peak memory: the peak RSS of that fresh process (/proc's VmHWM, else getrusage's ru_maxrss):
  interpreter, imports, SQLite's cache and the Python heap (goal < 200 MB).
- refresh: a live-board refresh mid-run (`rated_standings(store, config, by_points_per_game=True,
  live=..., head_to_head=False)`, as arena/report/live.py's `_refresh_board` calls it: the kept
  totals, and the provisional ratings in stored order of arena/results/live_ratings.py, which
  started from the run's checkpoint at the run's first refresh) after 1,000 more games, the
  previous refresh having left the file in the OS cache; best of REFRESHES, each after its own
  1,000 (goal < 100 ms), with OpenSkill's updates alone for the same games beside it. Also timed:
  the run's final board after them (the ratings in game order, its checkpoint moved up).
- `arena games` (its default first page of 100 games), `arena replay` of one game, and the SPRT
  state of a gauntlet with stop = "sprt", each once (goal < 1 s each).
Where a goal is missed, the steps behind it are timed one by one.

The last line, for scripts (the state with the checkpoint):
`standings: games N, warm W s, cold C s, peak M MB, refresh R ms`.
"""

from __future__ import annotations

import argparse
import io
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

from rich.console import Console  # noqa: E402

from arena.cli.games import TABLE_LIMIT  # noqa: E402
from arena.cli.reports import _game_key, report_standings  # noqa: E402
from arena.game import Rules, game_points  # noqa: E402
from arena.play.records import Fault, FaultKind, GameRecord  # noqa: E402
from arena.play.selfplay import play_random_game  # noqa: E402
from arena.report import export, html  # noqa: E402
from arena.report.games import render_game_table  # noqa: E402
from arena.report.standings import render_standings_details, render_standings_table  # noqa: E402
from arena.results import rating_checkpoint  # noqa: E402
from arena.results.history import version_history  # noqa: E402
from arena.results.live_ratings import PlayOrderRatings  # noqa: E402
from arena.results.queries import games_summary  # noqa: E402
from arena.results.ratings import (  # noqa: E402
    Rating,
    in_game_order,
    numbering_of,
    rate_games,
    rated_standings,
)
from arena.results.replay import replay_lines  # noqa: E402
from arena.results.rows import compress_transcript, encode_game  # noqa: E402
from arena.results.sprt import MIN_DEAL_SETS  # noqa: E402
from arena.results.standings_sql import compute_standings  # noqa: E402
from arena.results.store import ResultStore  # noqa: E402
from arena.results.voids import pending_void_keys  # noqa: E402
from arena.schedule.games import table_games  # noqa: E402
from arena.tournament.config import TournamentConfig, config_from_dict  # noqa: E402
from arena.tournament.early_stop import sprt_state, sprt_tables  # noqa: E402
from arena.tournament.resubmission import stored_versions  # noqa: E402

ENTRIES = [f"bot{i:02d}" for i in range(12)]
GAMES_PER_DEAL = math.comb(len(ENTRIES), 3) * 6  # 220 tables, six seatings each
NEW_GAMES = 1_000  # the games a live refresh comes after
REFRESHES = 3  # live refreshes timed, each after NEW_GAMES more: the best counts, as for the warm standings
GOAL_GAMES = 1_000_000  # the size the goals are set for


def templates(count: int, rules: Rules):
    out = []
    for i in range(count):
        game = play_random_game(rules, 1000 + i, i % 3)
        out.append((game.outcome, game.transcript, compress_transcript(game.transcript), game_points(game.outcome, rules), len(game.moves)))
    return out


def specs(games: int, first: int = 0):
    """The specs of games number `first` to `games` - 1 in the order they are stored."""
    import itertools

    combos = list(itertools.combinations(ENTRIES, 3))
    per_deal = len(combos) * 6
    deals = math.ceil(games / per_deal)
    made = first // per_deal * per_deal
    for deal in range(first // per_deal, deals):  # deal-major order: every table advances together, as with many workers
        for index, combo in enumerate(combos):
            for spec in table_games(index, combo, deal + 1, 42)[deal * 6:]:
                if made == games:
                    return
                made += 1
                if made > first:
                    yield spec


def build(store: ResultStore, games: int, batch: int = 20_000, first: int = 0) -> float:
    """Store games `first` to `games` - 1; returns the seconds taken."""
    rules = Rules()
    tpl = templates(300, rules)
    rng = random.Random(7)
    started = time.perf_counter()
    pending = []
    think = ((0.004, 0.006, 0.010),) * 3
    kinds = list(FaultKind)
    for spec in specs(games, first):
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


def config_for(games: int, path: Path, **keys) -> TournamentConfig:
    """The config of the run the benchmark stands in for: the synthetic round robin with deals
    enough for the `games` stored and the NEW_GAMES each refresh comes after (the same run)."""
    data = {"name": "standings benchmark", "seed": 42, "bots": ENTRIES, "table_size": 3,
            "deals": math.ceil((games + REFRESHES * NEW_GAMES) / GAMES_PER_DEAL), "database": str(path), **keys}
    return config_from_dict(data, path.with_suffix(".toml"))


def stored_numbers(store: ResultStore, config: TournamentConfig) -> set[int]:
    """The game numbers of the stored games, checking that the config numbers every one of them:
    each key is the key of its number, and no two games share a number."""
    numbers = config.game_numbers()
    with store._read() as db:
        rows = db.execute("SELECT key, table_no, deal, seating FROM games").fetchall()
    seen = set()
    for key, table, deal, seating in rows:
        number = numbers.number(table, deal, seating)
        if numbers.key_of(number) != key or number in seen:
            raise SystemExit(f"the config does not number the stored game {key} (number {number})")
        seen.add(number)
    return seen


def settled_point(config: TournamentConfig, stored: set[int]) -> int:
    """Where a run's ratings checkpoint settles (arena/tournament/runner.py: SettledNumbers): the
    highest game number up to which every game of the schedule is stored."""
    numbers = config.game_numbers()
    every = (numbers.number(table, deal, seating) for table in range(config.table_count())
             for deal in range(config.deals) for seating in range(numbers.seatings))
    first_missing = min((number for number in every if number not in stored), default=None)
    return numbers.highest if first_missing is None else first_missing - 1


def check_covers(result, games: int) -> None:
    """The standings count every stored game: in the points, the timeline and the ratings."""
    if result.games != games or not result.timeline or result.timeline[-1][0] != games:
        raise SystemExit(f"the standings do not cover the {games} stored games ({result.games}, timeline to "
                         f"{result.timeline[-1][0] if result.timeline else 0})")
    if any(math.isnan(bot.mu) for bot in result.bots) or sum(bot.games for bot in result.bots) != 3 * games:
        raise SystemExit("not every bot is rated, or the bots' games do not add up")


def drop_checkpoint(path: Path) -> None:
    """Forget the ratings checkpoint of the file: the next report makes the full pass."""
    store = ResultStore(path)
    with store._write() as db:
        rating_checkpoint.drop(db)
    store.close()


def has_checkpoint(path: Path, config: TournamentConfig) -> bool:
    store = ResultStore(path, read_only=True)
    with store._read() as db:
        found = rating_checkpoint.load(db, numbering_of(config.game_numbers()))
    store.close()
    return found is not None


def keep_checkpoint(path: Path, config: TournamentConfig, settled: int) -> float:
    """Leave the checkpoint a run leaves: its board's refresh with the run's settled number (the
    full pass, then the checkpoint kept). Returns its seconds."""
    store = ResultStore(path)  # the run's, writable
    started = time.perf_counter()
    rated_standings(store, config, by_points_per_game=True, settled_upto=settled)
    took = time.perf_counter() - started
    store.close()
    if not has_checkpoint(path, config):
        raise SystemExit(f"the board's refresh kept no ratings checkpoint in {path}")
    return took


def render_all(result, title: str) -> dict[str, float]:
    """Each format as `arena standings` makes it, timed: format -> seconds."""
    def table() -> str:
        text = io.StringIO()
        console = Console(file=text, width=120, color_system=None)
        render_standings_table(result, console, title=title)
        render_standings_details(result, console)
        return text.getvalue()

    return timed_steps({"json": lambda: export.to_json(result), "csv": lambda: export.to_csv(result),
                        "markdown": lambda: export.to_markdown(result, title), "html": lambda: html.to_html(result, title),
                        "table": table})


def standings_once(store: ResultStore, config: TournamentConfig):
    """`arena standings` in every format: (seconds of report_standings, format -> seconds, the result).
    The history is asked for, as JSON asks for it: the common part of every format."""
    started = time.perf_counter()
    result = report_standings(store, config, with_history=True)
    report_s = time.perf_counter() - started
    return report_s, render_all(result, config.name), result


def warm_runs(path: Path, config: TournamentConfig, repeat: int):
    """`repeat` runs in this process: (best seconds, worst, the best's report_standings seconds,
    its formats' seconds, the result)."""
    store = ResultStore(path, read_only=True)  # as the report commands open it
    runs = []
    for _ in range(repeat):
        report_s, formats, result = standings_once(store, config)
        runs.append((report_s + sum(formats.values()), report_s, formats))
    store.close()
    check_covers(result, result.games)
    best, report_s, formats = min(runs, key=lambda run: run[0])
    return best, max(run[0] for run in runs), report_s, formats, result


def max_rss_mb() -> float:
    """This process's peak RSS so far. Linux's getrusage ru_maxrss carries the parent's peak over
    into a child it starts (the exec keeps the larger of the two), so where /proc has it, the
    peak of the process's own memory: VmHWM, what ru_maxrss counts without the parent's."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def once_in_this_process(path: Path, games: int, steps: bool) -> None:
    """The child of `cold_run`: standings in every format once, then its figures as one JSON line;
    `steps`: the steps of report_standings instead, each once (`report_steps`)."""
    if steps:
        print(json.dumps(report_steps(path, config_for(games, path))))
        return
    after_imports = max_rss_mb()
    store = ResultStore(path, read_only=True)
    report_s, formats, result = standings_once(store, config_for(games, path))
    store.close()
    print(json.dumps({"report_s": report_s, "formats_s": sum(formats.values()), "rss_after_imports_mb": after_imports,
                      "max_rss_mb": max_rss_mb(), "games": result.games}))


def cold_run(path: Path, games: int, steps: bool = False) -> dict | None:
    """Standings in every format in a fresh process, as a user's `arena standings`, with the file's
    pages dropped from the OS cache first; None where they cannot be dropped. `steps`: the steps
    of report_standings that way, each once (step -> seconds)."""
    if not forget_cached_pages(path):
        return None
    started = time.perf_counter()
    child = subprocess.run([sys.executable, __file__, "--db", str(path), "--games", str(games), "--once"]
                           + (["--steps"] if steps else []), capture_output=True, text=True, check=True)
    figures = json.loads(child.stdout.splitlines()[-1])
    if not steps:
        figures["process_s"] = time.perf_counter() - started
        figures["total_s"] = figures["report_s"] + figures["formats_s"]
    return figures


def refresh_after_new_games(path: Path, games: int, stored: set[int]) -> dict[str, float]:
    """Live-board refreshes mid-run, each after NEW_GAMES more games, on the file with the run's
    checkpoint: seconds of the best and worst of REFRESHES ("refresh", "worst"), of the run's first
    refresh before them ("first"), of OpenSkill's updates alone for the best one's new games, from
    the same ratings ("ratings"), of compute_standings alone after them ("totals"), and of the run's
    final board ("final"). The run's store is a writable one."""
    store = ResultStore(path)
    config = config_for(games, path)
    live = PlayOrderRatings()  # the board's, for the whole run
    started = time.perf_counter()
    standings = rated_standings(store, config, by_points_per_game=True, live=live, head_to_head=False)  # the first
    took = {"first": time.perf_counter() - started}
    runs = []
    have = games
    for _ in range(REFRESHES):
        before = {bot.bot: Rating(bot.mu, bot.sigma) for bot in standings.bots}
        build(store, have + NEW_GAMES, first=have)  # the games of this run's next 1,000
        started = time.perf_counter()
        standings = rated_standings(store, config, by_points_per_game=True, live=live, head_to_head=False)
        refresh_s = time.perf_counter() - started
        have += NEW_GAMES
        check_covers(standings, have)
        with store._read() as db:
            new = db.execute("SELECT bots, finishing_order FROM games ORDER BY id DESC LIMIT ?", (NEW_GAMES,)).fetchall()
        started = time.perf_counter()
        rate_games(((bots.split(","), [int(seat) for seat in order.split(",")]) for bots, order in reversed(new)), before)
        runs.append((refresh_s, time.perf_counter() - started))
    took["refresh"], took["ratings"] = min(runs)
    took["worst"] = max(runs)[0]
    started = time.perf_counter()
    compute_standings(store, list(config.playing), True, timeline=False, head_to_head=False)
    took["totals"] = time.perf_counter() - started
    numbers = config.game_numbers()
    settled = settled_point(config, stored | {numbers.of(spec) for spec in specs(have, first=games)})
    started = time.perf_counter()
    final = rated_standings(store, config, settled_upto=settled, head_to_head=False)  # the final board, exact
    took["final"] = time.perf_counter() - started
    check_covers(final, have)
    store.close()
    return took


def games_page(store: ResultStore, config: TournamentConfig) -> dict[str, float]:
    """`arena games` as it runs by default (the terminal table: the first TABLE_LIMIT current games
    read by game number through arena/results/games_page.py, the rest counted), step by step."""
    import itertools

    from arena.results.games_page import GameFilter, count_current, current_lines

    numbers = config.game_numbers()
    wanted = GameFilter()
    took = {}
    started = time.perf_counter()
    shown = list(itertools.islice(current_lines(store, numbers, wanted, page=TABLE_LIMIT), TABLE_LIMIT))
    took["first page read"] = time.perf_counter() - started
    started = time.perf_counter()
    more = count_current(store, wanted) - len(shown)
    took["count"] = time.perf_counter() - started
    started = time.perf_counter()
    render_game_table(shown, Console(file=io.StringIO(), width=120, color_system=None), title=config.name)
    took["table"] = time.perf_counter() - started
    if more < 0:
        raise SystemExit(f"arena games counted fewer games than it showed ({more})")
    return took


def replay_game(store: ResultStore, config: TournamentConfig, number: int) -> dict[str, float]:
    """`arena replay CONFIG NUMBER` (the referee's view), step by step."""
    took = {}
    started = time.perf_counter()
    row = store.get_game(_game_key(str(number), config))
    took["read the game"] = time.perf_counter() - started
    started = time.perf_counter()
    console = Console(file=io.StringIO(), width=120, color_system=None)
    for line in replay_lines(row, None, config.game_numbers().of(row)):
        console.print(line, highlight=False, markup=False)
    took["replay and print"] = time.perf_counter() - started
    return took


def sprt_decision(store: ResultStore, path: Path, games: int):
    """The SPRT state as `arena standings` and a run's board get it for a gauntlet with stop = "sprt":
    the schedule built, then `sprt_state`. The gauntlet is bot00 against every 2 of the others,
    55 tables: bot00 has 330 games a deal in it as in the stored round robin, so the test reads
    the complete deal sets of the stored games. Returns (step -> seconds, the state)."""
    deals = max(MIN_DEAL_SETS, config_for(games, path).deals)  # a test of fewer deals is refused (a small --games)
    config = config_for(games, path, schedule="gauntlet", challengers=1, stop="sprt", sprt_delta1=0.1, deals=deals)
    took = {}
    started = time.perf_counter()
    tables = sprt_tables(config)
    took["tables"] = time.perf_counter() - started
    started = time.perf_counter()
    state = sprt_state(store, config, tables)
    took["points by deal and the test"] = time.perf_counter() - started
    return took, state


def timed_steps(steps: dict) -> dict[str, float]:
    """Run each step once: name -> seconds."""
    took = {}
    for name, work in steps.items():
        started = time.perf_counter()
        work()
        took[name] = time.perf_counter() - started
    return took


def report_steps(path: Path, config: TournamentConfig) -> dict[str, float]:
    """The steps of `report_standings`, each once, on the file as it is (with its checkpoint)."""
    store = ResultStore(path, read_only=True)
    took = timed_steps({
        "kept totals (compute_standings)": lambda: compute_standings(store, list(config.playing), config.ranks_by_points_per_game,
                                                    timeline=False),
        "games summary": lambda: games_summary(store),
        "void keys": lambda: pending_void_keys(store),
        "in_game_order": lambda: in_game_order(store, config.game_numbers()),
        "history": lambda: version_history(store.superseded(), stored_versions(store.fingerprint() or {}),
                                           config.withdrawn),
    })
    store.close()
    return took


def full_pass_steps(path: Path, config: TournamentConfig) -> str:
    """What the full pass (`in_game_order` without a checkpoint) is made of: its total; reading
    every game's row alone; the OpenSkill updates alone (`rate_games` over the same games in the
    same order, each parsed as it comes, the rows held as the pass holds them); the rest (sorting,
    the cumulative points and the timeline) is what is left."""
    store = ResultStore(path, read_only=True)
    numbers = config.game_numbers()
    took = timed_steps({"total": lambda: in_game_order(store, numbers)})
    with store._read() as db:
        started = time.perf_counter()
        rows = db.execute("SELECT table_no, deal, seating, bots, finishing_order, points FROM games").fetchall()
        took["read"] = time.perf_counter() - started
    rows.sort(key=lambda row: numbers.number(row[0], row[1], row[2]))
    parsed = ((bots.split(","), [int(seat) for seat in order.split(",")]) for _, _, _, bots, order, _ in rows)
    took["ratings"] = timed_steps({"ratings": lambda: rate_games(parsed)})["ratings"]
    store.close()
    rest = took["total"] - took["read"] - took["ratings"]
    return (f"  the full pass (in_game_order without a checkpoint), warm: {took['total']:.2f} s: OpenSkill updates "
            f"(rate_games, each game parsed) {took['ratings']:.2f} s ({took['ratings'] / len(rows) * 1e6:.1f} µs a game), "
            f"reading every game's row {took['read']:.2f} s, the rest (sorting, points, timeline) {rest:.2f} s")


def steps_text(took: dict[str, float]) -> str:
    return ", ".join(f"{name} {seconds:.3f}" for name, seconds in took.items())


def verdict(met: bool) -> str:
    return "met" if met else "NOT MET"


def same_pass(one, other) -> bool:
    """Whether two standings have the same ratings (float for float) and timeline."""
    return ([(b.bot, b.mu, b.sigma) for b in one.bots] == [(b.bot, b.mu, b.sigma) for b in other.bots]
            and one.timeline == other.timeline)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--db", type=Path, default=None, help="database file (default: a temporary file)")
    parser.add_argument("--keep", action="store_true", help="keep the database file")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)  # the cold run's fresh process
    parser.add_argument("--steps", action="store_true", help=argparse.SUPPRESS)  # ... timing report_standings' steps
    args = parser.parse_args()
    if args.once:
        once_in_this_process(args.db, args.games, args.steps)
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
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    games = store.game_count()
    store.close()
    if games != args.games:
        raise SystemExit(f"{path} holds {games:,} games, not the {args.games:,} of --games")
    size = sum(os.path.getsize(p) for p in [path, Path(str(path) + "-wal")] if p.exists())
    print(f"database: {games:,} games, {size / 1e6:.1f} MB, {size / games * 1000 / 1e6:.3f} MB per 1,000 games; "
          f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")

    config = config_for(games, path)
    store = ResultStore(path, read_only=True)  # as the read commands open it
    stored = stored_numbers(store, config)
    settled = settled_point(config, stored)
    print(f"config: {config.table_count()} tables x {config.deals} deals x 6 seatings; every stored game numbered "
          f"(1 to {max(stored):,}); all stored up to game {settled:,}, where a run's ratings checkpoint settles")
    listing = games_page(store, config)
    replay = replay_game(store, config, max(stored))
    sprt, state = sprt_decision(store, path, games)
    store.close()

    folder = Path(tempfile.mkdtemp(prefix="arena-bench-copy-"))
    try:
        copy = folder / "results.db"
        shutil.copyfile(path, copy)  # the WAL was checkpointed into the file
        config = config_for(games, copy)
        drop_checkpoint(copy)  # the full pass
        full_cold = cold_run(copy, games)
        drop_checkpoint(copy)  # a complete tournament's report keeps one
        full_s, _, _, _, full = warm_runs(copy, config, 1)
        kept_s = keep_checkpoint(copy, config, settled)
        cold = cold_run(copy, games)
        warm_s, worst_s, report_s, formats, result = warm_runs(copy, config, args.repeat)
        steps = report_steps(copy, config)
        cold_steps = cold_run(copy, games, steps=True)
        refreshes = refresh_after_new_games(copy, games, stored)
        refresh_s = refreshes["refresh"]
        drop_checkpoint(copy)
        full_line = full_pass_steps(copy, config)
    finally:
        shutil.rmtree(folder)

    print(f"arena standings, all formats (report_standings, then json, csv, markdown, html, table), with the "
          f"checkpoint a run leaves: warm best {warm_s:.2f} s, worst {worst_s:.2f} s over {args.repeat} runs; the best: "
          f"report_standings {report_s:.2f} s + formats {sum(formats.values()):.3f} s ({steps_text(formats)})")
    if cold is not None and full_cold is not None:
        print(f"  cold, in a fresh process with the file out of the OS cache: {cold['total_s']:.2f} s (report_standings "
              f"{cold['report_s']:.2f} s + formats {cold['formats_s']:.3f} s; the whole process with Python's start "
              f"and the imports {cold['process_s']:.2f} s)")
        print(f"  peak memory: that process's peak RSS {cold['max_rss_mb']:.0f} MB "
              f"({cold['rss_after_imports_mb']:.0f} MB after its imports)")
        print(f"  without a checkpoint (the full pass): warm {full_s:.2f} s (one run), cold {full_cold['total_s']:.2f} s, "
              f"peak RSS {full_cold['max_rss_mb']:.0f} MB; the run's board refresh that kept the checkpoint: {kept_s:.2f} s")
    else:
        print(f"  cold and peak memory: not measured (no posix_fadvise here); without a checkpoint: warm {full_s:.2f} s")
    print(f"  the same ratings (float for float) and timeline with the checkpoint as without: "
          f"{'yes' if same_pass(result, full) else 'NO'}")
    top = result.bots[0]
    print(f"  leader {top.bot}: {top.points} points, {top.points_per_game:.3f} ± {top.ci95_half_width:.3f} per game, "
          f"rating {top.mu:.1f} ± {top.sigma:.1f}; {len(result.timeline)} timeline points to game {result.timeline[-1][0]:,}, "
          f"{sum(result.faults_by_kind.values())} faults")
    print(f"live refresh after {NEW_GAMES:,} new games at {games:,} stored: best {refresh_s * 1000:.0f} ms, worst "
          f"{refreshes['worst'] * 1000:.0f} ms of {REFRESHES} (the run's first refresh before them, from its checkpoint: "
          f"{refreshes['first'] * 1000:.0f} ms; the run's final board after them, rated in game order: "
          f"{refreshes['final'] * 1000:.0f} ms)")
    print(f"arena games (first page of {TABLE_LIMIT}): {sum(listing.values()):.3f} s ({steps_text(listing)})")
    print(f"arena replay {max(stored)}: {sum(replay.values()):.3f} s ({steps_text(replay)})")
    print(f"SPRT state of a gauntlet of bot00 (stop = \"sprt\"): {sum(sprt.values()):.3f} s ({steps_text(sprt)}); "
          f"{state.sentence()}")

    cold_s = cold["total_s"] if cold is not None else math.nan
    peak_mb = cold["max_rss_mb"] if cold is not None else math.nan
    at = "" if games == GOAL_GAMES else f"; measured at {games:,} games, the goals are for {GOAL_GAMES:,}"
    goals = [
        ("arena standings, all formats, warm < 2 s", warm_s < 2, f"{warm_s:.2f} s"),
        ("arena standings, all formats, cold < 5 s", cold_s < 5, f"{cold_s:.2f} s"),
        ("peak memory (peak RSS) < 200 MB", peak_mb < 200, f"{peak_mb:.0f} MB"),
        (f"live refresh after {NEW_GAMES:,} new games < 100 ms", refresh_s < 0.1, f"{refresh_s * 1000:.0f} ms"),
        ("arena games, one page < 1 s", sum(listing.values()) < 1, f"{sum(listing.values()):.3f} s"),
        ("arena replay of one game < 1 s", sum(replay.values()) < 1, f"{sum(replay.values()):.3f} s"),
        ("SPRT state < 1 s", sum(sprt.values()) < 1, f"{sum(sprt.values()):.3f} s"),
    ]
    print(f"goals (issue 34, with the checkpoint a run leaves{at}):")
    for goal, met, figure in goals:
        print(f"  {goal}: {figure}  {verdict(met)}")
    print("what the standings' time is made of (each step once):")
    print(f"  with the checkpoint, warm: report_standings' steps: {steps_text(steps)}; the formats "
          f"{sum(formats.values()):.3f}")
    if cold_steps is not None:
        print(f"  the same steps cold (a fresh process, the file out of the OS cache): {steps_text(cold_steps)}")
    print(f"  the best refresh after the new games (warm): the kept totals (compute_standings) {refreshes['totals']:.3f} s; "
          f"OpenSkill's updates alone for its {NEW_GAMES:,} new games {refreshes['ratings']:.3f} s "
          f"({refreshes['ratings'] / NEW_GAMES * 1e6:.1f} µs a game: what bounds it); the rest (reading them, the "
          f"cumulative points, the timeline) {refresh_s - refreshes['totals'] - refreshes['ratings']:.3f} s")
    print(full_line)
    if cold is not None and full_cold is not None:
        print(f"what the peak memory is made of: {cold['rss_after_imports_mb']:.0f} MB after the imports; "
              f"{cold['max_rss_mb']:.0f} MB at the peak with the checkpoint, {full_cold['max_rss_mb']:.0f} MB with "
              f"the full pass (which holds every game's row)")
    if args.db is None and not args.keep:
        for p in path.parent.iterdir():
            p.unlink()
        path.parent.rmdir()
    print(f"standings: games {games}, warm {warm_s:.2f} s, cold {cold_s:.2f} s, peak {peak_mb:.0f} MB, "
          f"refresh {refresh_s * 1000:.0f} ms")


if __name__ == "__main__":
    main()
