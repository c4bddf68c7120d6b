"""Many readers never slow the league (issue 44): the league's games per minute with and without the
server under load, and the leaderboard page's latency under that load.

    .venv/bin/python benchmarks/server.py                  # 60 s windows
    .venv/bin/python benchmarks/server.py --window 120 --sse 200 --readers 20 --uploads 10
    .venv/bin/python benchmarks/server.py --uploads 0      # what the readers alone cost

A league of the bundled bots (random_bot, heuristic_bot, shell_bot, c_bot, js_bot; tables of three,
one deal: 6 games a table) on 2 workers, in a fresh folder, three windows one after the other:
1. alone: `arena tournament run CONFIG --until W` without the server, its games counted from the results;
2. served: `arena serve CONFIG` plays the same league (resumed: the same bots and cards go on)
   while, on loopback, --sse clients hold /api/events open (each reads every event), --readers
   clients fetch the leaderboard page (/) one request after another, timing each, and --uploads
   uploads of a copy of random_bot (renamed up_N, each its own author) go through /api/bots and
   their checks; its games are counted over the same window;
3. alone again, the league as the served window left it (the uploaded bots in it): a league of
   more bots chooses among more tables, and this is the run without the server that the served
   window is compared with.
The SSE clients and the uploads run in one process, niced below the league's run (the server runs
the league at nice 5): in a class they are the students' browsers, on other machines. The timing
readers run in a process of their own at the server's priority (their own work is a request a
second each), so that their latencies are the server's and not the waits of a niced load
generator; the server itself runs as `arena serve` does.
The last lines read `server: leaderboard p99 X ms (goal < 200), league games per minute: alone A,
served B (B/A = r, goal >= 0.9)`. The windows run one after the other on the same machine: what
else runs on it moves them (the load average is printed at the start and end)."""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
BOTS = ["random_bot", "heuristic_bot", "shell_bot", "c_bot", "js_bot"]


def arena(*args: str, cwd: Path, timeout: float | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def games_stored(database: Path) -> int:
    if not database.exists():
        return 0
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]


def write_league(folder: Path) -> Path:
    config = folder / "league.toml"
    config.write_text(f'name = "bench"\nseed = 5\nbots = {BOTS!r}\nschedule = "league"\nworkers = 2\n'
                      'isolation = "auto"\n'.replace("'", '"'))
    return config


