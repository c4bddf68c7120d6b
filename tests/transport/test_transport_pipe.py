"""PipeTransport and process-tree teardown against small real bot processes."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from arena.transport import (
    BotExited,
    BotTimeout,
    BotUnreachable,
    LineTooLong,
    PipeTransport,
    Transport,
)
from arena.transport.bot_process import open_log_for_append
from arena.transport.live_transports import close_all
from arena.transport.process_tree import pid_alive

BOTS = Path(__file__).parent / "bots"


def bot(name: str, *args: str) -> list[str]:
    return [sys.executable, str(BOTS / name), *args]


@pytest.fixture
def echo(tmp_path: Path):
    t = PipeTransport.start(bot("line_bot.py"), stderr_log_path=str(tmp_path / "err.log"),
                            stderr_log_cap_bytes=1000)
    yield t
    t.close()


def test_round_trip_and_protocol(echo: PipeTransport) -> None:
    assert isinstance(echo, Transport)
    for i in range(50):
        echo.send(f"hello {i}")
        assert echo.receive(5.0) == f"echo hello {i}"
    echo.send("two")
    assert echo.receive(5.0) == "first"
    assert echo.receive(5.0) == "second"
    echo.send("héllo ♠")
    assert echo.receive(5.0) == "echo héllo ♠"


def test_crlf_tolerated(echo: PipeTransport) -> None:
    echo.send("crlf PLAY Kd")
    assert echo.receive(5.0) == "PLAY Kd"


def test_bad_utf8_is_replaced(echo: PipeTransport) -> None:
    echo.send("badutf8")
    assert echo.receive(5.0) == "\ufffd\ufffd ok"


def test_silent_bot_times_out(echo: PipeTransport) -> None:
    echo.send("silent")
    t0 = time.monotonic()
    with pytest.raises(BotTimeout, match="no line within 0.3 s"):
        echo.receive(0.3)
    assert time.monotonic() - t0 < 5.0
    echo.send("again")  # the transport stays usable after a timeout
    assert echo.receive(5.0) == "echo again"


def test_a_timeout_says_what_the_bot_sent_without_ending_a_line(echo: PipeTransport) -> None:
    """A bot ending its lines in \r alone was reported as silent. (1.5 s: a freshly started bot must
    have written its bytes before the deadline, also on a loaded machine.)"""
    echo.send("cr PLAY Kd")
    with pytest.raises(BotTimeout) as info:
        echo.receive(1.5)
    assert info.value.unfinished == "8 bytes with lines ended by \\r alone; a line must end in \\n"
    other = PipeTransport.start(bot("line_bot.py"))
    try:
        other.send("silent")
        with pytest.raises(BotTimeout) as info:
            other.receive(1.5)
        assert info.value.unfinished == ""
        other.send("nolf PLAY")
        with pytest.raises(BotTimeout) as info:
            other.receive(1.5)
        assert info.value.unfinished == "4 bytes without a line end (\\n)"
    finally:
        other.close()


def test_exit_code_reported(echo: PipeTransport) -> None:
    echo.send("exit 7")
    with pytest.raises(BotExited, match="exit code 7") as ei:
        echo.receive(5.0)
    assert ei.value.exit_code == 7
    assert echo.returncode == 7
    said = str(ei.value)
    assert said.endswith(" exited (exit code 7)") and "closed" not in said, said  # the exit, not its closed pipe


def test_a_bot_that_closes_its_stdout_and_lives_on_is_said_to_be_still_running() -> None:
    script = "import os, sys, time; print('ready', flush=True); os.close(1); sys.stdin.readline(); time.sleep(30)"
    t = PipeTransport.start([sys.executable, "-c", script])
    try:
        assert t.receive(5.0) == "ready"
        with pytest.raises(BotExited) as ei:
            t.receive(5.0)
        assert "closed its stdout (still running)" in str(ei.value), str(ei.value)
    finally:
        t.close(grace_s=0.2)


def test_crash_reports_signal(echo: PipeTransport) -> None:
    echo.send("crash")
    with pytest.raises(BotExited, match="SIGABRT") as ei:
        echo.receive(5.0)
    assert ei.value.signal == 6
    assert "exited (killed by signal SIGABRT)" in str(ei.value), str(ei.value)


def test_send_to_dead_bot_raises_bot_exited(echo: PipeTransport) -> None:
    echo.send("exit 0")
    with pytest.raises(BotExited):
        echo.receive(5.0)
    with pytest.raises(BotExited):
        for _ in range(100):  # the first writes may still land in the pipe buffer
            echo.send("x" * 1000)


def test_line_too_long_bounded_memory(echo: PipeTransport) -> None:
    echo.send(f"spew {10 * 1024 * 1024}")
    with pytest.raises(LineTooLong):
        echo.receive(10.0)
    assert len(echo._lines._buf) <= echo.max_line_bytes + 65536


def test_long_line_with_newline(tmp_path: Path) -> None:
    t = PipeTransport.start(bot("line_bot.py"), max_line_bytes=1000)
    try:
        t.send("long 1000")
        assert t.receive(5.0) == "y" * 1000
        t.send("long 1001")
        with pytest.raises(LineTooLong):
            t.receive(5.0)
        t.send("still alive")
        assert t.receive(5.0) == "echo still alive"
    finally:
        t.close()


def test_bot_not_reading_stdin_send_times_out() -> None:
    t = PipeTransport.start(bot("no_read_bot.py"), send_timeout_s=0.3)
    t0 = time.monotonic()
    try:
        with pytest.raises(BotTimeout, match="stdin"):
            for _ in range(10_000):
                t.send("z" * 4096)
        assert time.monotonic() - t0 < 10.0
    finally:
        t.close(grace_s=0.2)


def test_stderr_log_capped(echo: PipeTransport, tmp_path: Path) -> None:
    echo.send("stderr 5000")
    assert echo.receive(5.0) == "done"
    echo.send("stderr 5000")  # more stderr after the cap must not block the bot
    assert echo.receive(5.0) == "done"
    echo.close()  # joins the stderr thread, which may lag behind stdout
    assert echo.stderr_tail(10) == "e" * 10
    log = (tmp_path / "err.log").read_bytes()
    assert log.startswith(b"e" * 1000)
    assert log.endswith(b"[stderr truncated at 1000 bytes]\n")
    assert len(log) < 1100


def test_missing_executable() -> None:
    with pytest.raises(BotUnreachable, match="no-such-bot-binary"):
        PipeTransport.start(["/nonexistent/no-such-bot-binary", "--x"])


def test_close_idempotent_and_reaps(echo: PipeTransport) -> None:
    pid = echo.pid
    echo.close()
    echo.close()
    assert not pid_alive(pid)
    assert echo.returncode == 0  # exited on stdin EOF and was reaped
    with pytest.raises(BotExited):
        echo.receive(1.0)


def test_ignores_sigterm_is_killed() -> None:
    t = PipeTransport.start(bot("ignore_term_bot.py"))
    assert t.receive(5.0) == "ready"
    t0 = time.monotonic()
    t.close(grace_s=0.2)
    assert time.monotonic() - t0 < 5.0
    assert t.returncode == -9
    assert not pid_alive(t.pid)


def _read_pids(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()]


@pytest.mark.parametrize("mode", ["exit", "stay"])
def test_grandchildren_holding_stdout_are_killed(tmp_path: Path, mode: str) -> None:
    pidfile = tmp_path / "pids"
    t = PipeTransport.start(bot("spawner_bot.py", str(pidfile), mode))
    assert t.receive(5.0) == "ready"
    pids = _read_pids(pidfile)
    assert len(pids) == 3 and all(pid_alive(p) for p in pids)
    if mode == "exit":
        # the bot is gone but grandchildren keep stdout open: no EOF, yet no hang
        t0 = time.monotonic()
        with pytest.raises(BotExited, match="exit code 0"):
            t.receive(10.0)
        assert time.monotonic() - t0 < 5.0
    t0 = time.monotonic()
    t.close(grace_s=0.2)
    assert time.monotonic() - t0 < 10.0
    assert [p for p in pids + [t.pid] if pid_alive(p)] == []


def test_close_all_closes_registered(tmp_path: Path) -> None:
    ts = [PipeTransport.start(bot("ignore_term_bot.py")) for _ in range(3)]
    for t in ts:
        assert t.receive(5.0) == "ready"
    t0 = time.monotonic()
    close_all()  # parallel: three stubborn bots cost about one grace period
    assert time.monotonic() - t0 < 6.0
    assert not any(pid_alive(t.pid) for t in ts)


def test_env_and_cwd_passed(tmp_path: Path) -> None:
    script = tmp_path / "envbot.py"
    script.write_text("import os, sys\nsys.stdout.write(os.getcwd() + ' ' + os.environ['X_T']"
                      " + '\\n')\nsys.stdout.flush()\n")
    t = PipeTransport.start([sys.executable, str(script)], cwd=str(tmp_path),
                            env={**os.environ, "X_T": "v1"})
    try:
        assert t.receive(5.0) == f"{os.path.realpath(tmp_path)} v1"
    finally:
        t.close()


def test_a_bot_given_the_arena_s_environment_sees_its_own_working_folder_as_pwd(tmp_path: Path) -> None:
    # Without isolation a bot gets the arena's environment, whose PWD named the folder the
    # organiser started the arena in (under their home): protocol.md appendix B.
    folder = tmp_path / "bot"
    folder.mkdir()
    t = PipeTransport.start([sys.executable, "-c", "import os; print(os.environ.get('PWD'), flush=True)"],
                            cwd=str(folder))
    try:
        assert t.receive(5.0) == str(folder)
    finally:
        t.close()


def test_inherited_pythonunbuffered_is_not_passed_on(monkeypatch: pytest.MonkeyPatch) -> None:
    # Otherwise a bot that never flushes passes `arena bot check` in such a shell and hangs in the
    # organiser's tournament (protocol.md section 2: flush after each line).
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")
    t = PipeTransport.start([sys.executable, "-c", "print('hello name=nf'); import sys; sys.stdin.read()"])
    try:
        with pytest.raises(BotTimeout):
            t.receive(1.0)
    finally:
        t.close()


def test_stderr_log_cap_holds_across_restarts_of_the_bot(tmp_path: Path) -> None:
    # The cap was per process start: a bot that floods stderr and crashes in every game added a
    # full cap to its log per game.
    for _ in range(3):
        t = PipeTransport.start(bot("line_bot.py"), stderr_log_path=str(tmp_path / "err.log"),
                                stderr_log_cap_bytes=1000)
        t.send("stderr 5000")
        assert t.receive(5.0) == "done"
        t.close()
    assert len((tmp_path / "err.log").read_bytes()) < 1100


def test_a_log_replaced_by_a_fifo_or_a_symlink_is_refused_at_once(tmp_path: Path) -> None:
    # A bot runs as the arena's user: a FIFO in place of its log blocked the arena's open() for
    # good, and a symlink would send the arena's writes wherever it points.
    fifo = tmp_path / "seat0.protocol.log"
    os.mkfifo(fifo)
    link = tmp_path / "seat1.protocol.log"
    link.symlink_to(tmp_path / "elsewhere")
    for path in (fifo, link):
        with pytest.raises(OSError):
            open_log_for_append(path, "a")
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("stderr, said", [
    ("Traceback (most recent call last):\n  File \"bot.py\", line 3, in <module>\nValueError: bad\n", "ValueError: bad"),
    # Rust: the reason, then a note
    ("thread 'main' panicked at src/main.rs:41:51:\ncalled `Result::unwrap()` on an `Err` value: ParseIntError\n"
     "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
     "called `Result::unwrap()` on an `Err` value: ParseIntError"),
    # Java: the reason, then stack frames
    ("Exception in thread \"main\" java.lang.NullPointerException: boom\n\tat Bot.choose(Bot.java:20)\n"
     "\tat Bot.main(Bot.java:12)\n", "Exception in thread \"main\" java.lang.NullPointerException: boom"),
    # Node: the reason, stack frames, then its version (an organiser saw only "Node.js v20.20.2")
    ("/b/bot.js:1\nconsole.log(\"x\"\n            ^^^\n\nSyntaxError: missing ) after argument list\n"
     "    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n    at node:internal/main/run_main_module:28:49\n"
     "\nNode.js v20.20.2\n", "SyntaxError: missing ) after argument list"),
    ("note: nothing else\n", "note: nothing else"),
    ("", ""),
])
def test_the_stderr_line_quoted_for_a_crash_is_the_one_that_says_why(stderr, said):
    from arena.transport.bot_process import telling_line

    assert telling_line(stderr) == said


def test_a_crash_s_last_words_reach_its_exit_message_though_stderr_is_read_late(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stderr pipe is read by a thread of its own; on a busy machine the exit can be seen
    before that thread has read the bot's last line (a run of the suite lost a crash's reason
    once). The exit's message waits, briefly, for stderr to be read to its end."""
    from arena.transport.bot_process import BotProcess

    drain = BotProcess._drain_stderr

    def late_drain(self, *args) -> None:
        time.sleep(0.2)  # the thread's turn comes late
        drain(self, *args)

    monkeypatch.setattr(BotProcess, "_drain_stderr", late_drain)
    t = PipeTransport.start([sys.executable, "-c", "import sys; sys.stderr.write('ValueError: gave up\\n'); sys.exit(7)"])
    try:
        with pytest.raises(BotExited) as exited:
            t.receive(5.0)
        assert str(exited.value).endswith("(exit code 7); its stderr says: ValueError: gave up"), str(exited.value)
    finally:
        t.close()


