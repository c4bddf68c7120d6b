"""The replay page's own rules (arena/report/replay_assets/engine.js) against the arena's engine: run
under Node.js on the page's JSON (`arena replay --format json`), its table after every move equals
the rules package's, for games of 2 to 5 players under many rule options (R5, docs/rules.md
section 9), with faults, fallback moves (R52) and forfeits (R53). The browser tests hold the page
drawn from it to the same tables (tests/report/test_replay_browser.py)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from arena.results.replay_json import game_replay
from tests.fakes import faulty_at, timeout_error
from tests.replay_support import NODE_RUNNER, OPTION_SETS, engine_steps, played_row

NODE = shutil.which("node") or shutil.which("nodejs")
pytestmark = pytest.mark.skipif(NODE is None, reason="no Node.js on this machine to run the page's JavaScript "
                                                     "(Debian: apt-get install nodejs); the browser tests still check it")

RUN = f"""
const engine = require({json.dumps(str(NODE_RUNNER))});
let input = '';
process.stdin.on('data', d => input += d);
process.stdin.on('end', () => {{
  const out = JSON.parse(input).map(game => {{
    const result = engine.replaySteps(game);
    return {{steps: result.steps.map(s => s.state), error: result.error}};
  }});
  process.stdout.write(JSON.stringify(out));
}});
"""


def page_engine(games: list[dict]) -> list[dict]:
    done = subprocess.run([NODE, "-e", RUN], input=json.dumps(games), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _rows():
    rows = []
    for index, options in enumerate(OPTION_SETS):
        for players in (2, 3, 4, 5):
            for seed in (1, 2):
                rows.append(played_row({**options, "num_players": players}, seed=100 * index + 10 * players + seed))
    return rows


@pytest.mark.slow
def test_the_pages_table_equals_the_engines_after_every_move_under_every_option_set_and_player_count():
    rows = _rows()
    results = page_engine([game_replay(row) for row in rows])
    assert len({row.transcript.rules for row in rows}) == len(OPTION_SETS) * 4
    for row, result in zip(rows, results):
        expected = engine_steps(row)
        assert result["error"] is None, f"{row.transcript.rules.changed_options()}: {result['error']}"
        assert len(result["steps"]) == len(expected)
        for step, (theirs, ours) in enumerate(zip(result["steps"], expected)):
            assert theirs == ours, f"{row.transcript.rules.changed_options()}, seed {row.seed}: step {step} differs"


def test_fallback_moves_and_a_forfeit_replay_as_the_engine_played_them():
    """R52: the referee's moves for a bot that timed out or was malformed; R53: a forfeit ends the
    game with a step of its own."""
    fallback = played_row({}, seed=5, policies=[faulty_at(2, lambda t: timeout_error()), faulty_at(6, lambda t: "x"),
                                                faulty_at(1, lambda t: "move 1 pickup", seed=3)])
    forfeit = played_row({"fault_policy": "forfeit", "num_players": 4}, seed=6,
                         policies=[faulty_at(30, lambda t: "x", seed=s) for s in range(4)])
    assert forfeit.transcript.forfeited_seat is not None and len(fallback.faults) == 3
    data = [game_replay(fallback), game_replay(forfeit)]
    assert sum(move.get("by_referee", False) for move in data[0]["moves"]) >= 3
    for row, result in zip((fallback, forfeit), page_engine(data)):
        assert result["error"] is None
        assert result["steps"] == engine_steps(row)
    assert result["steps"][-1]["outcome"]["reason"] == "forfeit"


def test_moves_that_do_not_fit_the_deal_are_named_not_replayed_past():
    data = game_replay(played_row({}, seed=7))
    data["moves"][4]["move"] = "Kd" if data["moves"][4]["move"] != "Kd" else "Qd"
    [result] = page_engine([data])
    assert result["error"].startswith("move 5 (") and len(result["steps"]) <= 5
