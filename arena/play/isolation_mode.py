"""The isolation `arena play` runs its bots under (docs/sandbox.md): the organiser's --isolation, or
by default `required` as soon as one bot is not a bundled one. Without it, a stranger's bot once ran
with the host's network and 37 of the organiser's environment variables, and nothing said so. And
whether a network granted to a bot can be had here (`network_problem`), for every command that plays."""

from __future__ import annotations

from typing import Sequence

from arena.errors import ArenaError
from arena.sandbox.isolation import Isolation, IsolationMode, find_isolation
from arena.sandbox.limits import Limits
from arena.sandbox.outbound import outbound_problem
from arena.submission.manifest import BotManifest
from arena.submission.workspace import is_bundled


def play_isolation(mode: IsolationMode | None, bots: Sequence[BotManifest]) -> Isolation:
    """The isolation found for `mode` (None: `required` if a bot the arena starts is not bundled,
    else `auto`); ArenaError when it is required and there is none here, naming why and the way out."""
    strangers = list(dict.fromkeys(m.name for m in bots if not m.is_service and not is_bundled(m.directory)))
    chosen = mode or (IsolationMode.REQUIRED if strangers else IsolationMode.AUTO)
    found = find_isolation(chosen.value)
    if chosen is IsolationMode.REQUIRED and not found.active:
        why = ""
        if mode is None:
            named = ", ".join(strangers)
            why = f" (the default, since {named} {'is' if len(strangers) == 1 else 'are'} not a bundled bot)"
        raise ArenaError(f"--isolation required{why}, but there is none here: {found.why_not}. To run "
                         "the bots with whatever your user can read instead, give "
                         "--isolation auto (docs/sandbox.md)")
    return found


def network_problem(manifest: BotManifest, limits: Limits, isolation: Isolation | None = None) -> str | None:
    """Why the network granted to this bot cannot be had here, in a sentence naming its manifest's
    key, or None: under isolation a granted network is outbound only, through slirp4netns (arena/
    sandbox/outbound.py), never the host's own; without that program the grant is refused, before
    any game, rather than each start failing."""
    if limits.no_network or manifest.is_service:
        return None
    isolation = find_isolation() if isolation is None else isolation
    problem = outbound_problem() if isolation.active else None
    return f"{manifest.path}: key 'limits.no_network': {problem}" if problem else None


__all__ = ["IsolationMode", "play_isolation", "network_problem"]