# ---- a start that failed in the sandbox's wrapper, before the bot ran (protocol.md section 9) ----

def _wrapper_that_fails(argv, writable_paths=(), *, relay=None):
    """A sandbox whose set-up fails (as bubblewrap does with no room for a namespace): the bot never runs."""
    return ["/bin/sh", "-c", "echo 'bwrap: creating new namespace failed: No space left on device' >&2; exit 1"]


def _wrapper_that_runs(argv, writable_paths=(), *, relay=None):
    from arena.transport.bot_process import STDIO_SHIM

    return [*STDIO_SHIM, *argv]


def test_a_sandbox_that_could_not_be_set_up_makes_the_start_unplayable_not_the_bots_exit():
    from arena.transport import Unplayable

    t = PipeTransport.start(["/bin/true"], name="b", sandbox_argv=_wrapper_that_fails)
    try:
        with pytest.raises(Unplayable, match="sandbox could not be set up.*No space left"):
            t.send("hello protocol=1")
            t.receive(5.0)
    finally:
        t.close()


def test_a_bot_that_exits_once_its_sandbox_started_it_is_its_own_exit():
    from arena.transport import Unplayable

    t = PipeTransport.start(["/bin/sh", "-c", "echo boom >&2; exit 3"], name="b", sandbox_argv=_wrapper_that_runs)
    try:
        with pytest.raises(BotExited, match="exit code 3") as raised:
            t.send("hello protocol=1")
            t.receive(5.0)
        assert not isinstance(raised.value, Unplayable)
    finally:
        t.close()


