"""A gauntlet's config: what its first line says, and which key a too-large one is blamed on."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.tournament.runner import build_schedule, describe_schedule
from arena.tournament.config import ConfigError, config_from_dict

PATH = Path("t/g.toml")


def gauntlet(bots: int, challengers: int, table_size: int, deals: int = 1):
    data = {"bots": [f"b{i}" for i in range(bots)], "schedule": "gauntlet", "challengers": challengers,
            "table_size": table_size, "deals": deals}
    return config_from_dict(data, PATH)


def described(config) -> str:
    return describe_schedule(config, build_schedule(config)).removeprefix("gauntlet: ")


def test_the_first_line_names_the_challengers_and_their_opponents():
    assert described(gauntlet(4, 3, 2)).startswith("b0, b1, b2 against each of the other 1 bot: 3 tables")
    text = described(gauntlet(5, 1, 3))
    assert text.startswith("b0 against every 2 of the other 4 bots: 6 tables; bots are ranked by points per game")
    assert "unequal numbers of games" in text  # b0 plays 6 tables, each other bot 3


def test_the_note_on_unequal_games_only_where_they_are_unequal():
    # One challenger and two others at tables of three: a single table, which everybody plays.
    assert "unequal" not in described(gauntlet(3, 1, 3))


def test_a_gauntlet_too_large_to_play_is_blamed_on_its_bots_not_on_one_deal():
    with pytest.raises(ConfigError, match=r"key 'bots': 455,126 tables x 1 deal x 120 seatings"):
        gauntlet(60, 1, 5)
    with pytest.raises(ConfigError, match="key 'deals'"):
        gauntlet(60, 1, 5, deals=2)
