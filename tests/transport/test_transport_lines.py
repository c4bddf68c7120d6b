"""Line splitting of PipeTransport under arbitrary chunking, and atexit cleanup."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.transport import LineTooLong, PipeTransport
from arena.transport.process_tree import pid_alive

BOTS = Path(__file__).parent / "bots"


def bare(max_line: int) -> PipeTransport:
    t = PipeTransport.__new__(PipeTransport)  # only the buffer logic, no process
    t.name, t.max_line_bytes = "bot", max_line
    t._buf, t._scanned, t._discarding = bytearray(), 0, False
    return t


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n\r"), max_size=30),
                max_size=10),
       st.lists(st.integers(1, 17), min_size=1), st.booleans())
def test_lines_survive_any_chunking(lines: list[str], cuts: list[int], crlf: bool) -> None:
    end = b"\r\n" if crlf else b"\n"
    data = b"".join(s.encode() + end for s in lines)
    t = bare(1000)
    out: list[str] = []
    i = k = 0
    while i < len(data):
        n = cuts[k % len(cuts)]
        t._buf += data[i : i + n]
        i, k = i + n, k + 1
        while (line := t._take_line()) is not None:
            out.append(line)
    assert out == lines


def test_overlong_then_recovers() -> None:
    t = bare(10)
    t._buf += b"a" * 20
    try:
        t._take_line()
        raise AssertionError("expected LineTooLong")
    except LineTooLong:
        pass
    t._buf += b"aaaa\nok\n"  # rest of the long line is dropped, next line survives
    assert t._take_line() == "ok"


def test_interpreter_exit_closes_bots(tmp_path: Path) -> None:
    script = tmp_path / "arena_like.py"
    script.write_text(
        "import sys\nfrom arena.transport import PipeTransport\n"
        f"t = PipeTransport.start([sys.executable, {str(BOTS / 'ignore_term_bot.py')!r}])\n"
        "assert t.receive(5.0) == 'ready'\nprint(t.pid, flush=True)\n")  # exits without close()
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    assert not pid_alive(int(out))
