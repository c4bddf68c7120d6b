"""What the replay pages of issue 42 cost: one long game's page, and a big tournament's folder of them.

    .venv/bin/python benchmarks/replay_pages.py                  # 10,000 games
    .venv/bin/python benchmarks/replay_pages.py --games 2000     # smaller
    .venv/bin/python benchmarks/replay_pages.py --no-browser     # without Chromium (the size and the folder only)

What is measured, with the issue's goals:
- page: the self-contained page (`arena replay CONFIG GAME -o game.html`) of a game of at least 300
  moves (random players: the first seed from 1 whose game is that long), its size (goal < 150 KB),
  and how long headless Chromium takes to open it from a file: from the start of the navigation to
  the end of its load event, by which time the page's script has replayed every move and drawn
  the table (goal < 1 s); the median of --opens openings in one browser, the first (cold) beside it.
- folder: the game pages of a tournament's report (`arena standings -o standings.html`: a page per
  stored game, their shared script and style, and the list of games) for --games stored games
  (goal < 30 s for 10,000), timed as `write_report_pages` writes them (a process per core), with
  the pages per second, the bytes written, and the CPU time they took (this process's and its
  workers'), which bounds the time on idle cores where other work shares the machine; and a
  later report of the same games, which keeps the pages. The stored games: a 12-entry round robin at tables of 3 (seed 42), each
  game one of 300 random games (about 230 moves each, longer than bots' games: random players
  rarely go out), with each move's think time, and a fault in 1% of them.

The last line, for scripts:
`replay pages: page300 S KB, open O ms; folder N games W s`.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.game import Rules, game_points  # noqa: E402
from arena.play.records import Fault, FaultKind, GameRecord  # noqa: E402
from arena.play.selfplay import play_random_game  # noqa: E402
from arena.report.game_pages import write_report_pages  # noqa: E402
from arena.report.replay_page import replay_page  # noqa: E402
from arena.results.replay_json import game_replay  # noqa: E402
from arena.results.rows import decode_row, encode_game  # noqa: E402
from arena.results.store import ResultStore  # noqa: E402
from arena.schedule.games import GameSpec, table_games  # noqa: E402
from arena.tournament.config import config_from_dict  # noqa: E402
from arena.tournament.results import TournamentResults  # noqa: E402

ENTRIES = [f"bot{i:02d}" for i in range(12)]
PAGE_KB_GOAL, OPEN_MS_GOAL, FOLDER_S_GOAL = 150, 1000, 30.0


def long_game(moves: int):
    """The first random game (seed 1, 2, ...) of at least `moves` moves, as the store keeps it."""
    rules, rng = Rules(), random.Random(3)
    for seed in range(1, 10_000):
        game = play_random_game(rules, seed, seed % 3)
        if len(game.moves) >= moves:
            think = tuple(rng.lognormvariate(-8.5, 0.8) for _ in game.moves)
            record = GameRecord(1, ("heuristic_bot", "random_bot", "c_bot"), game.outcome, game.transcript,
                                game_points(game.outcome, rules), (), ((0.001,),) * 3, len(game.moves), think)
            spec = GameSpec("t0000-d0000-s00", 0, 0, 0, record.bots, seed, seed % 3)
            encoded, blob, _, _ = encode_game(spec, record, {"arena": "0.1.0", "protocol": 1})
            return decode_row((1, *encoded, blob))
    raise SystemExit(f"no random game of {moves} moves in 10,000 seeds")


def open_times(path: Path, opens: int) -> list[float]:
    """Milliseconds from the start of navigation to the end of the load event, per opening."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"
    for flag in ("--headless=new", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-extensions", "--window-size=1280,900"):
        options.add_argument(flag)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        times = []
        for _ in range(opens):
            driver.get("about:blank")
            driver.get(path.as_uri())
            shown = driver.execute_script("return document.querySelectorAll('[data-card]').length")
            if shown != 52:
                raise SystemExit(f"the page shows {shown} cards, not 52")
            times.append(driver.execute_script(
                "const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime"))
        return times
    finally:
        driver.quit()


def stored_tournament(folder: Path, games: int):
    """A results file of `games` synthetic games and the config that numbers them."""
    rules, rng = Rules(), random.Random(7)
    templates = []
    for i in range(300):
        game = play_random_game(rules, 1000 + i, i % 3)
        templates.append((game, game_points(game.outcome, rules),
                          tuple(rng.lognormvariate(-8.5, 0.8) for _ in game.moves)))
    import itertools

    combos = list(itertools.combinations(ENTRIES, 3))
    deals = math.ceil(games / (len(combos) * 6))
    specs = [spec for deal in range(deals) for index, combo in enumerate(combos)
             for spec in table_games(index, combo, deal + 1, 42)[deal * 6:]][:games]
    path = folder / "bench.sqlite"
    config = config_from_dict({"name": "replay benchmark", "seed": 42, "bots": ENTRIES, "table_size": 3, "deals": deals,
                               "database": str(path)}, folder / "bench.toml")
    store = ResultStore(path)
    encoded = []
    for spec in specs:
        game, points, think = templates[rng.randrange(len(templates))]
        faults = ((Fault(rng.randrange(3), FaultKind.TIMEOUT, "no move within 2 s", rng.randrange(len(game.moves))),)
                  if rng.random() < 0.01 else ())
        record = GameRecord(1, spec.bots, game.outcome, game.transcript, points, faults, ((0.001,),) * 3,
                            len(game.moves), think)
        encoded.append(encode_game(spec, record, {"versions": {name: "v1" for name in spec.bots}}))
    store.add_encoded(encoded)
    return store, config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="stored games whose pages are written")
    parser.add_argument("--opens", type=int, default=7, help="openings of the long game's page timed")
    parser.add_argument("--no-browser", action="store_true", help="skip the opening time (no Chromium)")
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="replay-bench-") as tmp:
        folder = Path(tmp)
        row = long_game(300)
        page = replay_page(game_replay(row, 1, tournament="replay benchmark"))
        path = folder / "game.html"
        path.write_text(page, encoding="utf-8")
        size_kb = len(page.encode("utf-8")) / 1000
        print(f"page: a game of {len(row.transcript.moves)} moves, {size_kb:.1f} KB (goal < {PAGE_KB_GOAL} KB)")
        open_ms = float("nan")
        if not args.no_browser:
            times = open_times(path, args.opens)
            open_ms = statistics.median(times)
            print(f"  opened in headless Chromium: median {open_ms:.0f} ms of {len(times)} (first {times[0]:.0f} ms, "
                  f"slowest {max(times):.0f} ms; goal < {OPEN_MS_GOAL} ms)")
        built = time.perf_counter()
        store, config = stored_tournament(folder, args.games)
        print(f"folder: {args.games:,} stored games built in {time.perf_counter() - built:.1f} s")
        started, cpu_before = time.perf_counter(), os.times()
        results = TournamentResults.on_store(store, config)  # the results object every report reads through
        try:
            written = write_report_pages(folder / "standings-games", results)
            took = time.perf_counter() - started
            cpu_after = os.times()  # this process's and its worker processes' (reaped) CPU
            again = time.perf_counter()
            write_report_pages(folder / "standings-games", results)  # a later report: nothing new
            again = time.perf_counter() - again
        finally:
            store.close()
        cpu_s = sum(after - before for after, before in zip(cpu_after[:4], cpu_before[:4]))
        size = sum(f.stat().st_size for f in (folder / "standings-games").iterdir())
        print(f"  {written:,} pages and their list written in {took:.1f} s, {written / took:.0f} pages/s, "
              f"{size / 1e6:.1f} MB ({size / written / 1000:.1f} KB a page; goal < {FOLDER_S_GOAL:.0f} s for 10,000)")
        cores = len(os.sched_getaffinity(0))
        print(f"  CPU: {cpu_s:.1f} s in all, {cpu_s / written * 1000:.2f} ms a page: on {cores} idle cores "
              f"about {cpu_s / cores:.1f} s (the elapsed time above is what this machine's load left)")
        print(f"  a later report, with no new game: {again:.1f} s (the pages kept)")
        for goal, met in ((f"page < {PAGE_KB_GOAL} KB", size_kb < PAGE_KB_GOAL),
                          (f"opens < {OPEN_MS_GOAL} ms", args.no_browser or open_ms < OPEN_MS_GOAL),
                          (f"10,000 pages < {FOLDER_S_GOAL:.0f} s",
                           took * 10_000 / args.games < FOLDER_S_GOAL if args.games < 10_000 else took < FOLDER_S_GOAL)):
            print(f"  {'met' if met else 'NOT MET'}: {goal}")
        print(f"replay pages: page300 {size_kb:.1f} KB, open {open_ms:.0f} ms; folder {written} games {took:.1f} s")


if __name__ == "__main__":
    main()
