"""The starter bots of `arena bot new --lang ...` and `arena init` (arena/submission/scaffold.py) play
a simple sensible move, the same in every language: `draw` when legal, else the lowest card or run,
`pickup` only when nothing else is legal. They beat random_bot and rarely hit the phase-2 cap (a
starter that played the first listed move, `pickup` in every phase-2 answer, scored 0 in 72 games)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.game import EndReason, Rules
from arena.play.match import open_table, play_match
from arena.play.ready import ready_bot
from arena.play.startup import BotSettings
from arena.submission.lookup import load_manifest
from arena.submission.manifest import BotManifest
from arena.submission.prepared import prepare_bot
from tests.cli_support import invoke

NEEDS = {"python": (), "c": ("make", "cc"), "js": ("node",), "shell": ("sh", "awk"), "java": ("javac", "java")}
GAMES = 45  # a multiple of 3: the seats rotate, so each bot sits at every seat equally often

# (request line, the move every starter must answer). A hand is sorted low to high, ace_high included.
DECISIONS = [
    ("request 1 2 draw chance phase=1 seat=0 hand=3c,8d,Qs", "draw"),  # phase 1: draw when legal
    ("request 2 4 3c 8d Jh Qs phase=1 seat=0 hand=3c,8d,Jh,Qs drawn=1", "3c"),  # then the lowest card
    ("request 3 3 3c 8d chance phase=1 seat=0 hand=3c,8d,Jh", "3c"),  # draw_timing=after: chance last
    ("request 4 5 pickup 9c 9c,Tc 5h As phase=2 seat=0 hand=As,5h,9c,Tc", "As"),  # ace low: As is lowest
    ("request 5 3 Ah 9c 9c,Tc phase=2 seat=0 hand=2c,9c,Tc,Ah", "9c"),  # ace_high: the hand says Ah is highest
    ("request 6 3 pickup Kd 2s,3s phase=2 seat=0 hand=2s,3s,Kd future=field", "2s,3s"),  # a run by its low card
    ("request 7 1 pickup phase=2 seat=0 hand=5h", "pickup"),  # pickup only when it must
]


def starter(lang: str, folder: Path) -> BotManifest:
    """`arena bot new` of `lang` in `folder`, prepared (built) as a tournament runs it."""
    missing = [tool for tool in NEEDS[lang] if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the {lang} starter needs {', '.join(missing)}, which this machine lacks")
    name = f"starter_{lang}"
    made = invoke("bot", "new", name, "--lang", lang, "--dir", str(folder))
    assert made.exit_code == 0, made.output
    return ready_bot(load_manifest(folder / name / "bot.toml"), BotSettings())[0].manifest


def answers(manifest: BotManifest, lines: list[str]) -> list[str]:
    """The moves the prepared bot answers to `lines` (requests), fed over a pipe."""
    command = [sys.executable if part == "{python}" else part for part in manifest.command]
    text = "\n".join(["hello protocol=1 arena=test", *lines, "quit"]) + "\n"
    done = subprocess.run(command, cwd=manifest.directory, input=text, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return [line.split()[2] for line in done.stdout.splitlines() if line.startswith("move ")]


def starter_against_random(manifest: BotManifest) -> tuple[float, float, int]:
    """(the starter's points per game, each random_bot's, capped games) over GAMES games."""
    random_bot = prepare_bot(load_manifest("random_bot")).manifest
    with open_table([manifest, random_bot, random_bot], BotSettings()) as seats:
        assert all(seat.alive for seat in seats), [seat.dead_reason for seat in seats]
        result = play_match(seats, Rules(num_players=3), 2024, games=GAMES, rotate=True)
    assert len(result.records) == GAMES
    mine = others = capped = 0
    for record, seating in zip(result.records, result.seatings):
        assert record.faults == ()
        seat = seating.index(0)  # where the starter (player 0) sat
        mine += record.points[seat]
        others += sum(record.points) - record.points[seat]
        capped += record.outcome.reason is EndReason.CAPPED
    return mine / GAMES, others / GAMES / 2, capped


@pytest.mark.parametrize("lang", list(NEEDS))
def test_every_starter_makes_the_same_simple_choices(tmp_path, lang):
    manifest = starter(lang, tmp_path)
    assert answers(manifest, [line for line, _ in DECISIONS]) == [move for _, move in DECISIONS]


@pytest.mark.parametrize("lang", list(NEEDS))
def test_every_starter_beats_random_bot_and_rarely_hits_the_cap(tmp_path, lang):
    mine, random_avg, capped = starter_against_random(starter(lang, tmp_path))
    assert mine > random_avg, f"the {lang} starter scored {mine:.2f} per game, random_bot {random_avg:.2f}"
    assert mine >= 1.2  # placement scoring at 3 players: 2, 1, 0 points, 1 on average
    assert capped <= GAMES // 10, f"{capped} of {GAMES} games hit the phase-2 action cap"


def test_the_starter_of_arena_init_is_the_same_sensible_bot(tmp_path):
    assert invoke("init", str(tmp_path / "ws")).exit_code == 0
    manifest = ready_bot(load_manifest(tmp_path / "ws" / "bots" / "my_bot" / "bot.toml"), BotSettings())[0].manifest
    assert answers(manifest, [line for line, _ in DECISIONS]) == [move for _, move in DECISIONS]
    mine, random_avg, capped = starter_against_random(manifest)
    assert mine > random_avg and capped <= GAMES // 10
