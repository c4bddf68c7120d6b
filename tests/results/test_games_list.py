"""`arena games`: the stored games listed and filtered, to find the one to replay."""

from __future__ import annotations

import csv
import io
import json
import socket
from pathlib import Path

from arena.results.games_list import game_lines, isolation_text
from arena.results.rows import GameRow
from tests.cli_support import invoke
from tests.bots_support import hostile_bot
from tests.db_support import connected

REPO = Path(__file__).resolve().parents[2]


def _row(key: str, bots: tuple[str, ...], order: tuple[int, ...], faults: tuple[dict, ...] = ()) -> GameRow:
    points = tuple(len(bots) - 1 - order.index(seat) for seat in range(len(bots)))
    return GameRow(id=0, key=key, table=0, deal=0, bots=bots, finishing_order=order, points=points, faults=faults)


ROWS = [
    _row("g1", ("a", "b", "c"), (0, 1, 2)),
    _row("g2", ("b", "c", "d"), (2, 0, 1), ({"seat": 1, "kind": "timeout", "detail": "", "move": 3},
                                           {"seat": 1, "kind": "timeout", "detail": "", "move": 9},
                                           {"seat": 0, "kind": "illegal", "detail": "", "move": 5})),
    _row("g3", ("a", "c", "d"), (1, 2, 0), ({"seat": 2, "kind": "exited", "detail": "", "move": 4},
                                           {"seat": 2, "kind": "dead", "detail": "", "move": 6})),
]


def keys(**filters) -> list[str]:
    return [line.key for line in game_lines(ROWS, lambda row: int(row.key[1:]), **filters)]


def test_games_are_filtered_by_the_bots_they_seat_their_faults_and_who_lost():
    assert keys() == ["g1", "g2", "g3"]
    assert keys(bots=["c", "d"]) == ["g2", "g3"]  # games they played together
    assert keys(faults_only=True) == ["g2", "g3"]
    assert keys(faults_only=True, bots=["c"]) == ["g2"]  # only c's own faults count: g3's is d's
    assert keys(faults_only=True, bots=["d"]) == ["g3"]
    assert keys(skitgubbe="c") == ["g1", "g2"] and keys(skitgubbe="a") == ["g3"] and keys(skitgubbe="d") == []


def test_a_game_line_counts_faults_by_seat_and_kind_and_leaves_out_the_referees_moves_for_a_gone_bot():
    g2, g3 = list(game_lines(ROWS[1:], lambda row: 7))
    assert g2.fault_text() == "seat 0 illegal, seat 1 timeout x2"
    assert g3.fault_text() == "seat 2 exited"  # `dead` marks the moves made for it afterwards: not counted
    assert g3.order == ("c", "d", "a") and g3.points == (0, 2, 1) and g3.number == 7


def test_a_game_line_says_the_isolation_its_bots_had_in_words():
    assert isolation_text({"tool": "bubblewrap 0.8.0", "bot_uid": 65534}) == "bubblewrap 0.8.0 as uid 65534"
    assert isolation_text({"tool": "bubblewrap 0.8.0", "bot_uid": None}) == "bubblewrap 0.8.0 in a user namespace"
    assert isolation_text({"tool": "none", "why": 'isolation = "off"'}) == 'none (isolation = "off")'
    assert isolation_text(None) == ""  # a game stored before the isolation was recorded
    row = GameRow(id=0, key="g1", table=0, deal=0, bots=("a", "b", "c"), finishing_order=(0, 1, 2), points=(2, 1, 0),
                  extra={"machine": "vm", "isolation": {"tool": "none", "why": "no bwrap"}})
    (line,) = game_lines([row], lambda row: 1)
    assert line.machine == "vm" and line.isolation == "none (no bwrap)"
    assert line.as_dict()["isolation"] == "none (no bwrap)"


def test_games_lists_a_tournament_with_its_faults_in_every_format(tmp_path):
    config = tmp_path / "t.toml"
    illegal = hostile_bot("illegal")
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "{illegal}"]\ndeals = 1\nworkers = 1\n'
                      '[grant.hostile_illegal]\nunchecked = true\n')  # a test bot: it plays unchecked
    assert invoke("tournament", "run", str(config)).exit_code == 0

    # The bot sends one illegal move per process, so one game of the six has its fault.
    faulted = " ".join(invoke("games", str(config), "--faults", "-b", "hostile_illegal").output.split())
    assert "1 stored game with hostile_illegal, with a fault by hostile_illegal" in faulted
    assert "seat" in faulted and "illegal" in faulted
    table = invoke("games", str(config), "--limit", "2")
    said = " ".join(table.output.split())
    assert table.exit_code == 0, said
    assert "t: 6 stored games" in said and "... and 4 more (--limit 0 shows them all)" in said
    assert f"replay one with: arena replay {config} GAME" in said

    rows = list(csv.DictReader(io.StringIO(invoke("games", str(config), "--format", "csv").output)))
    assert len(rows) == 6 and {row["key"] for row in rows} == {f"t0000-d0000-s{s:02d}" for s in range(6)}
    assert all(sorted(row["bots"].split(";")) == ["heuristic_bot", "hostile_illegal", "random_bot"] for row in rows)
    assert [row["faults"].endswith("illegal") for row in rows].count(True) == 1
    # Where each was played and what its bots could reach there, as the run's first line said.
    from arena.sandbox.isolation import find_isolation

    here = isolation_text(find_isolation("auto").record())
    assert here and {(row["machine"], row["isolation"]) for row in rows} == {(socket.gethostname(), here)}

    lines = invoke("games", str(config), "--format", "json", "--skitgubbe", "hostile_illegal").output.splitlines()
    games = [json.loads(line) for line in lines]
    assert games and all(game["order"][-1] == "hostile_illegal" for game in games)
    # The number listed is the one `arena replay` takes.
    replay = invoke("replay", str(config), str(games[0]["number"]))
    assert replay.exit_code == 0 and replay.output.startswith(f"game {games[0]['number']} ({games[0]['key']})")