def _wrapper_whose_after_mark_fails(argv, writable_paths=(), *, relay=None):
    """A sandbox set up (its mark written) whose next step, the bot's own (its limits, its folder's
    copy), fails: as arena/sandbox/guard.py runs them."""
    from arena.transport.bot_process import stdio_shim

    return [*stdio_shim("", "echo 'arena: the copy of the bot folder failed' >&2; exit 126"), *argv]


def test_what_fails_after_the_ready_mark_is_the_bots_own_exit():
    from arena.transport import Unplayable

    t = PipeTransport.start(["/bin/true"], name="b", sandbox_argv=_wrapper_whose_after_mark_fails)
    try:
        with pytest.raises(BotExited, match="exit code 126.*copy of the bot folder failed") as raised:
            t.send("hello protocol=1")
            t.receive(5.0)
        assert not isinstance(raised.value, Unplayable)
    finally:
        t.close()


@pytest.mark.parametrize("filename,wrapped,machine", [
    (None, False, True),  # the fork itself refused: the machine's
    ("/usr/bin/bwrap", True, True),  # the exec of the arena's wrapper: the machine's
    ("bot", False, False),  # the exec of the bot's own command under its own limits: the bot's
])
def test_a_start_without_room_is_the_machines_unless_the_bots_own_exec_was_refused(monkeypatch, filename, wrapped,
                                                                                    machine):
    import errno
    import subprocess

    from arena.transport import Unplayable

    def no_room(*args, **kwargs):
        raise OSError(errno.ENOMEM, "Cannot allocate memory", filename)

    monkeypatch.setattr(subprocess, "Popen", no_room)
    with pytest.raises(BotUnreachable, match="Cannot allocate memory") as raised:
        PipeTransport.start(["bot"], name="b", sandbox_argv=_wrapper_that_runs if wrapped else None)
    assert isinstance(raised.value, Unplayable) is machine
