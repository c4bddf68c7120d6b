"""Two colluding test bots at one table that pass bits through a counter of the whole machine
(docs/sandbox.md, "What a bot sees of the machine"): `channel.py send MEDIUM SLOT_S BITS SEED` and
`channel.py receive MEDIUM SLOT_S BITS SEED`.

Both know the bits (from SEED) and start their slots half a second after their first `game` line,
which the arena sends to both at once; each holds its first answer until the channel is done, and
then plays the first legal move. In each slot the sender sends a 1 by moving the medium and a 0 by
leaving it; the receiver samples the medium in the middle of each slot and decodes after the last
one (above its median: 1). On stderr: "channel: sent BITS t0=EPOCH" and "channel: received NAME BITS".

Media:
* `counters`: the sender and 8 children of its open 200 files each, it starts 30 threads and takes 64 MB; the receiver reads the
  machine's open files (/proc/sys/fs/file-nr), inodes (inode-nr), threads (/proc/loadavg and
  sysinfo), forks (/proc/stat `processes`, per slot) and free memory (/proc/meminfo, sysinfo).
* `cpu`: the sender keeps every processor busy; the receiver counts the turns of a loop of its own
  in the slot (fewer: 1). What remains when every counter is masked: timing.
"""

import ctypes
import os
import random
import statistics
import sys
import threading
import time

ROLE, MEDIUM = sys.argv[1], sys.argv[2]
SLOT_S, BITS, SEED = float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
START_AFTER_S = 0.5
FILE_HOLDERS = 8
DONE = threading.Event()


def say(text):
    print(f"channel: {text}", file=sys.stderr, flush=True)


def the_bits():
    rng = random.Random(SEED)
    return [rng.getrandbits(1) for _ in range(BITS)]


def wait_until(moment):
    while True:
        left = moment - time.time()
        if left <= 0:
            return
        time.sleep(min(left, 0.05))


# ---------------------------------------------------------------- the sender


def _hold(until):
    time.sleep(max(0.0, until - time.time()))


def _open_files(count):
    files = []
    try:
        for _ in range(count):
            files.append(os.open("/dev/null", os.O_RDONLY))
    except OSError:
        pass
    return files


def send_counters(until):
    children = []
    for _ in range(FILE_HOLDERS):  # each holds its own 200: open files are bounded per process
        pid = os.fork()
        if pid == 0:
            _open_files(200)
            _hold(until)
            os._exit(0)
        children.append(pid)
    files = _open_files(200)
    memory = bytearray(64 << 20)
    memory[::4096] = b"x" * len(memory[::4096])  # touched: resident
    threads = [threading.Thread(target=_hold, args=(until,)) for _ in range(30)]
    for thread in threads:
        try:
            thread.start()
        except RuntimeError:
            break
    _hold(until)
    for thread in threads:
        if thread.ident is not None:
            thread.join()
    for fd in files:
        os.close(fd)
    for pid in children:
        os.waitpid(pid, 0)
    del memory


def _spin(until):
    while time.time() < until:
        pass


def send_cpu(until):
    spinners = [threading.Thread(target=_spin, args=(until,)) for _ in range(os.cpu_count() or 1)]
    # Python threads share one interpreter lock: processes keep every core busy.
    children = []
    for _ in range(os.cpu_count() or 1):
        pid = os.fork()
        if pid == 0:
            _spin(until)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    del spinners


def sender(t0):
    bits = the_bits()
    say(f"sent {''.join(map(str, bits))} t0={t0:.3f} slot={SLOT_S}")
    for index, bit in enumerate(bits):
        start, end = t0 + index * SLOT_S, t0 + (index + 1) * SLOT_S
        wait_until(start)
        if bit:
            (send_cpu if MEDIUM == "cpu" else send_counters)(end - 0.02 * SLOT_S)
    wait_until(t0 + BITS * SLOT_S)


# ---------------------------------------------------------------- the receiver


class _Sysinfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3), ("totalram", ctypes.c_ulong),
                ("freeram", ctypes.c_ulong), ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong), ("procs", ctypes.c_ushort),
                ("pad", ctypes.c_ushort), ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_f", ctypes.c_char * 8)]


_libc = ctypes.CDLL(None, use_errno=True)


def _sysinfo():
    info = _Sysinfo()
    return info if _libc.sysinfo(ctypes.byref(info)) == 0 else None


def _first_number(path, field=0, key=None):
    try:
        with open(path) as f:
            for line in f:
                words = line.replace("/", " ").split()
                if key is None:
                    return float(words[field])
                if words and words[0] == key:
                    return float(words[field])
    except (OSError, ValueError, IndexError):
        return None
    return None


def read_counters():
    """Each medium's value now (None where it cannot be read); higher is a 1 for every one."""
    info = _sysinfo()
    free = _first_number("/proc/meminfo", 1, "MemAvailable:")
    return {
        "file-nr": _first_number("/proc/sys/fs/file-nr"),
        "inode-nr": _first_number("/proc/sys/fs/inode-nr"),
        "loadavg-threads": _first_number("/proc/loadavg", 4),
        "stat-processes": _first_number("/proc/stat", 1, "processes"),
        "meminfo-used": None if free is None else -free,
        "sysinfo-procs": None if info is None else float(info.procs),
        "sysinfo-used": None if info is None else -float(info.freeram) * info.mem_unit,
    }


def decode(values, differences=False):
    """A bit per slot: 1 where the value is above the middle of its low and high levels (the 10th
    and 90th percentiles); 0 for every slot when nothing was read or nothing moved."""
    if differences:  # a count since boot: its rise since the slot before
        values = [None] + [None if a is None or b is None else b - a for a, b in zip(values, values[1:])]
    known = sorted(v for v in values if v is not None)
    if not known or known[0] == known[-1]:
        return [0] * len(values)
    middle = (known[len(known) // 10] + known[-1 - len(known) // 10]) / 2
    return [1 if value is not None and value > middle else 0 for value in values]


def receiver(t0):
    samples = []
    for index in range(BITS):
        start = t0 + index * SLOT_S
        wait_until(start + 0.4 * SLOT_S)
        if MEDIUM == "cpu":
            turns, until = 0, start + 0.9 * SLOT_S
            while time.time() < until:
                turns += 1
            samples.append({"cpu-turns": -float(turns)})
            continue
        seen = []
        while time.time() < start + 0.9 * SLOT_S:
            seen.append(read_counters())
            time.sleep(0.01)
        samples.append({name: (statistics.mean(v for v in values if v is not None)
                               if any(v is not None for v in values) else None)
                        for name, values in ((n, [s[n] for s in seen]) for n in seen[0])})
        samples[-1]["stat-processes"] = seen[0]["stat-processes"]  # the forks since boot, as the window opens
    for name in samples[0]:
        bits = decode([s[name] for s in samples], differences=name == "stat-processes")
        say(f"received {name} {''.join(map(str, bits))}")


# ---------------------------------------------------------------- the player


def channel(t0):
    try:
        (sender if ROLE == "send" else receiver)(t0)
    finally:
        DONE.set()


def main():
    started = False
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "hello":
            print(f"hello name=channel_{ROLE}", flush=True)
        elif words[0] == "game" and not started:
            started = True
            threading.Thread(target=channel, args=(time.time() + START_AFTER_S,), daemon=True).start()
        elif words[0] == "request":
            DONE.wait(timeout=START_AFTER_S + BITS * SLOT_S + 5.0)
            print(f"move {words[1]} {words[3]}", flush=True)
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main()
