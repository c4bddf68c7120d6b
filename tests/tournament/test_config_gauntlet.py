"""A gauntlet's config: what its first line says, and which key a too-large one is blamed on."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.tournament.runner import build_schedule, describe_schedule
from arena.tournament.config import ConfigError, config_from_dict
from tests.db_support import connected

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


def test_a_gauntlet_stored_with_the_older_seeds_resumes_with_them_and_a_new_one_is_paired(tmp_path):
    """Issue 33: a new gauntlet seeds a table by its field and the challenger's slot (records
    `deal_seeds = "field"`); results stored before keep the seeds they were played with."""
    import json

    from arena.results.store import ResultStore
    from arena.schedule.games import SEEDS_BY_BOTS, SEEDS_BY_FIELD, table_games
    from arena.tournament.config import load_config, load_entries
    from arena.tournament.opening import open_results, bot_versions
    from arena.tournament.run_plan import plan_run
    from arena.tournament.runner import run_tournament

    def run(config_path):
        config, manifests = load_entries(load_config(config_path))
        store, config = open_results(config, manifests, bot_versions(manifests), create=True)
        try:
            run_tournament(plan_run(config, manifests, workers=1), store)
            return config, {row.key: (row.seed, row.bots) for row in store.rows(with_transcripts=False)}
        finally:
            store.close()

    text = ('name = "g"\nseed = 3\nschedule = "gauntlet"\nchallengers = 2\ntable_size = 2\ndeals = {deals}\n'
            'bots = ["random_bot", "shell_bot", "heuristic_bot"]\n')
    new = tmp_path / "new.toml"
    new.write_text(text.format(deals=1))
    config, games = run(new)
    assert config.deal_seeds == SEEDS_BY_FIELD
    by_seating = {}
    for key, (seed, bots) in games.items():
        by_seating.setdefault(key.split("-", 1)[1], set()).add(seed)
    assert all(len(seeds) == 1 for seeds in by_seating.values())  # both challengers, the same cards

    old = tmp_path / "old.toml"
    old.write_text(text.format(deals=1))
    run(old)
    with connected(tmp_path / "old.sqlite") as db:  # as an arena before paired seeds stored it
        stored = json.loads(db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()[0])
        del stored["deal_seeds"]
        db.execute("UPDATE meta SET value = ? WHERE key = 'fingerprint'", (json.dumps(stored, sort_keys=True),))
    old.write_text(text.format(deals=2))  # grown: the new deal is played with the older seeds
    config, games = run(old)
    assert config.deal_seeds == SEEDS_BY_BOTS
    assert ResultStore(tmp_path / "old.sqlite").fingerprint().get("deal_seeds") is None
    played = {key: seed for key, (seed, _) in games.items() if "-d0001-" in key}
    entries = {0: ("random_bot", "heuristic_bot"), 1: ("shell_bot", "heuristic_bot")}
    assert len(played) == 4 and len(set(played.values())) == 2  # each table's own cards, as before
    for key, seed in played.items():
        table = int(key[1:5])
        assert seed == next(g.seed for g in table_games(table, entries[table], 2, 3) if g.deal == 1)
