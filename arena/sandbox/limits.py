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
# Smallest value each may take (docs/sandbox.md, "Limits and defaults"): what the arena's own tools
# need where they run under the bot's limits, and no honest bot asks for less. The sandbox's set-up
# runs in the bot's cgroup, so memory_mb must hold it (a limit of 1 MB killed it before the bot
# started: every game void); bash, env and cp (the writable folder's copy) run under the rest.
LIMIT_MIN = {"address_space_mb": 32, "cpu_seconds": 10, "file_size_mb": 1, "processes": 1, "open_files": 16,
             "memory_mb": 32}


def limit_problem(key: str, value: Any) -> str | None:
    """What is wrong with one limit's value (None if nothing); the key must be in LIMIT_KEYS."""
    if key == "no_network":
        return None if isinstance(value, bool) else f"expected true or false, got {value!r}"
    low, high = LIMIT_MIN[key], LIMIT_MAX[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return f"expected a whole number from {low} to {high}, got {value!r}"
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


# The most a bot's manifest may ask for, unless the organiser says otherwise (docs/sandbox.md's
# table): room for a JVM, a Go runtime or a search that uses every core, far below what harms the
# machine. A bot that asks for nothing runs with the defaults (`Limits()`).
DEFAULT_CEILINGS = Limits(address_space_mb=8192, cpu_seconds=3600, file_size_mb=128, processes=128, open_files=1024,
                          memory_mb=4096, no_network=True)
# What only a grant gives (a tournament's [grant.NAME], --grant), no ceiling of its own: a tcp endpoint,
# and a place in a tournament for a version that has not passed its check here (arena/check/record.py).
GRANT_ONLY_KEYS = ("zmq_tcp", "unchecked")
GRANT_KEYS = LIMIT_KEYS + GRANT_ONLY_KEYS


class LimitRefused(ValueError):
    """A manifest asks for more than its ceiling: `key` (a limit, or zmq_tcp), what it asked, the
    ceiling; the caller says where the bot asked and how the organiser can grant it."""

    def __init__(self, key: str, asked: Any, ceiling: Any) -> None:
        self.key, self.asked, self.ceiling = key, asked, ceiling
        if key == "zmq_tcp":
            words = ('zmq_endpoint_kind = "tcp" asks for a network endpoint, which only the organiser grants '
                     "(the bot then gets a loopback of its own, joined to the arena and nothing else)")
        elif key == "no_network":
            words = "no_network = false asks for the network, which only the organiser grants"
        else:
            words = f"asks for {asked}, above the ceiling of {ceiling}"
        super().__init__(words)


@dataclass(frozen=True)
class Granted:
    """What one bot runs with: its limits, whether it gets a tcp endpoint, and what it asked for
    beyond the defaults and was granted (for the run's first lines). `ceilings`: what the sandbox's
    own set-up runs under, before the bot's limits are applied to the bot's own process."""

    limits: Limits
    tcp: bool = False
    beyond_defaults: tuple[str, ...] = ()
    ceilings: Limits = DEFAULT_CEILINGS


def ceilings_from(table: Mapping[str, Any] | None, grant: Mapping[str, Any] | None = None) -> Limits:
    """The ceilings of one bot: the defaults, then the organiser's table for every bot (a
    tournament's [sandbox]), then its own grant ([grant.NAME], --grant)."""
    ceilings = DEFAULT_CEILINGS
    for layer in (table, grant):
        if layer:
            ceilings = dataclasses.replace(ceilings, **{k: v for k, v in layer.items() if k in LIMIT_KEYS})
    return ceilings


def grant(asked: Mapping[str, Any], ceilings: Limits, *, tcp_asked: bool = False, tcp_granted: bool = False) -> Granted:
    """The limits a bot runs with: each what its manifest asks (`asked`, its [limits] table), else
    the default, never above its ceiling. LimitRefused for the first key asked beyond: a manifest
    asks, only the organiser grants."""
    values = {}
    beyond = []
    defaults = Limits()
    for key in LIMIT_KEYS:
        ceiling = getattr(ceilings, key)
        default = getattr(defaults, key)
        if key == "no_network":
            want = asked.get(key, True)
            if not want and ceiling:
                raise LimitRefused(key, want, ceiling)
            values[key] = bool(want)
            if not want:
                beyond.append("the network")
            continue
        if key in asked:
            if asked[key] > ceiling:
                raise LimitRefused(key, asked[key], ceiling)
            values[key] = asked[key]
            if asked[key] > default:
                beyond.append(f"{key} {asked[key]}")
        else:
            values[key] = min(default, ceiling)
    if tcp_asked and not tcp_granted:
        raise LimitRefused("zmq_tcp", True, False)
    if tcp_asked:
        beyond.append("a tcp endpoint joined to the arena alone")
    return Granted(Limits(**values), tcp_asked, tuple(beyond), ceilings)


def grant_problem(table: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, what is wrong) for the first bad entry of a grant table, or None."""
    for key, value in table.items():
        if key in GRANT_ONLY_KEYS:
            if not isinstance(value, bool):
                return key, f"expected true or false, got {value!r}"
            continue
        if key not in LIMIT_KEYS:
            return key, f"unknown key; a grant may raise a limit's ceiling ({', '.join(LIMIT_KEYS)}) or give zmq_tcp"
        problem = limit_problem(key, value)
        if problem:
            return key, problem
    return None
