"""Many readers never slow the league (issue 44): the league's games per minute with and without the
server under load, and the leaderboard page's latency under that load.

    .venv/bin/python benchmarks/server.py                  # 60 s windows, 3 served
    .venv/bin/python benchmarks/server.py --window 120 --sse 200 --readers 20 --uploads 10
    .venv/bin/python benchmarks/server.py --uploads 0      # what the readers alone cost

A league of five copies of random_bot (bench_0..4; tables of three, one deal: 6 games a table) on
2 workers. Every bot, uploads included, plays as random_bot does, so a table costs the same
whichever bots the matchmaking seats at it: with the bundled bots (c_bot against js_bot) the same
league alone ran between 990 and 2,034 games a minute from one window to the next, which hid any
10% the server might cost. The league is prepared once (its bots checked, built and past 30
games), and each window plays a copy of it, from the same results and the same cards; --rounds 3
(the default) runs alone, served, alone, served, alone, served, alone (about 12 minutes):
1. alone: `arena tournament run CONFIG` without the server, at the server league's nice; with
   --uploads, the same bots as the uploads (up_N, copies of random_bot) are checked and entered at
   the window's start as the server's check child does, in one process at its nice: a league takes
   a new bot only once checked here, with the server or without it;
2. served: `arena serve CONFIG` plays it while, on loopback, --sse clients hold /api/events open
   (each reads every event; all connected before the window starts, and how long that took is
   printed), --readers clients fetch the leaderboard page (/) one request after another, timing
   each, and the uploads go through /api/bots (each its own author) and their checks.
Each served window is compared with the mean of the two alone on either side of it (the machine's
own drift moved windows alone by up to a fifth over a run), and B/A is the mean of those ratios.
Each window starts WARM_S after the run's first game and counts the games that finished in it.
The SSE clients and the uploads run in one process that takes only a core nothing else wants
(SCHED_IDLE): in a class they are the students' browsers, on other machines, and their own CPU
(printed with the readers': 2.2-3.2 s a window; at nice 19, with httpx readers, about 6 s, which
the league lost) is not the server's. The timing
readers run in a process of their own at the server's priority (their own work is a request a
second each, on plain sockets: with httpx they took 3.8 s of CPU in a 30 s window, now 1.1 s), so
that their latencies are the server's and not the waits of a niced load generator; the server runs
as `arena serve` does.
The last lines read `server: leaderboard p99 X ms (goal < 200), league games per minute: alone A,
served B (B/A = r, goal >= 0.9)`; each served window's line gives the server process's own CPU
time in it, and the clients'. The windows run one after the other on the same machine: what else
runs on it moves them (the load average is printed at the start and end)."""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import math
import os
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any, Coroutine, TypeVar

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arena.server.league import LEAGUE_NICE  # noqa: E402  the server runs its league and checks so niced
from arena.server.uploads import CHECK_NICE  # noqa: E402

T = TypeVar("T")
CLIENTS_NICE = 19  # the live clients and uploads: in a class, other machines' work


def as_other_machines() -> None:
    """The live clients' process takes only a core nothing else wants (SCHED_IDLE; nice 19 where
    that is refused): in a class they run on the students' machines, not on the league's cores."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(CLIENTS_NICE)

REPO = Path(__file__).resolve().parents[1]
BOTS = [f"bench_{i}" for i in range(5)]
WARM_PAGES = 3  # rounds of untimed pages before a timing reader's window
WARM_S = 3.0  # after the league's first game: its run has started its workers


def arena(*args: str, cwd: Path, timeout: float | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def games_finished(database: Path, since: float = 0.0, until: float = float("inf")) -> int:
    """Games stored with `finished_at` in [since, until): a window's games, whatever ran before it."""
    if not database.exists():
        return 0
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        try:
            return db.execute("SELECT COUNT(*) FROM games WHERE finished_at >= ? AND finished_at < ?",
                              (since, until)).fetchone()[0]
        except sqlite3.OperationalError:  # made, its tables not yet written
            return 0


