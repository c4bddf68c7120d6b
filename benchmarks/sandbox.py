"""What isolation adds to a bot's start: the time from starting a bot to its `hello`, with the same
sandbox (rlimits, cgroup, watchdog) and isolation off, then on (bubblewrap), alternating.

Goal (issue 18): at most 20 ms more per bot start on this machine. Two bots: a shell one-liner
(the start-up of the sandbox itself shows) and the bundled random_bot (a Python bot). The seccomp
filter and the limits are in force in both modes, so the difference is the isolation's own. Then,
for a granted ZeroMQ bot on tcp, what its relay adds to its start, against the same bot on ipc
(both isolated): it is paid only by such bots.
Usage: python benchmarks/sandbox.py [STARTS]   (default 40 of each bot in each mode)
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from arena.play.match import close_seat  # noqa: E402
from arena.play.records import TimeLimits  # noqa: E402
from arena.play.startup import BotSettings, connect_bot  # noqa: E402
from arena.sandbox.isolation import find_isolation  # noqa: E402
from arena.submission.lookup import load_manifest  # noqa: E402


def start_times_ms(manifest, isolation: str, starts: int, grants=None) -> list[float]:
    settings = BotSettings(limits=TimeLimits(startup_timeout_s=30.0), isolation=isolation, grants=grants)
    times = []
    for i in range(starts):
        started = time.perf_counter()
        seat, name = connect_bot(manifest, settings, f"bench{i}")
        elapsed = (time.perf_counter() - started) * 1000.0
        if not name:
            raise SystemExit(f"{manifest.name} did not start ({isolation}): {seat.dead_reason}")
        close_seat(seat)
        times.append(elapsed)
    return times


def main() -> None:
    starts = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    isolation = find_isolation()
    print(f"isolation here: {isolation.summary()}")
    if not isolation.active:
        raise SystemExit("nothing to measure: bots cannot be isolated on this machine")
    with tempfile.TemporaryDirectory() as folder:
        tiny = Path(folder) / "tiny"
        tiny.mkdir()
        (tiny / "bot.toml").write_text('name = "tiny"\ncommand = ["sh", "-c", "echo hello name=tiny; cat > /dev/null"]\n')
        os.chmod(folder, 0o755)  # readable by the unprivileged bot of a root arena: no private copy
        bots = [load_manifest(tiny), load_manifest("random_bot")]
        extra = []
        for manifest in bots:
            off, on = [], []
            for _ in range(starts // 5):  # alternate in rounds, so a busy moment hits both modes
                off += start_times_ms(manifest, "off", 5)
                on += start_times_ms(manifest, "auto", 5)
            added = statistics.median(on) - statistics.median(off)
            extra.append(added)
            print(f"{manifest.name:>10}: start to hello, median of {len(off)}: isolation off "
                  f"{statistics.median(off):6.1f} ms, on {statistics.median(on):6.1f} ms; "
                  f"isolation adds {added:5.1f} ms (means {statistics.mean(off):.1f} / {statistics.mean(on):.1f} ms)")
        zmq_ipc = load_manifest("zmq_bot")
        zmq_tcp = dataclasses.replace(zmq_ipc, zmq_endpoint_kind="tcp")
        ipc, tcp = [], []
        for _ in range(starts // 5):
            ipc += start_times_ms(zmq_ipc, "auto", 5)
            tcp += start_times_ms(zmq_tcp, "auto", 5, grants={"zmq_bot": {"zmq_tcp": True}})
        print(f"   zmq_bot: start to hello, median of {len(ipc)}, isolated: ipc {statistics.median(ipc):6.1f} ms, "
              f"tcp through the relay {statistics.median(tcp):6.1f} ms; the relay adds "
              f"{statistics.median(tcp) - statistics.median(ipc):5.1f} ms (only to bots granted tcp)")
    worst = max(extra)
    print(f"isolation adds at most {worst:.1f} ms per bot start (goal <= 20 ms): {'met' if worst <= 20 else 'NOT met'}")


if __name__ == "__main__":
    main()
