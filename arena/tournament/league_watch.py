"""What a running league notices between tables (issue 43): bots added at the end of the config's
`bots`, new versions of its bots (`arena bot add --replace`), bots taken out, and the freeze
(`arena tournament freeze`). A change the run may take ends its choosing; the session opens the
league again with it, without the organiser starting anything (arena/cli/tournament.py).

What the run may take is what `arena tournament run` would take on a new start: an added bot
always; a new version or a bot taken out with `--update` (or on_change = "replay"); after the
freeze, no new bot or version. A version that has not passed `arena bot check` here is not taken
unless the organiser granted it; nor is a bot whose build fails or whose grants cannot be met
(tried once a version); nor a config that does not load, or that changes what the league's games
were dealt by (seed, deals, table size, rules). Each of those is said once, and the league goes on
as it was, taking none of the config's other changes meanwhile: opened again, it takes its config
whole, and would refuse it."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Callable, Mapping

from arena.errors import ArenaError
from arena.submission.manifest import BotManifest
from arena.tournament.config import TournamentConfig

CHECK_EVERY_S = 2.0  # a look costs a parse and a hash of every bot's files (ms for a class's bots): not at every table


class LeagueWatch:
    """Called by the league's feed before it chooses tables: a line saying what changed when the
    run should open the league again, else None."""

    def __init__(self, config: TournamentConfig, versions: Mapping[str, str], *, update: bool, unchecked: bool,
                 note: Callable[[str], None], every_s: float = CHECK_EVERY_S,
                 ready: Callable[[TournamentConfig, BotManifest], object] = lambda config, manifest: None) -> None:
        self.config, self.versions, self.update, self.unchecked = config, dict(versions), update, unchecked
        self.note, self.every_s = note, every_s
        # Builds a bot and checks its grants as the run opened again would (ArenaError: why not): a
        # bot that cannot be readied is not taken, or the league would end in its refusal.
        self.ready = ready
        self._unready: dict[tuple[str, str], str] = {}  # (bot, version) -> why, tried once
        self._looked = time.monotonic()
        self._said: set[str] = set()  # what was said once already
        self.taken: str | None = None  # the change the run stopped for, once it has

    def __call__(self) -> str | None:
        if time.monotonic() - self._looked < self.every_s:
            return None
        self._looked = time.monotonic()
        digest = _digest(self.config.path)
        try:
            self.taken = self._look(digest)
            return self.taken
        except ArenaError as exc:
            self._once(f"{digest}:load", f"{exc}; the league goes on as it was until the config loads")
            return None

    def _look(self, digest: str) -> str | None:
        from arena.tournament.opening import bot_versions, load_tournament

        config, manifests = load_tournament(self.config.path)
        versions = bot_versions(manifests)
        # A withdrawn bot stays in the run's `bots`, out of `playing`: put back, it rejoins as a new one would.
        added = [name for name in config.bots if name not in self.config.playing]
        taken_out = [name for name in self.config.playing if name not in config.bots]
        changed = [name for name in config.bots if name in self.versions and name not in added
                   and versions[name] != self.versions[name]]
        if config.frozen and not self.config.frozen:
            return "frozen: the league takes no new bot or version, and plays its final round robin"
        if config.frozen:
            if added or changed:
                self._once(f"{digest}:frozen:{','.join(added + changed)}:{_joined(versions)}",
                           f"the league is frozen: {', '.join(added + changed)} not taken (new bots and versions "
                           "wait for the next league)")
            return None
        word = self.update or config.on_change == "replay"
        unworded = [] if word else changed + taken_out
        refused = [name for name in added + changed
                   if name not in unworded and not self._admitted(config, name, versions[name], manifests)]
        unready = {name: self._readied(config, manifests[name], versions[name]) for name in added + changed
                   if name not in unworded + refused}
        unready = {name: why for name, why in unready.items() if why}
        fixed = _fixed_changes(self.config, config)
        # Opened again, the league takes its config whole: with a change it would refuse, nothing is taken.
        others = [name for name in added + changed + taken_out if name not in unworded + refused + list(unready)]
        held = (f"; {', '.join(others)} {'waits' if len(others) == 1 else 'wait'} with it (the league takes its "
                "config whole)") if others else ""
        if unworded:
            self._once(f"{digest}:word:{_joined(versions)}",
                       f"{', '.join(unworded)} changed ({'resubmitted' if changed else 'taken out'}): a league takes "
                       f"new versions and withdrawals when run with --update; it goes on as it was{held}")
        if refused:
            self._once(f"{digest}:check:{_joined(versions)}",
                       f"{', '.join(refused)}: this version has not passed `arena bot check` on this machine (or a "
                       f"grant [grant.NAME] unchecked = true in {config.path}); the league goes on without it{held}")
        for name, why in unready.items():
            self._once(f"{digest}:ready:{name}={versions[name]}", f"{name} not taken: {why}; the league goes on without "
                                                                 f"it{held}")
        taken = added + changed + taken_out
        if fixed:
            waiting = f"; put them back to take {', '.join(taken)}" if taken else ""
            self._once(f"{digest}:fixed", f"{config.path}: {'; '.join(fixed)}: a league's games stay as they were dealt, "
                                          f"so these cannot change (its next start would refuse them){waiting}; the "
                                          "league goes on as it was")
        if unworded or refused or unready or fixed or not taken:
            return None
        back = set(self.config.bots) - set(self.config.playing)  # withdrawn, and put back in the config
        how = {**{name: "withdrawn" for name in taken_out}, **{name: "resubmitted" for name in changed},
               **{name: "back" if name in back else "added" for name in added}}
        words = [f"{name} {how[name]}" for name in taken]
        return f"{'; '.join(words)}: the league takes {'it' if len(words) == 1 else 'them'} now"

    def _admitted(self, config: TournamentConfig, name: str, version: str, manifests: Mapping) -> bool:
        from arena.submission.registry import load_kept_check
        from arena.submission.workspace import is_bundled

        if self.unchecked or (config.grants.get(name) or {}).get("unchecked") or is_bundled(manifests[name].directory):
            return True
        kept = load_kept_check(name, version)
        return bool(kept and kept.get("passed"))

    def _readied(self, config: TournamentConfig, manifest: BotManifest, version: str) -> str:
        """Why the bot cannot be readied for the run (built, its grants met), or "": tried once a version."""
        key = (manifest.name, version)
        if key not in self._unready:
            try:
                self.ready(config, manifest)
                self._unready[key] = ""
            except ArenaError as exc:
                self._unready[key] = str(exc)
        return self._unready[key]

    def _once(self, key: str, line: str) -> None:
        if key not in self._said:
            self._said.add(key)
            self.note(line)


def _fixed_changes(running: TournamentConfig, now: TournamentConfig) -> list[str]:
    """What the config changes that a league's stored games fix (the run opened again would refuse
    it), one phrase each."""
    def fixed(config: TournamentConfig) -> dict[str, object]:
        return {"seed": config.seed, "deals": config.deals, "table_size": config.table_size,
                "rules": sorted(config.rules.to_options().items())}

    before, after = fixed(running), fixed(now)
    return [f"{key} changed" if key == "rules" else f"{key} {before[key]} -> {after[key]}"
            for key in before if before[key] != after[key]]


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return ""


def _joined(versions: Mapping[str, str]) -> str:
    return ",".join(f"{name}={version}" for name, version in sorted(versions.items()))


__all__ = ["CHECK_EVERY_S", "LeagueWatch"]
