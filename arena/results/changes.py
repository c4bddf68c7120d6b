"""What differs between a stored tournament fingerprint and the config's: the text of a refusal.

Apart from arena/results/store.py, which stores and checks the fingerprint.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass

from arena.schedule.kinds import League, label_words
from arena.schedule.numbers import BY_DEAL, PAIRED

_GROWABLE = (PAIRED, BY_DEAL)  # layouts whose game numbers stay when deals are added (schedule.numbers.GameNumbers)
_BOT_FILES_HINT = " (a bot that writes into its own folder changes its version: protocol.md, the manifest)"


def describe_changes(old: dict, new: dict) -> dict[str, str]:
    """key -> 'key: was X, now Y' for each key that differs. For the rules and the bot versions
    only the entries that changed: the whole list is long enough to be cut off before them. Bot
    versions are compared for the bots in both lists: a bot added or taken out is the `bots` change."""
    changes = {}
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key, "(absent)"), new.get(key, "(absent)")
        if before == after:
            continue
        if key == "bot_versions":
            before_versions, after_versions = _versions_by_bot(before), _versions_by_bot(after)
            if before_versions is not None and after_versions is not None:
                both = set(before_versions) & set(after_versions)
                common = [{name: versions[name] for name in both} for versions in (before_versions, after_versions)]
                if common[0] == common[1]:
                    continue  # the same versions, in another order or with bots added: `bots` says it
                changes[key] = "bot files changed: " + _changed_entries(*common) + _BOT_FILES_HINT
                continue
        if key == "schedule":  # the fingerprint's label, in the config's own words
            changes[key] = f"schedule: was {_schedule_words(before)}, now {_schedule_words(after)}"
            continue
        if key == "rules":
            try:
                changes[key] = "rules: " + _changed_entries(dict(ast.literal_eval(str(before))),
                                                            dict(ast.literal_eval(str(after))))
                continue
            except (ValueError, SyntaxError, TypeError):
                pass
        changes[key] = f"{key}: was {_show(before)}, now {_show(after)}"
    return changes


@dataclass(frozen=True, slots=True)
class FingerprintDiff:
    """How a config's fingerprint stands to the stored one."""

    changes: dict[str, str]  # what makes the stored results another tournament's: key -> its text
    deals_from: int | None = None  # the stored deals, when the config's other number of deals is accepted
    bots_from: tuple[str, ...] | None = None  # the stored bots, when the config's other list is accepted


def as_stored(fingerprint: dict[str, object]) -> dict:
    """The fingerprint as it reads back from the store (JSON: tuples become lists, and so on)."""
    return json.loads(json.dumps(fingerprint, sort_keys=True, default=str))


def compare(old: dict, new: dict, deals_played: int | None = None,
            bots_played: set[str] | None = None) -> FingerprintDiff:
    """Every key must match, except two, which may grow or shrink back:
    - `deals`: more deals of the same tables keep the stored games' keys, cards and numbers
      (schedule.numbers.GameNumbers); fewer are accepted while no stored game is of a dropped deal
      (`deals_played`: the deals with a stored game, if known), so that a raise stopped before
      its first new game can be taken back. Results numbered table by table take neither.
    - `bots` of a league, or of a round robin or a gauntlet laid out PAIRED: bots added at the end of the list
      only add tables after the stored ones (schedule.round_robin, schedule.gauntlet: they join a
      gauntlet's field); the last ones may be taken out again while none of them has a stored
      game (`bots_played`: the bots with a stored game, if known).
    """
    changes = describe_changes(old, new)
    deals_from = bots_from = None
    if "deals" in changes:
        refusal = _deals_refusal(old, new, deals_played)
        if refusal is None:
            del changes["deals"]
            deals_from = old["deals"]
        else:
            changes["deals"] += refusal
    if "bots" in changes:
        refusal = _bots_refusal(old, new, bots_played)
        if refusal is None:
            del changes["bots"]
            bots_from = tuple(str(old["bots"]).split(","))
        else:
            changes["bots"] += refusal
    return FingerprintDiff(changes, deals_from, bots_from)


def _deals_refusal(old: dict, new: dict, deals_played: int | None) -> str | None:
    """Why the stored results cannot take the config's other number of deals (None: they can)."""
    before, after = old.get("deals"), new.get("deals")
    if not (isinstance(before, int) and isinstance(after, int)):
        return ""
    if _is_league(old):
        return (" (a league numbers its games table by table, and its tables hold the same number of deals from "
                "its first: start a new league, with another results file, for another number)")
    if old.get("game_numbers") not in _GROWABLE or new.get("game_numbers") != old.get("game_numbers"):
        return (" (these results come from an arena that numbered games table by table, which another "
                "number of deals would renumber: play them into a new results file)")
    if after > before or (deals_played is not None and deals_played <= after):
        return None
    return (" (deals may rise, to play more, but not fall below a deal with stored games: those games "
            "would still count)")


def _bots_refusal(old: dict, new: dict, bots_played: set[str] | None) -> str | None:
    """Why the stored results cannot take the config's other list of bots (None: they can)."""
    before, after = old.get("bots"), new.get("bots")
    if not (isinstance(before, str) and isinstance(after, str)):
        return ""
    schedule = old.get("schedule")
    if schedule != new.get("schedule"):
        return ""  # the schedule's own change is named, with its reason
    if _is_league(old):
        pass  # a league's tables are chosen as it plays, each numbered as chosen: no bot changes another's
    elif not (schedule == "round_robin:" or str(schedule).startswith("gauntlet:")):
        return (" (a balanced schedule is laid out for its bots: another bot would change every table; "
                "play them into a new results file)")
    elif old.get("game_numbers") != PAIRED or new.get("game_numbers") != PAIRED:
        return (" (these results come from an arena that laid tables out in an order that another bot "
                "would change: play them into a new results file)")
    before_list, after_list = before.split(","), after.split(",")
    if after_list[:len(before_list)] == before_list:
        return None
    if before_list[:len(after_list)] == after_list:
        dropped = before_list[len(after_list):]
        if bots_played is None:
            return ""
        with_games = [name for name in dropped if name in bots_played]
        if not with_games:
            return None
        return (f" ({', '.join(with_games)} {'has' if len(with_games) == 1 else 'have'} stored games: a bot taken "
                "out then is withdrawn, which `arena tournament run --update` does)")
    return (" (new bots go at the end of the list and the others keep their order: a bot put before others, "
            "moved or renamed would change the tables of the stored games; a bot taken out is withdrawn "
            "with --update, and put back anywhere in the list it rejoins)")


def _is_league(fingerprint: dict) -> bool:
    return fingerprint.get("schedule") == League().label(None, 1)


def _schedule_words(label: object) -> str:
    """A fingerprint's schedule label ("gauntlet:2") as a config says it."""
    return label_words(label) or _show(label)


def _changed_entries(before: dict, after: dict) -> str:
    return ", ".join(f"{name} was {before.get(name, '(absent)')}, now {after.get(name, '(absent)')}"
                     for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name))


def _versions_by_bot(value: object) -> dict[str, str] | None:
    """The fingerprint's bot_versions ("a=hash,b=hash") as a dict; None if it is not that."""
    if not isinstance(value, str):
        return None
    pairs = [item.partition("=") for item in value.split(",") if item]
    if not all(sep for _, sep, _ in pairs):
        return None
    return {name: version for name, _, version in pairs}


def _show(value: object, limit: int = 200) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "..."
