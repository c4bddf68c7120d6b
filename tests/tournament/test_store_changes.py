"""The text of a refused resume: what changed in the tournament's fingerprint."""

from arena.store_changes import describe_changes


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
