"""What two colluding bots at one table can still pass each other through the machine, isolated
(docs/sandbox.md, threat model): bits per second and the error rate of the best channel built here
from what remains, CPU timing, beside the counters the sandbox masks (issue 39).

The bots are tests/bots/hostile/channel.py: a sender and a receiver that know the bits and agree
on slots of a given length. `counters`: the sender moves the machine's open files, threads and
free memory, the receiver reads every counter it finds (masked: its errors are a guess's).
`cpu`: the sender keeps every core busy for a 1, the receiver counts the turns of a loop of its
own (fewer: a 1). What the colluders could pass with coding is the mutual information of the bits
sent and the bits read, times the bits per second: for a channel that flips a bit with probability
p, R (1 - H(p)) bits/s; for a reader that reads nothing (all zeros, say), 0 whatever its errors.
Usage: python benchmarks/covert_channel.py [SECONDS_PER_RUN]   (default 8)
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from arena.game import Rules  # noqa: E402
from arena.play.match import open_table, play_match  # noqa: E402
from arena.play.records import TimeLimits  # noqa: E402
from arena.play.startup import BotSettings  # noqa: E402
from arena.sandbox.isolation import find_isolation  # noqa: E402
from arena.submission.lookup import load_manifest  # noqa: E402

HOSTILE = Path(__file__).resolve().parents[1] / "tests" / "bots" / "hostile"
SEED = 39


def entropy(p: float) -> float:
    return 0.0 if p <= 0.0 or p >= 1.0 else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def information(sent: str, got: str) -> float:
    """The mutual information of a sent and a read bit, in bits, from their joint counts."""
    pairs = list(zip(sent, got))
    p_got = got.count("1") / len(got)
    given = 0.0
    for bit in "01":
        read = [g for s, g in pairs if s == bit]
        if read:
            given += len(read) / len(pairs) * entropy(read.count("1") / len(read))
    return max(0.0, entropy(p_got) - given)


def run(medium: str, slot_s: float, bits: int) -> tuple[str, dict[str, str]]:
    """One match of the pair; (the bits sent, by medium the bits received)."""
    args = (medium, str(slot_s), str(bits), str(SEED))
    ends = []
    for role, toml in (("send", "channel_send.toml"), ("receive", "channel_recv.toml")):
        manifest = load_manifest(HOSTILE / toml)
        ends.append(dataclasses.replace(manifest, command=("{python}", "channel.py", role, *args)))
    limits = TimeLimits(move_timeout_s=bits * slot_s + 30.0, startup_timeout_s=30.0)
    with tempfile.TemporaryDirectory() as folder:
        logs = Path(folder)
        with open_table(ends, BotSettings(limits=limits, log_dir=logs)) as seats:
            play_match(seats, Rules.from_options({"num_players": "2"}), 5, games=1, limits=limits)
        said = {label: [line.split()[1:] for line in (logs / f"{label}.stderr.log").read_text().splitlines()
                        if line.startswith("channel: ")] for label in ("seat0-channel_send", "seat1-channel_receive")}
    sent = said["seat0-channel_send"][0][1]
    return sent, {words[1]: words[2] for words in said["seat1-channel_receive"]}


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
    isolation = find_isolation()
    print(f"isolation here: {isolation.summary()}; load before: {os.getloadavg()[0]:.2f}; cores: {os.cpu_count()}")
    if not isolation.active:
        raise SystemExit("nothing to measure: bots cannot be isolated on this machine")
    print(f"{'medium':<16} {'slot':>7} {'bits':>5} {'errors':>7} {'raw bit/s':>10} {'capacity bit/s':>15}")
    best = (0.0, "")
    for medium, slot_s in (("counters", 0.2), ("cpu", 0.2), ("cpu", 0.1), ("cpu", 0.05), ("cpu", 0.025), ("cpu", 0.0125),
                           ("cpu", 0.00625), ("cpu", 0.003125)):
        bits = max(16, min(400, int(seconds / slot_s)))
        sent, received = run(medium, slot_s, bits)
        for name, got in sorted(received.items()):
            errors = sum(a != b for a, b in zip(sent, got)) / len(sent)
            capacity = (1.0 / slot_s) * information(sent, got)
            if medium == "cpu" and capacity > best[0]:
                best = (capacity, f"{name} at {slot_s * 1000:g} ms slots: {errors:.1%} errors")
            print(f"{name:<16} {slot_s * 1000:5.1f}ms {bits:5d} {errors:7.1%} {1.0 / slot_s:10.1f} {capacity:15.2f}")
    print(f"best channel left (timing): {best[0]:.2f} bit/s ({best[1]}); load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
