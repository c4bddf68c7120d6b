"""Every bundled bot: handshake, a legal answer to realistic requests, ignores other lines, exits on quit.

Pipe bots are driven over stdin/stdout by a tiny driver (tests/bots_support.py); the ZeroMQ bot
through the arena's own ZmqTransport, arena-started and as a CurveZMQ service. Full matches
through the referee are tested elsewhere.
"""

from __future__ import annotations

import importlib.util
import random
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.game import Game, Rules
from arena.submission.prepared import prepare_bot
from arena.submission.lookup import list_bots, load_manifest
from arena.submission.manifest import BotManifest
try:
    from tests.bots_support import BOTS_DIR, LineBot, request_line, sample_states
except ImportError:  # pytest run from outside the repository: tests/ itself is on sys.path
    from bots_support import BOTS_DIR, LineBot, request_line, sample_states

PIPE_BOTS = sorted(m.name for m in list_bots() if m.transport == "pipe")
HELLO_RE = re.compile(r"^hello name=(\S+)( \S+=\S+)*$")
NEEDS = {"c_bot": ("make", "cc"), "js_bot": ("node",), "shell_bot": ("sh", "awk")}


def test_every_expected_bot_is_bundled() -> None:
    names = {m.name for m in list_bots()}
    assert {"random_bot", "heuristic_bot", "c_bot", "js_bot", "shell_bot", "zmq_bot"} <= names


@pytest.fixture(scope="module")
def requests() -> list[tuple[str, set[str]]]:
    return sample_states(seed=7) + sample_states(seed=11, rules=Rules(num_players=4, ace_high=True))


@pytest.fixture(scope="module")
def built() -> dict[str, BotManifest]:
    """Every bot prepared as the arena runs it (copied into the build cache and built there, once
    per test run), by name; a bot whose tool is missing is left out (its tests skip)."""
    done = {}
    for m in list_bots():
        missing = [tool for tool in NEEDS.get(m.name, ()) if shutil.which(tool) is None]
        if missing:
            continue
        done[m.name] = prepare_bot(m).manifest
    return done


