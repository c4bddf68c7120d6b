"""The KEY=VALUE options that several commands take (`--rule OPTION=VALUE`, `--grant BOT.KEY=VALUE`),
read into what the layers below take: rule options as text for `Rules.from_options`, grants as
a config's [grant.NAME] tables, each value checked by the sandbox's own rules."""

from __future__ import annotations

from typing import Sequence

from arena.errors import ArenaError
from arena.sandbox.limits import grant_problem


class OptionError(ArenaError):
    """Bad input from the user (an argument, a config, a manifest): shown as one clear message."""


def rule_options(pairs: Sequence[str] | None) -> dict[str, str]:
    """`--rule OPTION=VALUE` pairs into a mapping; the rules value validates names and values."""
    options: dict[str, str] = {}
    for pair in pairs or ():
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"--rule takes OPTION=VALUE, got {pair!r}")
        if name.strip() in options:
            raise OptionError(f"--rule {name.strip()} is given twice ({options[name.strip()]} and {value.strip()})")
        options[name.strip()] = value.strip()
    return options


def grants(pairs: Sequence[str] | None) -> dict[str, dict[str, object]]:
    """`--grant BOT.KEY=VALUE` pairs into grants by bot name (docs/sandbox.md): a limit's ceiling
    for that bot (a whole number), zmq_tcp or no_network (true or false)."""
    granted: dict[str, dict[str, object]] = {}
    for pair in pairs or ():
        left, sep, text = pair.partition("=")
        name, dot, key = left.strip().rpartition(".")
        if not sep or not dot or not name or not key:
            raise OptionError(f"--grant takes BOT.KEY=VALUE, e.g. --grant java_bot.address_space_mb=16384; got {pair!r}")
        value: object = text.strip()
        if value in ("true", "false"):
            value = value == "true"
        elif str(value).isdigit():
            value = int(str(value))
        problem = grant_problem({key: value})
        if problem:
            raise OptionError(f"--grant {pair}: {problem[1]}")
        granted.setdefault(name, {})[key] = value
    return granted


__all__ = ["OptionError", "grants", "rule_options"]