def copy_of(name: str, into: Path) -> Path:
    """A copy of random_bot named `name`: every bot of the benchmark's league plays as it does, so
    that a table costs the same whichever bots the league's matchmaking seats at it."""
    folder = into / name
    shutil.copytree(REPO / "bots" / "random_bot", folder)
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random_bot"', f'name = "{name}"'))
    return folder


def write_league(folder: Path) -> Path:
    config = folder / "league.toml"
    entries = [f"./bots/{name}" for name in BOTS]
    config.write_text(f'name = "bench"\nseed = 5\nbots = {entries!r}\nschedule = "league"\nworkers = 2\n'
                      'isolation = "auto"\n'.replace("'", '"'))
    return config


def upload_archive(source: Path) -> bytes:
    """The bot folder packed as an author would."""
    archive = source.with_suffix(".tar.gz")
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(source, arcname=source.name)
    return archive.read_bytes()


def run_loop(work: Coroutine[Any, Any, T]) -> T:
    """`work` to its end on uvloop (the server extra's, which uvicorn uses too), else asyncio's loop:
    the clients' own CPU is the league's lost on these shared cores."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(work)
    return uvloop.run(work)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def sse_client(base: str, stop: asyncio.Event, events: list[int], ready: list[int]) -> None:
    """A live client that reads every byte of /api/events and counts its boards: on a plain socket,
    since 200 streams parsed line by line (httpx) took more of the shared cores than the server
    did, and in a class they are other machines' work."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET /api/events HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    marker, tail, first_seen = b"event: board", b"", False
    try:
        while not stop.is_set():
            chunk = await reader.read(1 << 16)
            if not chunk:
                raise ConnectionError("the server closed the event stream")
            seen = tail + chunk
            if not first_seen and marker in seen:
                first_seen, ready[0] = True, ready[0] + 1
            events[0] += seen.count(marker)
            tail = seen[-(len(marker) - 1):]  # a marker split between two reads is counted once
    finally:
        writer.close()


class PageClient:
    """One reader's keep-alive connection, asking for a page and reading all of it: on a plain
    socket, as the live clients are, since httpx's own work for 20 pages a second (3.8 s of CPU in
    a 30 s window, against 1.1 s) was CPU the league lost: the timing readers run at the server's
    priority."""

    def __init__(self, base: str) -> None:
        self.host, port = base.removeprefix("http://").split(":")
        self.port = int(port)
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def get(self, path: str) -> int:
        """The page's status once its last byte is read (ValueError: not an HTTP answer read whole)."""
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.host, self.port)
        reader, writer = self.streams
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n\r\n".encode())
            await writer.drain()
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            fields = dict(line.split(":", 1) for line in head[1:] if ":" in line)
            length = {name.strip().lower(): value.strip() for name, value in fields.items()}.get("content-length")
            if length is None:
                raise ValueError(f"no Content-Length in the answer to {path}: {head[0]}")
            await reader.readexactly(int(length))
            return int(head[0].split()[1])
        except BaseException:
            self.close()  # a connection left mid-answer is not used again
            raise

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


async def reader(client: PageClient, stop: asyncio.Event, latencies: list[tuple[float, float]],
                 every_s: float) -> None:
    while not stop.is_set():
        at, started = time.time(), time.perf_counter()
        try:
            ok = await client.get("/") == 200
        except (OSError, ValueError, asyncio.IncompleteReadError) as exc:  # counted as a page never served, and said
            print(f"a leaderboard request failed: {exc!r}", file=sys.stderr, flush=True)
            ok = False
        latencies.append((at, time.perf_counter() - started if ok else math.inf))
        await asyncio.sleep(max(0.0, every_s - (time.perf_counter() - started)))


async def uploader(base: str, tokens: list[tuple[str, str]], archives: dict[str, bytes], done: list[str]) -> None:
    async with httpx.AsyncClient(timeout=60) as client:
        for name, token in tokens:
            response = await client.post(f"{base}/api/bots", headers={"Authorization": f"Bearer {token}"},
                                         files={"archive": (f"{name}.tar.gz", archives[name], "application/gzip")})
            done.append(f"{name}: {response.status_code}")


