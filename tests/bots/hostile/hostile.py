"""Misbehaving test bots for the check (arena/check/) and sandbox (arena/sandbox/) tests: `hostile.py MODE`,
one manifest per mode beside it (`forker.toml`, ...), so that a sandboxed bot finds this file in its own folder.

Every mode plays legal moves (the first listed) except where its misbehaviour says otherwise.
Everything a mode does is bounded (at most 300 children, at most 4 GB asked for) so that even an
uncontained run cannot take a shared machine down.
"""

import os
import signal
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
MAX_CHILDREN = 300


def out(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def forever():
    deadline = time.time() + 120  # bounded even if nobody kills us
    while time.time() < deadline:
        time.sleep(0.5)
    os._exit(0)


def fork_children():
    made = refused = 0
    for _ in range(MAX_CHILDREN):
        try:
            pid = os.fork()
        except OSError:
            refused += 1
            continue
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        made += 1
    print(f"forker: {made} children, {refused} forks refused", file=sys.stderr, flush=True)


def hog_memory():
    chunks = []
    for i in range(64):  # 64 x 64 MB = 4 GB
        chunk = bytearray(64 << 20)
        chunk[::4096] = b"x" * len(chunk[::4096])  # touch every page
        chunks.append(chunk)
        print(f"memhog: {(i + 1) * 64} MB", file=sys.stderr, flush=True)


def grandchild():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            forever()  # holds stdout/stdin open, in its own session
        os._exit(0)
    os.wait()
    os._exit(0)  # the bot itself leaves; its grandchild keeps the pipe


def _victims():
    """Process ids (as /proc names) carrying this test's ARENA_TEST_VICTIM mark, except ours."""
    mark = ("ARENA_TEST_VICTIM=" + os.environ.get("ARENA_TEST_VICTIM", "")).encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid() or mark == b"ARENA_TEST_VICTIM=":
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if mark in f.read().split(b"\0"):
                    found.append(name)
        except OSError:
            continue
    return found


def write_others():
    """Write an overlong line into the stdout of every marked process (the other bots), through
    /proc/<pid>/fd/1, so that the arena reads it as theirs."""
    hit = 0
    for name in _victims():
        try:
            fd = os.open(f"/proc/{name}/fd/1", os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, b"x" * 9000)
            os.close(fd)
            hit += 1
        except OSError:
            continue
    print(f"write_others: wrote into {hit} processes", file=sys.stderr, flush=True)


def kill_others():
    """SIGKILL every process that carries this test's ARENA_TEST_VICTIM mark (the arena and the
    other bots all do: they inherit the test's environment), except this one."""
    hit = 0
    for name in _victims():
        try:
            os.kill(int(name), signal.SIGKILL)
            hit += 1
        except OSError:
            continue
    print(f"kill_others: {hit} processes killed", file=sys.stderr, flush=True)


def escape():
    """Leave every way the arena could find us: own session, out of every cgroup, no arena token
    in the environment; then live on as a process whose command line carries the mark given after
    the mode (`hostile.py escape MARK`)."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for procs in ("/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/pids/cgroup.procs",
                          "/sys/fs/cgroup/memory/cgroup.procs"):
                try:
                    with open(procs, "w") as f:
                        f.write(str(os.getpid()))
                except OSError:
                    pass
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            code = "import time; time.sleep(60)"
            os.execve(sys.executable, [sys.executable, "-c", code, sys.argv[2] if len(sys.argv) > 2 else "escaped"], {})
        os._exit(0)
    os.wait()


def snoop():
    """Try, in the middle of a game, everything an isolated bot must not manage; report each on
    stderr as `snoop: WHAT TARGET: blocked (why)` or `snoop: WHAT TARGET: LEAKED ...`. The targets
    come as JSON after the mode (`hostile.py snoop JSON`): files to read and to write, environment
    variables to look for, and the pid of a victim process to signal and to trace."""
    import ctypes
    import json

    targets = json.loads(sys.argv[2])
    libc = ctypes.CDLL(None, use_errno=True)

    def say(what, target, leaked, detail):
        sys.stderr.write(f"snoop: {what} {target}: {'LEAKED' if leaked else 'blocked'} ({detail})\n")

    def failed_call(result):
        return result != 0, os.strerror(ctypes.get_errno()) if result != 0 else "it worked"

    for path in targets.get("read", []):
        try:
            with open(path, "rb") as f:
                say("read", path, True, f"{len(f.read(1 << 16))} bytes")
        except OSError as exc:
            say("read", path, False, type(exc).__name__)
    for path in targets.get("list", []):
        try:
            say("list", path, True, ",".join(sorted(os.listdir(path))[:5]))
        except OSError as exc:
            say("list", path, False, type(exc).__name__)
    for path in targets.get("write", []):
        try:
            with open(path, "w") as f:
                f.write("written by a bot\n")
            say("write", path, True, "wrote it")
        except OSError as exc:
            say("write", path, False, type(exc).__name__)
    for name in targets.get("env", []):
        say("env", name, name in os.environ, "absent" if name not in os.environ else os.environ[name])
    sys.stderr.write(f"snoop: environ {','.join(sorted(os.environ))}\n")
    try:  # under bubblewrap the bot is process 2, below bubblewrap's own init
        with open("/proc/1/cmdline", "rb") as f:
            below_bubblewrap = os.path.basename(f.read().split(b"\0")[0]) == b"bwrap"
    except OSError:
        below_bubblewrap = False
    if os.getpid() != 1 and not below_bubblewrap:  # no PID namespace of its own: no sandbox, and a real umount could
        say("sandbox", os.getpid(), True, "not in a PID namespace of its own: umount and mount not tried")
    else:
        refused, why = failed_call(libc.umount2(b"/proc", 2))  # MNT_DETACH
        say("umount", "/proc", not refused, why)
        refused, why = failed_call(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
        say("mount", "/tmp", not refused, why)
    uid = os.getuid()
    say("uid", uid, uid == 0, "running as root" if uid == 0 else "not root")
    try:
        os.setuid(0)
        say("setuid", 0, True, f"uid {uid} became {os.getuid()}")
    except OSError as exc:
        say("setuid", 0, False, type(exc).__name__)
    victim = targets.get("victim")
    if victim:
        try:
            os.kill(victim, signal.SIGKILL)
            say("kill", victim, True, "signal sent")
        except OSError as exc:
            say("kill", victim, False, type(exc).__name__)
        refused, why = failed_call(libc.ptrace(16, victim, None, None))  # PTRACE_ATTACH
        say("ptrace", victim, not refused, why)
    sys.stderr.flush()


def report(what, target, leaked, detail):
    sys.stderr.write(f"{MODE}: {what} {target}: {'LEAKED' if leaked else 'blocked'} ({detail})\n")
    sys.stderr.flush()


def kernel():
    """What a build or a bot must not reach of the machine: its kernel settings, a /dev of its
    own to write in, more /dev/shm than its bound (480 MB filled the host's RAM once)."""
    for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/printk_ratelimit_burst", "/proc/sysrq-trigger"):
        try:
            fd = os.open(path, os.O_WRONLY)  # opened, never written: a test must not change the kernel
            os.close(fd)
            report("open-for-writing", path, True, "opened")
        except OSError as exc:
            report("open-for-writing", path, False, type(exc).__name__)
    try:
        with open("/dev/written-by-a-bot", "w") as f:
            f.write("x")
        report("write", "/dev", True, "wrote a file")
    except OSError as exc:
        report("write", "/dev", False, type(exc).__name__)
    written = 0
    try:
        with open("/dev/shm/fill", "wb") as f:
            block = b"x" * (16 << 20)
            while written < (480 << 20):
                f.write(block)
                f.flush()
                written += len(block)
    except OSError as exc:
        sys.stderr.write(f"{MODE}: /dev/shm stopped at {written >> 20} MB ({type(exc).__name__})\n")
    else:
        sys.stderr.write(f"{MODE}: /dev/shm took {written >> 20} MB\n")
    try:
        os.unlink("/dev/shm/fill")
    except OSError:
        pass
    sys.stderr.flush()


def memory_child():
    """A child that takes memory while the bot plays on: the kernel's memory limit ends the child,
    and the bot's fault must say so (it went unrecorded)."""
    if os.fork() == 0:
        chunks = []
        for _ in range(48):  # up to 1.5 GB
            chunk = bytearray(32 << 20)
            chunk[::4096] = b"x" * len(chunk[::4096])
            chunks.append(chunk)
        time.sleep(30)
        os._exit(0)
    time.sleep(2.0)


def lock():
    """Hold a lock on a file every sandbox shares (the arena's Python): a colluding bot at the
    same table could see it. Says when it holds it, and what inotify did."""
    import ctypes
    import fcntl

    held = open(sys.executable, "rb")
    fcntl.flock(held, fcntl.LOCK_EX)
    libc = ctypes.CDLL(None, use_errno=True)
    result = libc.inotify_init1(0)
    report("inotify", "init", result >= 0, "a watch could be made" if result >= 0 else os.strerror(ctypes.get_errno()))
    sys.stderr.write(f"{MODE}: holding a lock on {sys.executable}\n")
    sys.stderr.flush()
    time.sleep(2.0)
    return held


def shared_state():
    """What the kernel shares between every bot of a machine beyond files: the keyring of their uid,
    and the residency of /usr's pages in the page cache (asked without timing)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for what, call in (("add_key", lambda: libc.syscall(248 if os.uname().machine == "x86_64" else 217,
                                                         b"user", b"hand", b"x", 1, -4)),
                       ("keyctl", lambda: libc.syscall(250 if os.uname().machine == "x86_64" else 219, 0, 0, 0, 0, 0))):
        result = call()
        report(what, "keyring", result >= 0, "it worked" if result >= 0 else os.strerror(ctypes.get_errno()))
    with open(sys.executable, "rb") as f:
        try:
            os.preadv(f.fileno(), [bytearray(16)], 0, os.RWF_NOWAIT)
            report("preadv2-nowait", sys.executable, True, "it worked")
        except OSError as exc:
            report("preadv2-nowait", sys.executable, False, os.strerror(exc.errno))
    import mmap

    vector = ctypes.create_string_buffer(1)
    page = mmap.mmap(-1, 4096)  # any mapped page: whether the call answers is what counts
    result = libc.mincore(ctypes.c_void_p(ctypes.addressof(ctypes.c_char.from_buffer(page))), 4096, vector)
    report("mincore", "a page", result == 0, "it worked" if result == 0 else os.strerror(ctypes.get_errno()))


def illegal_move(moves):
    for cand in ("pickup", "draw", "chance", "2c", "3c", "4c", "5c", "6c", "7c", "8c", "Kd", "Ks"):
        if cand not in moves:
            return cand
    return "Xx"


def main():
    if MODE == "slow_start":
        time.sleep(3)
    if MODE == "ignore_term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    requests = 0
    game = 0  # the number of the game in progress (from its `game` line)
    in_game = 0  # requests answered in this game
    seat = 0  # this bot's seat in the game in progress
    for line in sys.stdin:
        t = line.split()
        if not t:
            continue
        if t[0] == "game":
            game, in_game = int(t[1]), 0
            seat = next((int(f[5:]) for f in t if f.startswith("seat=")), 0)
        elif t[0] == "hello":
            if MODE == "hello_noise":
                out("Loading model...")
            if MODE == "runtime_refused":  # as a JVM refused its memory: the reason comes after the first line
                out("Error occurred during initialization of VM")
                out("Could not create G1ServiceThread")
                sys.stderr.write("pthread_create failed (EAGAIN)\n")
                sys.stderr.flush()
                sys.exit(1)
            if MODE == "cr_lines":  # classic Mac line ends: \r alone, so no line ever ends
                sys.stdout.write("hello name=hostile_cr_lines\r")
                sys.stdout.flush()
                continue
            out("hello name=hostile_" + MODE)
            if MODE == "close_stdout":
                os.close(1)
                forever()
        elif t[0] == "request":
            requests += 1
            in_game += 1
            rid, moves = t[1], t[3:3 + int(t[2])]
            move = moves[0]
            # Faults that depend only on the game, not on the process's history: a fresh
            # process replaying the same game faults the same way (resume tests rely on it).
            if MODE == "crash_even_games" and game % 2 == 0 and in_game == 2:
                sys.stderr.write(f"Traceback (most recent call last):\nValueError: gave up in game {game}\n")
                sys.stderr.flush()
                os._exit(7)
            if MODE == "hang_odd_games" and game % 2 == 1 and in_game == 2:
                forever()
            if MODE == "forker" and requests == 1:
                fork_children()
                time.sleep(1.5)  # the watchdog acts before this answer
            elif MODE == "memhog" and requests == 1:
                hog_memory()
            elif MODE == "flood" and requests == 1:
                block = "x" * 65536
                for _ in range(100_000):  # ~6.5 GB if nobody stops reading; the pipe blocks us
                    sys.stdout.write(block)
                forever()
            elif MODE == "flood_lines" and requests == 1:
                for _ in range(1_000_000):
                    sys.stdout.write("noise noise noise\n")
                forever()
            elif MODE == "grandchild" and requests == 1:
                grandchild()
            elif MODE == "kill_others" and requests == 1:
                kill_others()
            elif MODE == "write_others" and requests == 1:
                write_others()
            elif MODE == "escape" and requests == 1:
                escape()
            elif MODE == "self_abort" and requests == 1:  # as a failed C assert() does
                sys.stderr.write("self_abort: assertion failed, aborting\n")
                sys.stderr.flush()
                os.abort()
            elif MODE == "snoop" and requests == 2:  # mid-game: the other bots' logs exist by now
                snoop()
            elif MODE == "kernel" and requests == 1:
                kernel()
            elif MODE == "memory_child" and requests == 1:
                memory_child()
            elif MODE == "shared_state" and requests == 1:
                shared_state()
            elif MODE == "lock" and requests == 1:
                kept = lock()  # noqa: F841 - held while the bot plays
            elif MODE == "noise" and requests == 2:
                out("debug: thinking about " + move)
            elif MODE == "late" and requests in (2, 3):
                time.sleep(0.6)
            elif MODE == "illegal" and requests == 2:
                move = illegal_move(moves)
            elif MODE == "illegal_off_seat_0" and seat != 0 and in_game == 1:  # right only at the first seat
                move = illegal_move(moves)
            out(f"move {rid} {move}")
        elif t[0] == "quit":
            if MODE in ("no_exit", "ignore_term"):
                forever()
            if MODE == "bad_exit":
                sys.exit(3)
            break
    if MODE == "ignore_term":
        forever()


if __name__ == "__main__":
    main()
