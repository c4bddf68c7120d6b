"""The per-bot resource limits and their checks (docs/sandbox.md): what a manifest's `[limits]` and
a tournament's `[sandbox]` tables may say.

Apart from the guard (arena/sandbox/guard.py), which applies them: reading a manifest or a config
needs only these checks, not the sandbox's cgroup and namespace machinery.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class Limits:
    """Per-bot limits. Defaults are safe for Python, C, Node.js and shell bots (Node needs >= ~1 GB
    of address space; a JVM or Go bot may need a manifest `[limits] address_space_mb = 4096`)."""

    address_space_mb: int = 1024  # RLIMIT_AS, per process (virtual memory)
    cpu_seconds: int = 600  # RLIMIT_CPU, per process, over the bot's whole life (a match)
    file_size_mb: int = 64  # RLIMIT_FSIZE: largest file a bot may write
    processes: int = 64  # processes+threads of the whole bot (cgroup pids.max / watchdog)
    open_files: int = 256  # RLIMIT_NOFILE
    memory_mb: int = 2048  # resident memory of the whole bot (cgroup memory limit / watchdog RSS sum)
    no_network: bool = True  # own empty network namespace (loopback down) when permitted


LIMIT_KEYS = tuple(f.name for f in dataclasses.fields(Limits))
# Largest value each numeric limit may take: far above any real need, and small enough that the
# kernel can apply it (1e15 MB of address space overflowed setrlimit in every bot's start).
LIMIT_MAX = {"address_space_mb": 1 << 22, "cpu_seconds": 10 ** 7, "file_size_mb": 1 << 22, "processes": 100_000,
             "open_files": 1 << 20, "memory_mb": 1 << 22}


def limit_problem(key: str, value: Any) -> str | None:
    """What is wrong with one limit's value (None if nothing); the key must be in LIMIT_KEYS."""
    if key == "no_network":
        return None if isinstance(value, bool) else f"expected true or false, got {value!r}"
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= LIMIT_MAX[key]:
        return f"expected a whole number from 1 to {LIMIT_MAX[key]}, got {value!r}"
    return None


def first_limit_problem(layer: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, what is wrong) for the first bad entry of a limits table, or None if all are good.
    Each caller names the key as its reader knows it (`limits.x` of a manifest, `sandbox.x` of a config)."""
    for key, value in layer.items():
        if key not in LIMIT_KEYS:
            return key, f"unknown limit; known limits: {', '.join(LIMIT_KEYS)}"
        problem = limit_problem(key, value)
        if problem:
            return key, problem
    return None


def limits_from(*layers: Mapping[str, Any] | None, base: Limits | None = None) -> Limits:
    """Defaults, then each mapping in order (e.g. the manifest's [limits], then the tournament's)."""
    result = base or Limits()
    for layer in layers:
        if not layer:
            continue
        bad = first_limit_problem(layer)
        if bad:
            raise ValueError(f"limit {bad[0]!r}: {bad[1]}")
        result = dataclasses.replace(result, **layer)
    return result


def resolve_limits(manifest: Any = None, config: Mapping[str, Any] | None = None) -> Limits:
    """The limits for one bot: defaults < manifest `[limits]` < tournament config (organiser wins)."""
    manifest_limits = dict(getattr(manifest, "limits", ()) or ()) if manifest is not None else None
    return limits_from(manifest_limits, config)