@pytest.mark.parametrize("name", PIPE_BOTS)
def test_pipe_bot_plays_legal_moves_and_quits(name: str, requests, built) -> None:
    missing = [tool for tool in NEEDS.get(name, ()) if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{name} needs {', '.join(missing)}, not installed on this machine")
    m = built[name]
    bot = LineBot(m.argv(), cwd=m.directory, env={"BOT_SEED": "5"})
    try:
        bot.send("hello protocol=1 arena=0.1.0")
        hello = bot.receive()
        assert HELLO_RE.match(hello), hello
        assert hello.split()[1] == f"name={name}"
        bot.send("match players=3 games=- ace_high=false draw_timing=before")
        bot.send("game 1 seat=0 players=3 dealer=2 ace_high=false")
        bot.send("some_future_message x=1 y=2")
        for line, legal in requests:
            rid = line.split()[1]
            bot.send(line)
            answer = bot.receive()
            kind, got_id, move = answer.split(" ")
            assert (kind, got_id) == ("move", rid), answer
            assert move in legal, (line, answer)
            bot.send("event play 1 Kd")
        bot.send("fault 3 timeout took too long")
        bot.send("gameover 1 reason=normal order=1/0/2 skitgubbe=2 points=1/2/0")
        bot.send("matchover totals=1/2/0 winners=1")
        # A long request line (several KB, as late in phase 2 with many known cards) is answered too.
        filler = " ".join(f"x{i}={'Kd,' * 300}Kd" for i in range(3))
        bot.send(f"request 999 2 pickup 5h phase=2 {filler}")
        assert bot.receive() in ("move 999 pickup", "move 999 5h")
        bot.send("quit")
        assert bot.wait(5) == 0
        assert bot.proc.stdout.read() == b""  # nothing after quit
    finally:
        bot.close()


def _answers_in_game(bot: LineBot, number: int, seat: int, requests) -> list[str]:
    bot.send(f"game {number} seat={seat} players=3 dealer=2 ace_high=false")
    answers = []
    for line, _ in requests:
        bot.send(line)
        answers.append(bot.receive())
    bot.send(f"gameover {number} reason=normal order=1/0/2 skitgubbe=2 points=1/2/0")
    return answers


@pytest.mark.parametrize("name", PIPE_BOTS)
def test_pipe_bot_plays_a_game_the_same_way_whatever_came_before(name: str, requests, built) -> None:
    """A resumed tournament starts a table's bots afresh in the middle of its games; it equals an
    uninterrupted run only if a bot's play depends on the game (number, seat), not on history.
    js_bot and zmq_bot once seeded from the clock and c_bot once per process."""
    missing = [tool for tool in NEEDS.get(name, ()) if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{name} needs {', '.join(missing)}, not installed on this machine")
    m = built[name]
    runs = []
    for history in ((), ((1, 0), (2, 1))):  # a fresh process, and one that played two games first
        bot = LineBot(m.argv(), cwd=m.directory)
        try:
            bot.send("hello protocol=1 arena=0.1.0")
            bot.receive()
            for number, seat in history:
                _answers_in_game(bot, number, seat, requests)
            runs.append(_answers_in_game(bot, 7, 2, requests))
        finally:
            bot.close()
    assert runs[0] == runs[1]


def test_pipe_bot_exits_on_eof(built) -> None:
    m = load_manifest("random_bot")
    bot = LineBot(m.argv(), cwd=m.directory)
    try:
        bot.proc.stdin.close()
        assert bot.wait(5) == 0
    finally:
        bot.close()


def _heuristic():
    spec = importlib.util.spec_from_file_location("heuristic", BOTS_DIR / "heuristic_bot" / "heuristic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("rules", [Rules(), Rules(num_players=2), Rules(num_players=5, ace_high=True),
                                   Rules.from_options({"phase1_mode": "all"}),
                                   Rules.from_options({"phase1_mode": "all", "num_players": 4})],
                         ids=["3p", "2p", "5p-ace-high", "3p-all", "4p-all"])
def test_heuristic_always_legal_and_beats_random(rules: Rules) -> None:
    h = _heuristic()
    rng = random.Random(3)
    n = rules.num_players
    points = 0
    games = 30
    for g in range(games):
        game = Game.new(rules, seed=g, dealer=g % n)
        me = g % n
        rid = 0
        while not game.is_over:
            moves = game.legal_moves()
            if game.to_act == me:
                rid += 1
                _, tokens, fields = h.parse_request(request_line(game, rid))
                fields["ace_high"] = str(rules.ace_high).lower()
                text = h.choose(fields, tokens)
                assert text in tokens
                game.apply(moves[tokens.index(text)])
            else:
                game.apply(rng.choice(moves))
        points += n - game.outcome.place_of(me)
    assert points / games > (n - 1) / 2  # above a random player's average


def test_heuristic_prefers_draw_and_cheap_wins() -> None:
    h = _heuristic()
    assert h.choose({"phase": "1"}, ["draw", "chance"]) == "draw"
    # answering a led queen: the cheapest card that beats it
    fields = {"phase": "1", "seat": "1", "trick": "0:Qd"}
    assert h.choose(fields, ["6c", "Kh", "Ks"]) == "Kh"
    # answering a led 2: throw the lowest card rather than spend a king
    fields = {"phase": "1", "seat": "1", "trick": "0:2d"}
    assert h.choose(fields, ["3c", "9h", "Ks"]) == "3c"
    # phase1_mode = all: `round=` says who plays this round; the jack and queen before us are worth
    # winning with the king (without `round=` an even trick would mean that we lead)
    fields = {"phase": "1", "seat": "2", "trick": "0:Jh,1:Qd", "round": "0,1,2"}
    assert h.choose(fields, ["6c", "Kh", "Ks"]) == "Kh"
    # ...also in a stunsa between seats 1 and 2 after 4h 9d 9s, in which seat 1 has played a queen
    fields = {"phase": "1", "seat": "2", "trick": "0:4h,1:9d,2:9s,1:Qs", "round": "1,2"}
    assert h.choose(fields, ["Jc", "Kh"]) == "Kh"
    # phase 2: same suit before trump, a run that empties the hand at once
    fields = {"phase": "2", "hand": "9c,Tc", "trump": "Th", "table": "0:8c"}
    assert h.choose(fields, ["pickup", "9c", "Tc", "9c,Tc"]) == "9c,Tc"
    fields = {"phase": "2", "hand": "9c,Kc,4h,5h", "trump": "Th", "table": "0:8c"}
    assert h.choose(fields, ["pickup", "9c", "Kc", "4h", "5h", "4h,5h"]) == "9c"


# ---- the ZeroMQ bot --------------------------------------------------------------------------

zmq = pytest.importorskip("zmq")


def test_zmq_bot_arena_started_plays_and_exits_on_quit(requests) -> None:
    from arena.transport.zmq import ZmqTransport

    m = load_manifest("zmq_bot")
    assert m.transport == "zmq" and m.command
    t = ZmqTransport.start(m.argv(), endpoint_kind=m.zmq_endpoint_kind, cwd=str(m.directory))
    try:
        t.send("hello protocol=1 arena=0.1.0")
        assert t.receive(10.0).startswith("hello name=zmq_bot ")
        t.send("game 1 seat=0 players=3 dealer=2")
        for line, legal in requests:
            t.send(line)
            kind, rid, move = t.receive(5.0).split(" ")
            assert kind == "move" and rid == line.split()[1] and move in legal
        t.send("quit")
        deadline = time.monotonic() + 5
        while t.returncode is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert t.returncode == 0
    finally:
        t.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(not zmq.has("curve"), reason="libzmq without CurveZMQ")
def test_zmq_bot_service_with_curve_serves_several_conversations(tmp_path: Path) -> None:
    import zmq.auth

    from arena.transport import BotTimeout, BotUnreachable
    from arena.transport.zmq import ZmqTransport

    allow = tmp_path / "clients"
    allow.mkdir()
    _, server_secret = zmq.auth.create_certificates(str(tmp_path), "server")
    client_public, client_secret = zmq.auth.create_certificates(str(tmp_path), "client")
    _, stranger_secret = zmq.auth.create_certificates(str(tmp_path), "stranger")
    shutil.copy(client_public, allow)
    endpoint = f"tcp://127.0.0.1:{_free_port()}"
    proc = subprocess.Popen(
        [sys.executable, str(BOTS_DIR / "zmq_bot" / "bot.py"), "--serve", endpoint,
         "--curve-server-secret", server_secret, "--curve-allow-dir", str(allow)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    convs = []
    try:
        time.sleep(0.3)
        for _ in range(2):
            convs.append(ZmqTransport.connect(endpoint, server_public_key=str(tmp_path / "server.key"),
                                              client_cert_path=client_secret))
        for t in convs:  # each conversation has its own handshake
            t.send("hello protocol=1 arena=0.1.0")
        for t in convs:
            assert t.receive(10.0).startswith("hello name=zmq_bot")
        convs[0].send("request 4 2 draw chance phase=1")
        convs[1].send("request 9 1 pickup phase=2")
        assert convs[1].receive(5.0) == "move 9 pickup"
        assert convs[0].receive(5.0) in ("move 4 draw", "move 4 chance")
        convs[0].send("quit")  # ends that conversation only; the service keeps serving
        convs[1].send("request 10 1 5h phase=2")
        assert convs[1].receive(5.0) == "move 10 5h"
        assert proc.poll() is None
        with pytest.raises((BotUnreachable, BotTimeout)):  # an unlisted client key is refused
            t = ZmqTransport.connect(endpoint, server_public_key=str(tmp_path / "server.key"),
                                     client_cert_path=stranger_secret)
            convs.append(t)
            t.send("hello protocol=1 arena=0.1.0")
            t.receive(1.5)
    finally:
        for t in convs:
            t.close()
        proc.terminate()
        proc.wait(5)
        proc.stderr.close()


def test_zmq_bot_plays_a_game_the_same_way_whatever_came_before(requests) -> None:
    spec = importlib.util.spec_from_file_location("zmq_bot", BOTS_DIR / "zmq_bot" / "bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def answers(conversation, number, seat):
        conversation.handle(f"game {number} seat={seat} players=3 dealer=2")
        return [conversation.handle(line) for line, _ in requests]

    fresh = module.Conversation(None, 1)
    seasoned = module.Conversation(None, 2)  # another conversation number, two games played before
    answers(seasoned, 1, 0)
    answers(seasoned, 2, 1)
    assert answers(fresh, 7, 2) == answers(seasoned, 7, 2)
