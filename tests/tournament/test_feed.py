"""TableFeed: the tables of a run handed out one at a time, with a bot that cannot be reached paused
(its tables held back while the others go on), given back when it plays again, and given one last
try before the run ends."""

from __future__ import annotations

from arena.play.records import VoidGame
from arena.schedule.games import GameSpec, TableSpec, game_key
from arena.tournament.feed import WAIT, TableFeed


def table(index: int, *bots: str, games: int = 2) -> TableSpec:
    specs = tuple(GameSpec(game_key(index, deal, 0), index, deal, 0, bots, 100 * index + deal, 0) for deal in range(games))
    return TableSpec(index, bots, specs)


def void(spec: GameSpec, bot: str, tried: bool = True) -> VoidGame:
    return VoidGame(1, spec.bots, bot, "never connected", tried=tried)


def drain(feed: TableFeed, play) -> list[int]:
    """Hand out tables one at a time (one worker), `play(table)` reporting its games; the order played."""
    order = []
    while (got := feed.next()) is not None:
        assert got is not WAIT  # one worker: nothing is under way while it asks
        order.append(got.index)
        play(got)
        feed.done()
    return order


def test_without_voids_every_table_is_handed_out_once_in_order():
    tables = [table(0, "a", "b"), table(1, "a", "c"), table(2, "b", "c")]
    feed = TableFeed(tables)
    assert drain(feed, lambda t: [feed.played(g) for g in t.games]) == [0, 1, 2]
    assert feed.finished and feed.untried() == [] and not feed.paused


def test_a_bot_that_cannot_be_reached_is_paused_the_others_go_on_and_it_gets_a_last_try():
    tables = [table(0, "svc", "b"), table(1, "svc", "c"), table(2, "b", "c")]
    feed = TableFeed(tables)
    said = []

    def play(t: TableSpec) -> None:
        if "svc" in t.entries:  # down all run: the first game void, the rest of the table not tried
            first, *rest = t.games
            said.append(feed.voided(first, void(first, "svc")))
            for spec in rest:
                feed.voided(spec, void(spec, "svc", tried=False))
        else:
            for spec in t.games:
                feed.played(spec)

    order = drain(feed, play)
    assert order == [0, 2, 0]  # table 1 held back; table 0 tried once more at the end
    assert said == ["svc", None]  # the pause is said once
    assert feed.given_up == {"svc": "never connected"}
    untried = feed.untried()
    assert sorted(spec.key for spec, _ in untried) == sorted(g.key for g in tables[1].games)
    assert all(not v.tried and "paused" in v.why for _, v in untried)
    assert feed.untried() == []  # taken once
    assert feed.finished


def test_a_paused_bot_that_is_back_gets_all_its_held_tables_in_the_same_run():
    tables = [table(0, "svc", "b"), table(1, "svc", "c"), table(2, "b", "c"), table(3, "svc", "d")]
    feed = TableFeed(tables)
    back = {"now": False}
    played: list[str] = []

    def play(t: TableSpec) -> None:
        for spec in t.games:
            if "svc" in t.entries and not back["now"]:
                feed.voided(spec, void(spec, "svc"))
            else:
                feed.played(spec)
                played.append(spec.key)
        if t.index == 2:
            back["now"] = True  # the service is started again while the other table plays

    order = drain(feed, play)
    assert order[:2] == [0, 2] and sorted(order[2:]) == [0, 1, 3]
    assert sorted(played) == sorted(g.key for t in tables for g in t.games)
    assert not feed.paused and not feed.given_up and feed.untried() == []


def test_while_a_table_is_under_way_held_work_waits_for_it():
    feed = TableFeed([table(0, "svc", "b"), table(1, "svc", "c")])
    first = feed.next()
    feed.voided(first.games[0], void(first.games[0], "svc"))  # table 1 held now
    assert feed.next() is WAIT  # table 0 is still under way: it may bring svc back
    feed.played(first.games[1])  # svc played the table's next game: it is back
    assert feed.next().index == 1


def test_tables_handed_out_after_a_bots_retry_window_say_it_is_spent():
    """A tried void game comes after the bot's retry window: every table handed out from then on
    names it (`retried`), so that a service of its out of reach is charged there (protocol.md
    section 9), its last try included; tables handed out before, and other bots, are not named."""
    tables = [table(0, "svc", "b"), table(1, "b", "c"), table(2, "svc", "c")]
    feed = TableFeed(tables)
    first = feed.next()
    assert first.index == 0 and first.retried == ()
    feed.voided(first.games[0], void(first.games[0], "svc"))
    feed.voided(first.games[1], void(first.games[1], "svc", tried=False))
    feed.done()
    other = feed.next()
    assert other.index == 1 and other.retried == ()  # svc does not sit there
    for spec in other.games:
        feed.played(spec)
    feed.done()
    last_try = feed.next()
    assert last_try.index == 0 and last_try.retried == ("svc",)
    for spec in last_try.games:  # charged there: played
        feed.played(spec)
    feed.done()
    back = feed.next()
    assert back.index == 2 and back.retried == ("svc",)
    for spec in back.games:
        feed.played(spec)
    feed.done()
    assert feed.next() is None and not feed.given_up and feed.untried() == []
