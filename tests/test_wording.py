from arena.wording import count


def test_counts_take_the_plural_except_for_one():
    assert [count(n, "game") for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