def test_games_refuses_a_bot_the_tournament_does_not_have_and_an_unknown_format(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 1\n')
    missing = invoke("games", str(config))
    assert missing.exit_code == 2 and "no results yet" in missing.output
    unknown = invoke("games", str(config), "-b", "nobody")
    assert unknown.exit_code == 2 and "no bot 'nobody'" in unknown.output and "random_bot, heuristic_bot" in unknown.output
    bad = invoke("games", str(config), "--format", "pdf")
    assert bad.exit_code == 2 and "'--format'" in bad.output and "'pdf' is not one of 'table', 'csv', 'json', 'html'" in bad.output
    alone = invoke("games", str(config), "--format", "html")  # a page needs a file, its game pages a folder
    assert alone.exit_code == 2 and "give -o FILE.html" in alone.output


def test_games_come_by_game_number_unless_asked_for_the_stored_order(tmp_path):

    config = tmp_path / "t.toml"
    config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot", "js_bot"]\ndeals = 1\nworkers = 2\n')
    assert invoke("tournament", "run", str(config)).exit_code == 0
    # Stored out of order, as two workers' tables interleave (made certain here by renumbering the ids).
    with connected(tmp_path / "t.sqlite") as db:
        db.execute("UPDATE games SET id = 1000 - id")
    db.close()

    def listed(*options: str) -> list[dict]:
        return [json.loads(line) for line in invoke("games", str(config), "--format", "json", *options).output.splitlines()]

    by_number = [game["number"] for game in listed()]
    assert len(by_number) == 24 and by_number == sorted(by_number)
    with connected(tmp_path / "t.sqlite") as db:
        stored = [key for (key,) in db.execute("SELECT key FROM games ORDER BY id")]
    db.close()
    assert [game["key"] for game in listed("--sort", "stored")] == stored != [game["key"] for game in listed()]
    assert invoke("games", str(config), "--sort", "random").exit_code != 0


def test_games_lists_by_sql_what_every_game_read_and_sorted_by_number_gave(tmp_path):
    # `arena games` selects, orders and counts in SQL (arena/results/games_page.py; more cases in
    # test_games_page.py): its output is the old way's, every game read, sorted and filtered in Python.
    from arena.results import number_order
    from arena.results.games_list import csv_header, csv_row, json_line
    from arena.results.store import ResultStore
    from arena.tournament.config import load_config

    config = tmp_path / "t.toml"
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "shell_bot", "{hostile_bot("illegal")}"]\n'
                      'deals = 2\nworkers = 2\n[grant.hostile_illegal]\nunchecked = true\n')
    assert invoke("tournament", "run", str(config)).exit_code == 0
    numbers = load_config(config).game_numbers()
    with ResultStore(tmp_path / "t.sqlite", read_only=True) as store:
        rows = sorted(store.rows(with_transcripts=False), key=numbers.of)
    cases = [((), {}), (("-b", "hostile_illegal", "--faults"), {"bots": ["hostile_illegal"], "faults_only": True}),
             (("--faults",), {"faults_only": True}), (("--skitgubbe", "random_bot"), {"skitgubbe": "random_bot"}),
             (("-b", "random_bot", "-b", "shell_bot"), {"bots": ["random_bot", "shell_bot"]})]
    for indexed in (False, True):
        if indexed:
            with ResultStore(tmp_path / "t.sqlite") as store, store._write() as db:
                number_order.create_index(db, numbers.layout)
        for options, wanted in cases:
            expected = list(game_lines(rows, numbers.of, **wanted))
            assert 2 < len(expected) < len(rows) or not wanted, options
            listed = invoke("games", str(config), "--format", "csv", *options).output
            assert listed == csv_header() + "".join(csv_row(line) for line in expected), options
            first = invoke("games", str(config), "--format", "json", "--limit", "2", *options).output
            assert first.splitlines() == [json_line(line) for line in expected[:2]], options
            table = " ".join(invoke("games", str(config), "--limit", "2", *options).output.split())
            assert f"{len(expected)} stored games" in table and f"... and {len(expected) - 2} more" in table, table
