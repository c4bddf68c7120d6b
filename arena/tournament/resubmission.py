"""Bots that change under a tournament: which were resubmitted (their files, so their version, changed
since their games were stored), withdrawn (taken out of the config with games stored), or rejoined,
and what the stored results become. Pure: the CLI asks, the results store carries it out.

A resubmitted bot's stored games are superseded (kept, out of the standings) and every table it
sits at is played again under its new version, with the same cards: game keys and seeds depend only
on a table's bots and the deal. A withdrawn bot stays in the schedule's list of entries, so that no
other table changes its key, but its tables are no longer played and its games are superseded.
Either needs the organiser's word: `tournament run --update`, or `on_change = "replay"`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ON_CHANGE_MODES = ("refuse", "replay")


@dataclass(frozen=True)
class BotChanges:
    """What a run makes of the config's bots against the stored tournament's."""

    entries: tuple[str, ...]  # the schedule's entries: the stored ones in their order, then the new ones
    withdrawn: tuple[str, ...] = ()  # entries whose tables are not played (after this run)
    resubmitted: dict[str, tuple[str, str]] = field(default_factory=dict)  # bot -> (stored, current version)
    newly_withdrawn: tuple[str, ...] = ()
    rejoined: tuple[str, ...] = ()
    versions: dict[str, str] = field(default_factory=dict)  # every entry's version, withdrawn ones as stored
    order_changed: bool = False  # bots moved or renamed: not a change a run takes (the fingerprint check says why)

    @property
    def needs_word(self) -> bool:
        """Stored games leave the standings: only with `--update` or `on_change = "replay"`."""
        return bool(self.resubmitted or self.newly_withdrawn)

    def whys(self) -> dict[str, str]:
        """bot -> why its stored games are superseded."""
        out = {bot: f"{bot}: version {old}, now {new}" for bot, (old, new) in self.resubmitted.items()}
        out.update({bot: f"{bot}: withdrawn" for bot in self.newly_withdrawn})
        return out


def split_names(text: object) -> list[str]:
    return [name for name in str(text or "").split(",") if name]


def stored_versions(stored: dict) -> dict[str, str]:
    """The fingerprint's bot_versions ("a=hash,b=hash") as a dict."""
    pairs = [item.partition("=") for item in split_names(stored.get("bot_versions"))]
    return {name: version for name, sep, version in pairs if sep}


def plan(stored: dict, bots: tuple[str, ...], versions: dict[str, str], bots_played: set[str]) -> BotChanges:
    """What the config's `bots` (with their current `versions`) make of the `stored` fingerprint's.
    A list in another order than the stored one is not planned here (the fingerprint check refuses
    it, naming why): bots are only added at the end, taken out, or put back."""
    entries = split_names(stored.get("bots"))
    was_withdrawn = set(split_names(stored.get("withdrawn")))
    old_versions = stored_versions(stored)
    # A withdrawn bot put back rejoins at its old place in the schedule wherever the config lists it.
    placed = [name for name in bots if name not in was_withdrawn]
    kept = [name for name in placed if name in entries]
    new = [name for name in placed if name not in entries]
    if placed != kept + new or kept != [name for name in entries if name in kept]:
        return BotChanges(entries=tuple(bots), versions=dict(versions), order_changed=True)
    gone = [name for name in entries if name not in bots]
    # The last entries, taken out with no game ever stored, simply go (as they were added): the
    # stored tables do not change. Any other entry taken out is withdrawn, and keeps its place for
    # good (its superseded games leave it none stored, but its tables' keys were used).
    while entries and entries[-1] in gone and entries[-1] not in bots_played and entries[-1] not in was_withdrawn \
            and not new:
        gone.remove(entries.pop())
    withdrawn_now = tuple(name for name in gone if name not in was_withdrawn)
    rejoined = tuple(name for name in bots if name in was_withdrawn)
    withdrawn = tuple(name for name in entries if (name in was_withdrawn and name not in rejoined)
                      or name in withdrawn_now)
    resubmitted = {name: (old_versions[name], versions[name]) for name in kept
                   if name in bots_played and name not in was_withdrawn
                   and old_versions.get(name, versions[name]) != versions[name]}
    every = {name: versions.get(name, old_versions.get(name, "")) for name in entries + new}
    return BotChanges(entries=tuple(entries + new), withdrawn=withdrawn, resubmitted=resubmitted,
                      newly_withdrawn=withdrawn_now, rejoined=rejoined, versions=every)


def updated_fingerprint(stored: dict, changes: BotChanges) -> dict:
    """The stored fingerprint with its bots' versions and withdrawals as they are after `changes`.
    Its list of bots stays as stored: bots added at the end, or the last ones taken out with no game
    stored, are the fingerprint check's business afterwards, as is a change of deals."""
    if changes.order_changed:
        return stored  # nothing to carry out: the run is refused
    out = {key: value for key, value in stored.items() if key != "withdrawn"}
    names = split_names(stored.get("bots"))
    out["bot_versions"] = ",".join(f"{name}={changes.versions.get(name, '')}" for name in names)
    withdrawn = [name for name in changes.withdrawn if name in names]
    if withdrawn:
        out["withdrawn"] = ",".join(withdrawn)
    return out
