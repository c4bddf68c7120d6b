"""Bytes in, protocol lines out (protocol.md section 2): the line buffer of a byte stream, as
httpx's LineDecoder is. A line ends at "\n"; a "\r" before it is dropped; bytes that are not UTF-8
come out as U+FFFD, for the protocol layer to refuse the line. A line longer than the limit
raises LineTooLong once, and the rest of it, up to its newline, is passed over."""

from __future__ import annotations

from arena.transport.base import LineTooLong


class LineDecoder:
    """One stream's line buffer. `feed` bytes, then `take` lines until it returns None."""

    def __init__(self, max_line_bytes: int, name: str) -> None:
        self.max_line_bytes = max_line_bytes
        self.name = name  # of the bot, for LineTooLong's message
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf already known to hold no b"\n"
        self._discarding = False  # after LineTooLong: drop bytes up to the next newline

    @property
    def empty(self) -> bool:
        return not self._buf

    def whole_line(self, chunk: bytes) -> str | None:
        """`chunk` as one line when it is exactly one short line and nothing is buffered (the
        common case, once per move: no copy into the buffer); else None, and it must be fed."""
        end = len(chunk) - 1
        if (not self._buf and not self._discarding and chunk.find(b"\n") == end and end < self.max_line_bytes
                and chunk[end - 1:end] != b"\r"):
            return chunk[:end].decode("utf-8", errors="replace")
        return None

    def feed(self, chunk: bytes) -> None:
        self._buf += chunk

    def take(self) -> str | None:
        """The next whole line, or None when there is none yet. LineTooLong for one over the limit."""
        buf = self._buf
        limit = self.max_line_bytes
        while True:
            i = buf.find(b"\n", self._scanned)
            if i < 0:
                self._scanned = len(buf)
                if self._discarding:
                    buf.clear()
                    self._scanned = 0
                elif len(buf) > limit + 1:  # +1: room for a CR of CRLF
                    buf.clear()
                    self._scanned = 0
                    self._discarding = True
                    raise LineTooLong(f"{self.name} sent more than {limit} bytes without a newline")
                return None
            too_long = i > limit + 1 or (i == limit + 1 and buf[i - 1] != 13)
            raw = bytes(buf[:i])
            del buf[: i + 1]
            self._scanned = 0
            if self._discarding:  # the tail of an over-long line: dropped without a word
                self._discarding = False
                continue
            if too_long:
                raise LineTooLong(f"{self.name} sent a {i}-byte line (limit {limit})")
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            return raw.decode("utf-8", errors="replace")

    def unfinished(self) -> str:
        """The bytes waiting for a line end, described for a fault's reason ("" if none)."""
        if not self._buf or self._discarding:
            return ""
        if b"\r" in self._buf:  # classic Mac line ends: every line looks unfinished
            return f"{len(self._buf)} bytes with lines ended by \\r alone; a line must end in \\n"
        return f"{len(self._buf)} bytes without a line end (\\n)"


__all__ = ["LineDecoder"]