def upload_archive(folder: Path, name: str) -> bytes:
    """A copy of random_bot named `name`, packed as an author would."""
    source = folder / f"src-{name}"
    shutil.copytree(REPO / "bots" / "random_bot", source)
    manifest = source / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random_bot"', f'name = "{name}"'))
    archive = folder / f"{name}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(source, arcname=name)
    return archive.read_bytes()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def sse_client(base: str, stop: asyncio.Event, events: list[int]) -> None:
    """A live client that reads every byte of /api/events and counts its boards: on a plain socket,
    since 200 streams parsed line by line (httpx) took more of the shared cores than the server
    did, and in a class they are other machines' work."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET /api/events HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    marker, tail = b"event: board", b""
    try:
        while not stop.is_set():
            chunk = await reader.read(1 << 16)
            if not chunk:
                raise ConnectionError("the server closed the event stream")
            seen = tail + chunk
            events[0] += seen.count(marker)
            tail = seen[-(len(marker) - 1):]  # a marker split between two reads is counted once
    finally:
        writer.close()


async def reader(client: httpx.AsyncClient, url: str, stop: asyncio.Event, latencies: list[tuple[float, float]],
                 every_s: float) -> None:
    while not stop.is_set():
        at, started = time.time(), time.perf_counter()
        response = await client.get(url)
        latencies.append((at, time.perf_counter() - started))
        if response.status_code != 200:
            raise SystemExit(f"the leaderboard answered {response.status_code}")
        await asyncio.sleep(max(0.0, every_s - (time.perf_counter() - started)))


async def uploader(base: str, tokens: list[tuple[str, str]], archives: dict[str, bytes], done: list[str]) -> None:
    async with httpx.AsyncClient(timeout=60) as client:
        for name, token in tokens:
            response = await client.post(f"{base}/api/bots", headers={"Authorization": f"Bearer {token}"},
                                         files={"archive": (f"{name}.tar.gz", archives[name], "application/gzip")})
            done.append(f"{name}: {response.status_code}")


async def load(base: str, window_s: float, sse: int, tokens: list[tuple[str, str]],
               archives: dict[str, bytes]) -> tuple[int, list[str]]:
    """The niced side of the load: the SSE clients and the uploads, for `window_s`."""
    stop, events, uploads = asyncio.Event(), [0], []
    tasks = [asyncio.create_task(sse_client(base, stop, events)) for _ in range(sse)]
    tasks.append(asyncio.create_task(uploader(base, tokens, archives, uploads)))
    await asyncio.sleep(window_s)
    stop.set()
    await _end(tasks)
    async with httpx.AsyncClient(timeout=30) as client:  # where each upload stands at the window's end
        listed = (await client.get(f"{base}/api/bots")).json()["bots"]
    states = {row["name"]: row.get("state") or {} for row in listed}
    for i, said in enumerate(uploads):
        state = states.get(said.split(":")[0], {})
        uploads[i] = f"{said} {state.get('state', 'not listed')}" + (
            f" ({state['reason']})" if state.get("state") == "refused" else "")
    return events[0], uploads


async def time_readers(base: str, window_s: float, readers: int, every_s: float) -> list[float]:
    """The timing side: `readers` clients loading the leaderboard, each once every `every_s`."""
    stop, latencies = asyncio.Event(), []
    pages = httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=readers + 10))
    tasks = [asyncio.create_task(reader(pages, f"{base}/", stop, latencies, every_s)) for _ in range(readers)]
    await asyncio.sleep(window_s)
    stop.set()
    await _end(tasks)
    await pages.aclose()
    return latencies


async def _end(tasks: list[asyncio.Task]) -> None:
    for task in tasks:
        task.cancel()
    failed = [r for r in await asyncio.gather(*tasks, return_exceptions=True)
              if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)]
    if failed:
        print(f"{len(failed)} clients failed, the first with: {failed[0]!r}", file=sys.stderr, flush=True)


def league_alone(config: Path, database: Path, folder: Path, env: dict, window_s: float) -> float:
    """Games per minute of `arena tournament run CONFIG --until W`, without the server."""
    before = games_stored(database)
    arena("tournament", "run", str(config), "--until", f"{int(window_s)}s", "--update", cwd=folder, env=env)
    return (games_stored(database) - before) * 60 / window_s


def served(config: Path, database: Path, folder: Path, env: dict, args: argparse.Namespace
           ) -> tuple[float, list[float], int, list[str]]:
    """Games per minute of `arena serve CONFIG` under the load; the readers' latencies, the events
    the SSE clients read, the uploads' answers."""
    tokens = []
    for i in range(args.uploads):
        said = arena("author", "add", str(config), f"author{i}", cwd=folder, env=env)
        tokens.append((f"up_{i}", said.stdout.strip().splitlines()[-1].removeprefix("token: ")))
    archives = {name: upload_archive(folder, name) for name, _ in tokens}
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(config), "--port", str(port), "--public"],
                              cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                if httpx.get(f"{base}/api/standings", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        time.sleep(5.0)  # the league's run starts and builds nothing new
        start = games_stored(database)
        timing = subprocess.Popen([sys.executable, __file__, "--time-readers", base, "--window", str(args.window),
                                   "--readers", str(args.readers), "--every", str(args.every)],
                                  stdout=subprocess.PIPE, text=True)
        niced = subprocess.run([sys.executable, __file__, "--load", base, "--window", str(args.window),
                                "--sse", str(args.sse)], input=json.dumps({"tokens": tokens, "archives": {
                                    name: base64.b64encode(data).decode() for name, data in archives.items()}}),
                               stdout=subprocess.PIPE, text=True, preexec_fn=lambda: os.nice(15))
        timed = json.loads(timing.communicate()[0])
        games_per_minute = (games_stored(database) - start) * 60 / args.window
        print_slowest(timed, folder / "league.server.sqlite")
        latencies = [latency for _, latency in timed]
        said = json.loads(niced.stdout)
    finally:
        os.killpg(server.pid, 15)
        server.wait(30)
    return games_per_minute, latencies, said["events"], said["uploads"]


def print_slowest(timed: list[list[float]], server_file: Path, shown: int = 8) -> None:
    """The slowest pages, each with when it was asked (seconds into the window) beside when the
    uploads entered: what the slow ones waited behind."""
    if not timed:
        return
    start = min(at for at, _ in timed)
    slowest = sorted(timed, key=lambda pair: -pair[1])[:shown]
    print("slowest pages (s into the window: ms): " + ", ".join(f"{at - start:.1f}: {latency * 1000:.0f}"
                                                               for at, latency in sorted(slowest)), flush=True)
    with sqlite3.connect(f"file:{server_file}?mode=ro", uri=True) as db:
        entered = [at - start for (at,) in db.execute("SELECT updated_at FROM uploads WHERE state = 'entered'")]
    print("uploads entered (s into the window): " + ", ".join(f"{at:.1f}" for at in sorted(entered)), flush=True)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[int(fraction * (len(ordered) - 1))] * 1000 if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window", type=float, default=60.0, help="seconds each way")
    parser.add_argument("--sse", type=int, default=200)
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--uploads", type=int, default=10)
    parser.add_argument("--every", type=float, default=1.0, help="seconds between one reader's pages")
    parser.add_argument("--time-readers", metavar="URL", help=argparse.SUPPRESS)  # the timing readers' process
    parser.add_argument("--load", metavar="URL", help=argparse.SUPPRESS)  # the niced SSE clients and uploads
    args = parser.parse_args()
    if args.time_readers:
        print(json.dumps(asyncio.run(time_readers(args.time_readers, args.window, args.readers, args.every))))
        return
    if args.load:
        given = json.loads(sys.stdin.read())
        archives = {name: base64.b64decode(data) for name, data in given["archives"].items()}
        events, uploads = asyncio.run(load(args.load, args.window, args.sse, [tuple(t) for t in given["tokens"]],
                                           archives))
        print(json.dumps({"events": events, "uploads": uploads}))
        return
    print(f"load average {os.getloadavg()[0]:.2f} at the start; windows of {args.window:.0f} s", flush=True)
    with tempfile.TemporaryDirectory(prefix="arena-bench-server-") as tmp:
        folder = Path(tmp)
        env = {**os.environ, "XDG_CACHE_HOME": str(folder / "cache")}
        config = write_league(folder)
        database = folder / "league.sqlite"
        arena("tournament", "run", str(config), "--games", "30", cwd=folder, env=env)  # builds, once, before timing
        alone = league_alone(config, database, folder, env, args.window)
        print(f"alone: {alone:.0f} games per minute ({len(BOTS)} bots)", flush=True)
        with_server, latencies, events, uploads = served(config, database, folder, env, args)
        print(f"served: {with_server:.0f} games per minute", flush=True)
        after = league_alone(config, database, folder, env, args.window)
        print(f"alone again: {after:.0f} games per minute ({len(BOTS) + args.uploads} bots)", flush=True)
    p99, median = percentile(latencies, 0.99), percentile(latencies, 0.5)
    print(f"readers: {len(latencies)} leaderboard pages, median {median:.1f} ms, p99 {p99:.1f} ms, "
          f"slowest {percentile(latencies, 1.0):.0f} ms; {events} events read by {args.sse} SSE clients; "
          f"uploads: {', '.join(uploads) or 'none'}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    ratio = with_server / after if after else float("nan")
    print(f"server: leaderboard p99 {p99:.0f} ms (goal < 200), league games per minute: alone {after:.0f} "
          f"(the same bots; {alone:.0f} before the uploads), served {with_server:.0f} (B/A = {ratio:.2f}, goal >= 0.9)")


if __name__ == "__main__":
    main()
