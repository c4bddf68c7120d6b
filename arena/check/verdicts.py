"""What `arena bot check` finds: one `CheckResult` per row, with evidence lines when it fails, and
the `CheckReport` of a whole check (also written to the bot's .check.json)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence


@dataclass(frozen=True, slots=True)
class CheckResult:
    name: str
    passed: bool
    detail: str
    evidence_lines: tuple[str, ...] = ()
    skipped: bool = False  # could not be tested (a failure elsewhere says why): neither pass nor fail


@dataclass(slots=True)
class CheckReport:
    bot: str
    directory: Path | None
    version: str = ""
    build: str = ""  # the digest of the prepared copy that played (arena/submission/prepared.py)
    results: list[CheckResult] = field(default_factory=list)
    sandbox: dict[str, Any] = field(default_factory=dict)
    think_ms: tuple[float, float] | None = None  # p50, p99
    seconds: float = 0.0
    logs_kept: list[str] = field(default_factory=list)  # names of the log files copied out
    rule_options: dict[str, str] = field(default_factory=dict)  # the games' options besides the defaults

    @property
    def passed(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot, "version": self.version, "build": self.build, "passed": self.passed,
            "checks": [{"name": r.name, "passed": r.passed, "skipped": r.skipped, "detail": r.detail} for r in self.results],
            "rules": self.rule_options, "sandbox": self.sandbox, "seconds": round(self.seconds, 3),
        }


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]
