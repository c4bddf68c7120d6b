"""`arena replay CONFIG GAME` of a game whose bot was withdrawn: the game is superseded (kept, out of
the standings), never to be stored again; it was said to be "not stored yet"."""

from __future__ import annotations

import json

from tests.cli_support import invoke
from tests.tournament.test_resubmission import MY_LEAGUE, played_league, run, tournament


def test_replaying_a_withdrawn_bots_game_says_it_is_superseded_and_how_to_see_it(tmp_path):
    folder, config, _ = played_league(tmp_path, deals=1)
    tournament(folder, MY_LEAGUE[:3], deals=1)  # its author took it out
    code, output = run(config, "--update")
    assert code == 0, output
    gone = json.loads(invoke("games", str(config), "--format", "json", "--superseded", "only").output.splitlines()[0])

    for game in (str(gone["number"]), gone["key"]):
        result = invoke("replay", str(config), game)
        said = " ".join(result.output.split())
        assert result.exit_code == 2, said
        assert "not stored yet" not in said and "no game" not in said
        assert "is superseded: mybot was withdrawn" in said, said
        assert f"arena replay {config} {game} --superseded" in said, said
        shown = invoke("replay", str(config), game, "--superseded")  # the way it names works
        assert shown.exit_code == 0 and shown.output.startswith("superseded (mybot: withdrawn)"), shown.output

    never = invoke("replay", str(config), "999")  # a number past the schedule: as before
    assert never.exit_code == 2 and "no game 999" in " ".join(never.output.split())