async def load(base: str, window_s: float, sse: int, tokens: list[tuple[str, str]],
               archives: dict[str, bytes]) -> tuple[int, list[str]]:
    """The niced side of the load: the SSE clients, connected before the window (its first line out
    says how long that took), then, once told "go", the uploads; for `window_s`."""
    stop, events, ready, uploads = asyncio.Event(), [0], [0], []
    started = time.perf_counter()
    tasks = [asyncio.create_task(sse_client(base, stop, events, ready)) for _ in range(sse)]
    while ready[0] < sse and time.perf_counter() - started < 120:
        await asyncio.sleep(0.05)
    print(json.dumps({"connected": ready[0], "seconds": time.perf_counter() - started}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)  # "go"
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
    clients = [PageClient(base) for _ in range(readers)]
    # Untimed first: each reader's connection opened and the client's own first use paid (in a run
    # without this the slowest pages were the first seconds' whether uploads came or not).
    for _ in range(WARM_PAGES):
        await asyncio.gather(*(client.get("/") for client in clients))
    tasks = [asyncio.create_task(reader(client, stop, latencies, every_s)) for client in clients]
    await asyncio.sleep(window_s)
    stop.set()
    await _end(tasks)
    for client in clients:
        client.close()
    return latencies


async def _end(tasks: list[asyncio.Task]) -> None:
    for task in tasks:
        task.cancel()
    failed = [r for r in await asyncio.gather(*tasks, return_exceptions=True)
              if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)]
    if failed:
        print(f"{len(failed)} clients failed, the first with: {failed[0]!r}", file=sys.stderr, flush=True)


def first_game(database: Path, since: float, process: subprocess.Popen, what: str) -> float:
    """When the league's run (started at `since`) is playing: WARM_S after its first game stored."""
    while games_finished(database, since) == 0:
        if process.poll() is not None:
            raise SystemExit(f"{what} ended (exit code {process.returncode}) before it stored a game")
        time.sleep(0.2)
    time.sleep(WARM_S)
    return time.time()


def enter_by_hand(config: Path, sources: list[Path]) -> None:
    """The league takes the bots without the server: each checked as the server's check child checks
    an upload (in one process, under the config's ceilings), then the passing ones entered together
    (arena/server/entering.py `enter`): the work of taking new bots that a league pays either way."""
    from arena.server.entering import check_folder, enter
    from arena.server.paths import ServerPaths

    paths, checked = ServerPaths(config), []
    for source in sources:
        report = check_folder(paths, source)
        if report.passed:
            checked.append((source, source.name, report.to_dict()))
    enter(paths, checked)


def league_alone(folder: Path, env: dict, args: argparse.Namespace) -> float:
    """Games per minute of `arena tournament run CONFIG` without the server, over a window that
    starts once it plays; with --uploads, the same bots as the served window's uploads are checked
    and entered by hand at the window's start, niced as the server's checks are."""
    config, database, started = folder / "league.toml", folder / "league.sqlite", time.time()
    run = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", str(config), "--until",
                            f"{int(args.window + 60)}s", "--update"], cwd=folder, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                           preexec_fn=lambda: os.nice(LEAGUE_NICE))
    try:
        start = first_game(database, started, run, "the league's run")
        ticks = cpu_ticks()
        sources = [folder / "uploads" / name for name in upload_names(args)]
        entering = subprocess.Popen([sys.executable, __file__, "--enter", str(config), *map(str, sources)], cwd=folder,
                                    env=env, preexec_fn=lambda: os.nice(CHECK_NICE)) if sources else None
        time.sleep(max(0.0, start + args.window - time.time()))
        if entering is not None and entering.poll() is None:
            print("the bots entered by hand were not all in when the window ended", flush=True)
        print(f"{len(tomllib.loads(config.read_text())['bots'])} bots in the league at the window's end; "
              f"{steal_words(ticks)}", flush=True)
        return games_finished(database, start, start + args.window) * 60 / args.window
    finally:
        os.killpg(run.pid, signal.SIGTERM)
        run.wait(60)
        if entering is not None:
            entering.wait(120)


