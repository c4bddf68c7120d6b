"""A league on a local Dask cluster (a scheduler and two workers on 127.0.0.1, as
tests/tournament/test_cluster.py starts them): its tables are chosen as it plays, each played on a
worker, and --games stops it after whole tables (issue 43)."""

from __future__ import annotations

import json

import pytest

from tests.cli_support import invoke
from tests.load_support import assert_no_load_faults
from tests.tournament.league_support import assert_whole_tables, league_config, tables

pytest.importorskip("distributed", reason="needs Dask distributed: pip install -e '.[cluster]' (the README's test command does)")

from tests.tournament.test_cluster import Cluster  # noqa: E402 - after the skip: it imports Dask's pieces
from tests.db_support import connected


@pytest.fixture
def cluster(tmp_path):
    made = Cluster(tmp_path / "cluster")
    try:
        made.add_worker("w1")
        made.add_worker("w2")
        made.wait_for_workers(2)
        yield made
    finally:
        made.stop()


@pytest.mark.slow  # about 10 s, most of it the cluster's start
def test_a_league_on_a_dask_cluster_plays_and_stops_with_games(cluster, tmp_path):
    config = league_config(tmp_path / "league", ["heuristic_bot", "random_bot", "shell_bot", "js_bot"])
    database = config.with_suffix(".sqlite")
    result = invoke("tournament", "run", str(config), "--cluster", cluster.address, "--games", "24")
    said = " ".join(result.output.split())
    assert result.exit_code == 0, said
    assert "league: 24 games played, as --games asked" in said and "done: 24 games stored" in said, said
    chosen = tables(database)
    assert len(chosen) == 4 and all(status == "played" for _, status, _ in chosen.values()), chosen
    assert_whole_tables(database)
    assert_no_load_faults(database)
    with connected(database) as db:
        machines = {json.loads(extra)["machine"] for (extra,) in db.execute("SELECT extra FROM games")}
    assert all("tcp://127.0.0.1:" in machine for machine in machines), machines  # played on the workers
    again = invoke("tournament", "run", str(config), "--cluster", cluster.address, "--games", "6")
    said = " ".join(again.output.split())
    assert again.exit_code == 0 and "done: 30 games stored (6 played now)" in said, said
