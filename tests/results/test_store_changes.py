"""The text of a refused resume: what changed in the tournament's fingerprint."""

from arena.results.changes import FingerprintDiff, compare, describe_changes


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


ROUND_ROBIN = {"schedule": "round_robin:", "game_numbers": "paired", "deals": 2}


def _entries(*names: str) -> dict:
    return {**ROUND_ROBIN, "bots": ",".join(names), "bot_versions": ",".join(f"{n}={n * 3}" for n in names)}


def test_bots_added_at_the_end_of_a_paired_round_robin_are_not_a_change():
    old = _entries("a", "b", "c")
    assert compare(old, _entries("a", "b", "c", "d", "e")) == FingerprintDiff({}, bots_from=("a", "b", "c"))
    grown_both = compare(old, {**_entries("a", "b", "c", "d"), "deals": 5})
    assert grown_both == FingerprintDiff({}, deals_from=2, bots_from=("a", "b", "c"))
    # A stored bot's files changed as well: that alone is named.
    changed = compare(old, {**_entries("a", "b", "c", "d"), "bot_versions": "a=aaa,b=bbb,c=xyz,d=ddd"})
    assert list(changed.changes) == ["bot_versions"] and "c was ccc, now xyz" in changed.changes["bot_versions"]


def test_bots_put_anywhere_but_the_end_are_refused_with_the_reason():
    old = _entries("a", "b", "c")
    for bots in (("d", "a", "b", "c"), ("a", "d", "b", "c"), ("b", "a", "c", "d"), ("a", "b", "x")):
        diff = compare(old, _entries(*bots), bots_played={"a", "b", "c"})
        assert list(diff.changes) == ["bots"] and diff.bots_from is None
        assert "new bots go at the end of the list" in diff.changes["bots"]


def test_the_last_bots_may_be_taken_out_only_while_none_of_their_games_is_stored():
    old = _entries("a", "b", "c", "d", "e")
    assert compare(old, _entries("a", "b", "c"), bots_played={"a", "b", "c"}).bots_from == ("a", "b", "c", "d", "e")
    played = compare(old, _entries("a", "b", "c"), bots_played={"a", "b", "c", "e"})
    assert "e has stored games" in played.changes["bots"] and played.bots_from is None
    assert list(compare(old, _entries("a", "b", "c")).changes) == ["bots"]  # not known: refused


def test_bots_are_not_added_to_a_balanced_schedule_or_to_older_layouts():
    balanced = {**_entries("a", "b", "c"), "schedule": "balanced2:4"}
    diff = compare(balanced, {**_entries("a", "b", "c", "d"), "schedule": "balanced2:4"})
    assert "a balanced schedule is laid out for its bots" in diff.changes["bots"]
    for layout in ({"game_numbers": "by_deal"}, {}):
        older = {**{k: v for k, v in _entries("a", "b", "c").items() if k != "game_numbers"}, **layout}
        grown = {**{k: v for k, v in _entries("a", "b", "c", "d").items() if k != "game_numbers"}, **layout}
        assert "laid tables out in an order that another bot would change" in compare(older, grown).changes["bots"]


def test_bots_join_a_gauntlets_field_at_the_end_but_the_challengers_stay():
    gauntlet = {**_entries("a", "b", "c"), "schedule": "gauntlet:1"}
    grown = compare(gauntlet, {**_entries("a", "b", "c", "d"), "schedule": "gauntlet:1"})
    assert grown == FingerprintDiff({}, bots_from=("a", "b", "c"))
    more_challengers = compare(gauntlet, {**_entries("a", "b", "c", "d"), "schedule": "gauntlet:2"})
    assert sorted(more_challengers.changes) == ["bots", "schedule"]
    assert more_challengers.changes["schedule"] == ("schedule: was a gauntlet with challengers = 1, "
                                                    "now a gauntlet with challengers = 2")
    to_round_robin = describe_changes({"schedule": "balanced2:12"}, {"schedule": "round_robin:"})
    assert to_round_robin == {"schedule": "schedule: was a balanced schedule with tables = 12, now a round robin"}