def upload_names(args: argparse.Namespace) -> list[str]:
    return [f"up_{i}" for i in range(args.uploads)]


def cpu_ticks() -> tuple[int, int]:
    """This machine's CPU time stolen by its host (a virtual machine's `steal`) and all of it, in ticks."""
    fields = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return fields[7], sum(fields)


def steal_words(since: tuple[int, int]) -> str:
    stolen, total = (now - then for now, then in zip(cpu_ticks(), since))
    return f"the host took {stolen / total:.1%} of this machine's CPU time (steal)" if total else ""


def cpu_seconds(pid: int) -> float:
    """The process's own CPU time (user + system, not its children's), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds() -> float:
    """The CPU time of this process's children that have ended (here: the load's clients)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def served(folder: Path, env: dict, args: argparse.Namespace) -> tuple[float, list[float], int, list[str], float]:
    """Games per minute of `arena serve CONFIG` under the load; the readers' latencies, the events
    the SSE clients read, the uploads' answers, the server process's own CPU seconds in the window."""
    config, database = folder / "league.toml", folder / "league.sqlite"
    tokens = [(name, token) for name, token in json.loads((folder / "tokens.json").read_text())]
    archives = {name: upload_archive(folder / "uploads" / name) for name, _ in tokens}
    port, started = free_port(), time.time()
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(config), "--port", str(port), "--public"],
                              cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        first_game(database, started, server, "the server")
        niced = subprocess.Popen([sys.executable, __file__, "--load", base, "--window", str(args.window),
                                  "--sse", str(args.sse)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                 preexec_fn=as_other_machines)
        niced.stdin.write(json.dumps({"tokens": tokens, "archives": {
            name: base64.b64encode(data).decode() for name, data in archives.items()}}) + "\n")
        niced.stdin.flush()
        connected = json.loads(niced.stdout.readline())  # the live clients all connected: the window starts
        print(f"{connected['connected']} SSE clients connected in {connected['seconds']:.1f} s, before the window",
              flush=True)
        start, cpu_before, clients_before = time.time(), cpu_seconds(server.pid), children_cpu_seconds()
        ticks = cpu_ticks()
        timing = subprocess.Popen([sys.executable, __file__, "--time-readers", base, "--window", str(args.window),
                                   "--readers", str(args.readers), "--every", str(args.every)],
                                  stdout=subprocess.PIPE, text=True)
        niced.stdin.write("go\n")
        niced.stdin.flush()
        timed = json.loads(timing.communicate()[0])
        said = json.loads(niced.communicate()[0])
        time.sleep(max(0.0, start + args.window - time.time()))
        server_cpu_s = cpu_seconds(server.pid) - cpu_before
        print(steal_words(ticks), flush=True)
        print(f"the clients' own CPU in the window (SSE, readers, uploads): "
              f"{children_cpu_seconds() - clients_before:.1f} s", flush=True)
        games_per_minute = games_finished(database, start, start + args.window) * 60 / args.window
        print_slowest(timed, folder / "league.server.sqlite")
        latencies = [latency for _, latency in timed]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(60)
    return games_per_minute, latencies, said["events"], said["uploads"], server_cpu_s


def prepare_league(folder: Path, env: dict) -> Path:
    """The benchmark's league in `folder`: its bots checked, built and past their first 30 games."""
    (folder / "bots").mkdir(parents=True)
    config = write_league(folder)
    for name in BOTS:
        checked = arena("bot", "check", str(copy_of(name, folder / "bots")), cwd=folder, env=env)
        if checked.returncode != 0:
            raise SystemExit(f"{name} failed its check:\n{checked.stdout}{checked.stderr}")
    arena("tournament", "run", str(config), "--games", "30", cwd=folder, env=env)
    return config


def prepare(folder: Path, env: dict, args: argparse.Namespace) -> None:
    """The league every window starts from (each window plays a copy of it), and the uploads'
    folders and their authors' tokens."""
    config = prepare_league(folder, env)
    tokens = []
    for i, name in enumerate(upload_names(args)):
        copy_of(name, folder / "uploads")
        said = arena("author", "add", str(config), f"author{i}", cwd=folder, env=env)
        tokens.append((name, said.stdout.strip().splitlines()[-1].removeprefix("token: ")))
    (folder / "tokens.json").write_text(json.dumps(tokens))


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
    parser.add_argument("--rounds", type=int, default=3, help="served windows, each between two alone")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between one reader's pages")
    parser.add_argument("--time-readers", metavar="URL", help=argparse.SUPPRESS)  # the timing readers' process
    parser.add_argument("--load", metavar="URL", help=argparse.SUPPRESS)  # the niced SSE clients and uploads
    parser.add_argument("--enter", nargs="+", metavar="CONFIG", help=argparse.SUPPRESS)  # bots entered by hand
    args = parser.parse_args()
    if args.time_readers:
        print(json.dumps(run_loop(time_readers(args.time_readers, args.window, args.readers, args.every))))
        return
    if args.load:
        given = json.loads(sys.stdin.readline())
        archives = {name: base64.b64decode(data) for name, data in given["archives"].items()}
        events, uploads = run_loop(load(args.load, args.window, args.sse, [tuple(t) for t in given["tokens"]],
                                           archives))
        print(json.dumps({"events": events, "uploads": uploads}))
        return
    if args.enter:
        enter_by_hand(Path(args.enter[0]), [Path(source) for source in args.enter[1:]])
        return
    print(f"load average {os.getloadavg()[0]:.2f} at the start; windows of {args.window:.0f} s", flush=True)
    with tempfile.TemporaryDirectory(prefix="arena-bench-server-") as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        prepare(Path(tmp) / "base", env, args)
        alone, served_pace, latencies, events = [], [], [], 0
        for number, window in enumerate(["alone", *["served", "alone"] * args.rounds]):
            folder = Path(tmp) / f"window-{number}"
            shutil.copytree(Path(tmp) / "base", folder, symlinks=True)
            if window == "served":
                pace, timed, read, uploads, server_cpu_s = served(folder, env, args)
                served_pace.append(pace)
                latencies += timed
                events += read
                print(f"uploads: {', '.join(uploads) or 'none'}; the server process's own CPU in the window: "
                      f"{server_cpu_s:.1f} s of {2 * args.window:.0f} core-seconds", flush=True)
            else:
                pace = league_alone(folder, env, args)
                alone.append(pace)
            shutil.rmtree(folder)
            print(f"{window}: {pace:.0f} games per minute", flush=True)
    p99, median = percentile(latencies, 0.99), percentile(latencies, 0.5)
    failed = sum(1 for latency in latencies if latency == math.inf)
    print(f"readers: {len(latencies)} leaderboard pages ({failed} not served: counted as endless), median {median:.1f} ms, p99 {p99:.1f} ms, "
          f"slowest {percentile(latencies, 1.0):.0f} ms (all served windows); {events} events read in all "
          f"({args.sse} SSE clients a window)")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    # Each served window against the mean of the two alone on either side of it: the machine's
    # drift over the run (it moved the windows alone by up to a fifth) cancels out of each pair.
    paired = [pace / ((alone[i] + alone[i + 1]) / 2) for i, pace in enumerate(served_pace)]
    print(f"alone: {', '.join(f'{pace:.0f}' for pace in alone)} games per minute; served: "
          f"{', '.join(f'{pace:.0f}' for pace in served_pace)}; each served window over the mean of the two "
          f"alone around it: {', '.join(f'{ratio:.2f}' for ratio in paired)}")
    print(f"server: leaderboard p99 {p99:.0f} ms (goal < 200), league games per minute: alone "
          f"{sum(alone) / len(alone):.0f}, served {sum(served_pace) / len(served_pace):.0f} "
          f"(B/A = {sum(paired) / len(paired):.2f}, the mean of the pairs; goal >= 0.9)")

if __name__ == "__main__":
    main()
