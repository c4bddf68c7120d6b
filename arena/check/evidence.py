"""The evidence a failed check row quotes: the protocol lines around the problem and the end of the
bot's stderr, read from the check's own log folder; and copying those logs out (`--log DIR`)."""

from __future__ import annotations

import shutil
from pathlib import Path

from arena.wording import quoted

EVIDENCE_LINES = 14
CLIP = 220


def _clip(line: str) -> str:
    return quoted(line, CLIP)  # bot output, shown in a terminal


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


class Evidence:
    """Protocol log and stderr log of the bot under test."""

    def __init__(self, log_dir: Path, label: str) -> None:
        self.protocol_path = log_dir / f"{label}.protocol.log"
        self.stderr_path = log_dir / f"{label}.stderr.log"

    def protocol_tail(self, n: int = EVIDENCE_LINES) -> list[str]:
        return [_clip(x) for x in _read_lines(self.protocol_path)[-n:]]

    def around(self, needle: str, before: int = 6) -> list[str]:
        """Protocol lines up to and including the first line containing needle."""
        lines = _read_lines(self.protocol_path)
        for i, line in enumerate(lines):
            if needle in line:
                return [_clip(x) for x in lines[max(0, i - before): i + 1]]
        return [_clip(x) for x in lines[-EVIDENCE_LINES:]]

    def stderr_tail(self, n: int = 10) -> list[str]:
        lines = _read_lines(self.stderr_path)[-n:]
        return [f"stderr: {_clip(x)}" for x in lines]

    def both(self, needle: str | None = None) -> tuple[str, ...]:
        proto = self.around(needle) if needle else self.protocol_tail()
        return tuple(proto + self.stderr_tail())


def copy_logs(source: Path, target: Path) -> list[str]:
    """Copy the regular files of `source` into `target`; the bots could write into the log folder,
    so anything else (a FIFO would block the copy) is left behind."""
    copied = []
    for path in sorted(source.iterdir()):
        if path.is_file() and not path.is_symlink():
            try:
                shutil.copyfile(path, target / path.name)
                copied.append(path.name)
            except OSError:
                pass
    return copied
