"""Line splitting (arena/transport/lines.py, the pipe's LineDecoder) under arbitrary chunking, and
atexit cleanup."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.transport import LineTooLong
from arena.transport.lines import LineDecoder
from arena.transport.process_tree import pid_alive

BOTS = Path(__file__).parent / "bots"


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=30),
                max_size=10),
       st.lists(st.integers(1, 17), min_size=1), st.booleans())
def test_lines_survive_any_chunking(lines: list[str], cuts: list[int], crlf: bool) -> None:
    end = b"\r\n" if crlf else b"\n"
    data = b"".join(s.encode() + end for s in lines)
    t = LineDecoder(1000, "bot")
    out: list[str] = []
    i = k = 0
    while i < len(data):
        n = cuts[k % len(cuts)]
        t.feed(data[i : i + n])
        i, k = i + n, k + 1
        while (line := t.take()) is not None:
            out.append(line)
    assert out == lines and t.empty


def test_overlong_then_recovers() -> None:
    t = LineDecoder(10, "bot")
    t.feed(b"a" * 20)
    try:
        t.take()
        raise AssertionError("expected LineTooLong")
    except LineTooLong:
        pass
    t.feed(b"aaaa\nok\n")  # rest of the long line is dropped, next line survives
    assert t.take() == "ok"


def test_a_whole_short_line_needs_no_buffer_and_anything_else_is_fed() -> None:
    t = LineDecoder(10, "bot")
    assert t.whole_line(b"move 1 x\n") == "move 1 x"
    assert t.whole_line(b"a\r\n") is None and t.whole_line(b"a\nb\n") is None  # CRLF, two lines: fed
    assert t.whole_line(b"x" * 11 + b"\n") is None  # over the limit: the buffer says so
    t.feed(b"half")
    assert t.whole_line(b"way\n") is None and t.unfinished() == "4 bytes without a line end (\\n)"


def test_interpreter_exit_closes_bots(tmp_path: Path) -> None:
    script = tmp_path / "arena_like.py"
    script.write_text(
        "import sys\nfrom arena.transport import PipeTransport\n"
        f"t = PipeTransport.start([sys.executable, {str(BOTS / 'ignore_term_bot.py')!r}])\n"
        "assert t.receive(5.0) == 'ready'\nprint(t.pid, flush=True)\n")  # exits without close()
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    assert not pid_alive(int(out))
