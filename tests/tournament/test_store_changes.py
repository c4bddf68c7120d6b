"""The text of a refused resume: what changed in the tournament's fingerprint."""

from arena.store_changes import FingerprintDiff, compare, describe_changes


def test_only_the_bots_whose_files_changed_are_named():
    old = {"bots": "a,b", "bot_versions": "a=111,b=222"}
    new = {"bots": "a,b", "bot_versions": "a=111,b=333"}
    assert describe_changes(old, new) == {"bot_versions": "bot files changed: b was 222, now 333 (a bot that "
                                                          "writes into its own folder changes its version: "
                                                          "protocol.md, the manifest)"}


def test_reordered_bots_are_a_change_of_bots_not_of_their_files():
    # The kill/resume audit: a reordered list was reported as a bot_versions change.
    old = {"bots": "a,b", "bot_versions": "a=111,b=222"}
    new = {"bots": "b,a", "bot_versions": "b=222,a=111"}
    assert list(describe_changes(old, new)) == ["bots"]


def test_rules_name_only_the_options_that_changed():
    old = {"rules": str({"ace_high": False, "pickup": "all"})}
    new = {"rules": str({"ace_high": True, "pickup": "all"})}
    assert describe_changes(old, new) == {"rules": "rules: ace_high was False, now True"}


def test_more_deals_is_not_a_change_but_fewer_is():
    """One rule for the run (which then plays the new deals) and the reports (which note them)."""
    old = {"seed": 1, "deals": 2, "game_numbers": "by_deal"}
    assert compare(old, {**old, "deals": 4}) == FingerprintDiff({}, 2)
    assert compare(old, dict(old)) == FingerprintDiff({}, None)
    fewer = compare(old, {**old, "deals": 1})
    assert list(fewer.changes) == ["deals"] and "not fall" in fewer.changes["deals"] and fewer.deals_from is None
    assert compare(old, {**old, "deals": 1}, deals_played=2).deals_from is None  # deal 2 has stored games
    assert compare(old, {**old, "deals": 1}, deals_played=1) == FingerprintDiff({}, 2)  # none of deal 2
    both = compare(old, {**old, "deals": 3, "seed": 2})  # the seed refuses it: only the seed is named
    assert list(both.changes) == ["seed"] and both.deals_from == 2
    table_by_table = {"seed": 1, "deals": 2}
    assert list(compare(table_by_table, {**table_by_table, "deals": 3}).changes) == ["deals"]
