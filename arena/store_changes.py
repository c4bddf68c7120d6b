"""What differs between a stored tournament fingerprint and the config's: the text of a refusal.

Split from arena/store.py, which stores and checks the fingerprint.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass

_BOT_FILES_HINT = " (a bot that writes into its own folder changes its version: protocol.md, the manifest)"


def describe_changes(old: dict, new: dict) -> dict[str, str]:
    """key -> 'key: was X, now Y' for each key that differs. For the rules and the bot versions
    only the entries that changed: the whole list is long enough to be cut off before them."""
    changes = {}
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key, "(absent)"), new.get(key, "(absent)")
        if before == after:
            continue
        if key == "bot_versions":
            by_bot = _versions_by_bot(before), _versions_by_bot(after)
            if by_bot[0] is not None and by_bot[1] is not None:
                if by_bot[0] == by_bot[1]:
                    continue  # the same versions in another order: the `bots` change says it
                changes[key] = "bot files changed: " + _changed_entries(*by_bot) + _BOT_FILES_HINT
                continue
        if key == "rules":
            try:
                changes[key] = "rules: " + _changed_entries(dict(ast.literal_eval(str(before))),
                                                            dict(ast.literal_eval(str(after))))
                continue
            except (ValueError, SyntaxError, TypeError):
                pass
        changes[key] = f"{key}: was {_show(before)}, now {_show(after)}" + (_deals_hint(old, new) if key == "deals" else "")
    return changes


@dataclass(frozen=True, slots=True)
class FingerprintDiff:
    """How a config's fingerprint stands to the stored one."""

    changes: dict[str, str]  # what makes the stored results another tournament's: key -> its text
    deals_from: int | None  # the stored deals, when the config's other number of deals is accepted


def as_stored(fingerprint: dict[str, object]) -> dict:
    """The fingerprint as it reads back from the store (JSON: tuples become lists, and so on)."""
    return json.loads(json.dumps(fingerprint, sort_keys=True, default=str))


def compare(old: dict, new: dict, deals_played: int | None = None) -> FingerprintDiff:
    """Every key must match, except `deals`: more deals of the same tables keep the stored games'
    keys, cards and numbers (schedule.GameNumbers by deal); fewer are accepted too while no stored
    game is of a dropped deal (`deals_played`: the deals with a stored game, if known), so a raise
    stopped before its first new game can be taken back. Results numbered table by table (no
    `game_numbers` key) take neither: a new number of deals would renumber them."""
    changes = describe_changes(old, new)
    before, after = old.get("deals"), new.get("deals")
    if ("deals" in changes and isinstance(before, int) and isinstance(after, int)
            and old.get("game_numbers") == new.get("game_numbers") == "by_deal"
            and (after > before or (deals_played is not None and deals_played <= after))):
        del changes["deals"]
        return FingerprintDiff(changes, before)
    return FingerprintDiff(changes, None)


def _deals_hint(old: dict, new: dict) -> str:
    before, after = old.get("deals"), new.get("deals")
    if not (isinstance(before, int) and isinstance(after, int)):
        return ""
    if old.get("game_numbers") != "by_deal":
        return (" (these results come from an arena that numbered games table by table, which another "
                "number of deals would renumber: play them into a new results file)")
    if after < before:
        return (" (deals may rise, to play more, but not fall below a deal with stored games: those games "
                "would still count)")
    return ""


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
