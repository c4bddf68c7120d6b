"""The worker pool's start-up shield against Ctrl-C and SIGTERM (arena/tournament/local_pool.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from arena.tournament.local_pool import _stop_signals_held_back

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and signal masks: Linux")


def test_a_ctrl_c_while_workers_start_is_raised_only_afterwards():
    # With another thread running (Rich's refresh thread, in the CLI), the kernel hands the
    # signal to that thread, so blocking it in ours is not enough: Python still raises
    # KeyboardInterrupt in the main thread, halfway through starting a worker.
    # As a terminal starts Python: a shell that starts pytest in the background hands it an
    # ignored SIGINT, which the block would restore (tests/conftest.py puts it back after).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    other_thread = threading.Thread(target=time.sleep, args=(2.0,), daemon=True)
    other_thread.start()
    reached_end_of_block = False
    with pytest.raises(KeyboardInterrupt):
        with _stop_signals_held_back():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.3)  # time for the other thread to take the signal and Python to act on it
            reached_end_of_block = True
    assert reached_end_of_block
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_workers_start_with_ctrl_c_blocked_even_the_first_one():
    # In a fresh interpreter, so that multiprocessing's resource tracker is not running yet:
    # starting it unblocked SIGINT, and the first worker was started without the block.
    script = textwrap.dedent("""
        import multiprocessing as mp
        from arena.tournament.local_pool import _stop_signals_held_back
        from tests.tournament.test_workers import report_blocked_signals

        if __name__ == "__main__":
            ctx = mp.get_context("spawn")
            with _stop_signals_held_back():
                child = ctx.Process(target=report_blocked_signals)
                child.start()
            child.join()
    """)
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    blocked = int(result.stdout.strip(), 16)
    assert blocked & (1 << (signal.SIGINT - 1)), result.stdout


def report_blocked_signals() -> None:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("SigBlk:"):
            print(line.split()[1], flush=True)


def test_the_worker_sigterm_handler_drops_later_signals_once_unwinding_and_not_before():
    """The kill/resume audit: a double Ctrl-C, or Ctrl-C then SIGKILL of the arena, sent a worker a
    second SIGTERM while it closed its bots; it raised again inside that clean-up and printed a
    traceback. A first SIGTERM whose SystemExit is swallowed (no `_unwinding` yet) must not make
    the worker deaf to the next one. This is the handler's contract; that `_play_table` calls
    `_unwinding` before its bots are closed is not driven here (it needs a table of real bots)."""
    code = (
        "import os, signal, time\n"
        "from arena.tournament import local_pool as w\n"
        "signal.signal(signal.SIGTERM, w._exit_on_signal)\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(5)\n"
        "except SystemExit:\n"
        "    print('swallowed once', flush=True)\n"  # as an at-fork hook would
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(5)\n"
        "except SystemExit:\n"
        "    w._unwinding()\n"
        "    raise\n"
        "finally:\n"
        "    os.kill(os.getpid(), signal.SIGTERM)  # the second one, while the bots are closed\n"
        "    time.sleep(0.05)\n"
        "    print('clean-up finished', flush=True)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, cwd=REPO)
    assert result.stdout == "swallowed once\nclean-up finished\n" and "Traceback" not in result.stderr
    assert result.returncode == 128 + signal.SIGTERM
