"""The protocol codec (arena/protocol/) against protocol.md: round trips and malformed bot input."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from arena import protocol as P
from arena.game import CHANCE, DRAW, PICKUP, Event, EventKind, Game, Rules, play
from arena.game.cards import parse_card
from arena.game.outcome import EndReason, Outcome
from arena.game.rules import DrawTiming, FaultPolicy, Pickup, Scoring
from arena.game.view import SeatView

RULE_VARIANTS = [
    Rules(),
    Rules(num_players=2),
    Rules(num_players=2, two_player_removed_cards=10, ace_high=True),
    Rules(num_players=4, draw_timing=DrawTiming.AFTER, public_won_piles=False),
    Rules(num_players=5, allow_chance=False, pickup=Pickup.TOP_RUN, target_points=7),
    Rules(num_players=3, allow_sequences=False, scoring=Scoring.POT, fault_policy=FaultPolicy.FORFEIT),
]


def random_games(count: int):
    """Yield (game, rng) positions of real games played with random legal moves."""
    for i in range(count):
        rules = RULE_VARIANTS[i % len(RULE_VARIANTS)]
        rng = random.Random(i)
        g = Game.new(rules, seed=1000 + i, dealer=i % rules.num_players)
        while not g.is_over:
            yield g
            g.apply(rng.choice(g.legal_moves()))
        yield g


# ---- arena -> bot round trips ----------------------------------------------------------------


def test_request_round_trips_over_many_real_game_states():
    checked = 0
    for g in random_games(24):
        if g.is_over:
            continue
        view, legal = g.view(g.to_act), g.legal_moves()
        line = P.format_request(checked + 1, view, legal)
        assert "\n" not in line and "  " not in line
        msg = P.parse_message(line)
        assert isinstance(msg, P.Request)
        assert msg.request_id == checked + 1
        assert msg.legal == tuple(legal)
        for name in SeatView._fields:  # field by field, so a failure names the field
            assert getattr(msg.view, name) == getattr(view, name), name
        assert msg.view == view
        checked += 1
    assert checked > 2000


def test_request_moves_split_naively():
    for g in random_games(6):
        if g.is_over:
            continue
        legal = g.legal_moves()
        tokens = P.format_request(42, g.view(g.to_act), legal).split()
        assert tokens[0] == "request" and tokens[1] == "42"
        count = int(tokens[2])
        assert count == len(legal)
        assert tokens[3:3 + count] == [str(m) for m in legal]
        assert all("=" in t for t in tokens[3 + count:])  # then only key=value fields


def test_request_fields_documented_order():
    g = Game.new(Rules(), 1, 0)
    tokens = P.format_request(1, g.view(g.to_act), g.legal_moves()).split()
    keys = [t.split("=")[0] for t in tokens if "=" in t]
    assert keys == ["phase", "seat", "players", "dealer", "hand", "hands", "stock", "trumpholder", "trump",
                    "duel", "won", "wonsizes", "leader", "opponent", "trick", "drawn", "table", "tricksize",
                    "discard", "out", "known", "actions", "maxactions", "round"]


def test_request_ignores_unknown_fields_and_needs_all_known():
    g = Game.new(Rules(), 3, 1)
    view = g.view(g.to_act)
    line = P.format_request(5, view, g.legal_moves())
    assert P.parse_message(line + " future=1 x=a,b").view == view
    with pytest.raises(P.ProtocolError, match="hand= is missing"):
        P.parse_message(line.replace(" hand=", " hund="))


def test_events_round_trip_over_real_games():
    kinds = set()
    for g in random_games(12):
        if g.is_over:
            for e in g.events:
                line = P.format_event(e)
                assert P.parse_message(line) == e
                kinds.add(e.kind)
    assert {EventKind.DUEL, EventKind.DRAW, EventKind.PLAY, EventKind.TAKE, EventKind.PHASE2,
            EventKind.UNIT, EventKind.PICKUP, EventKind.END, EventKind.LEAD, EventKind.OUT} <= kinds


def test_event_line_shapes():
    assert P.format_event(Event(EventKind.DRAW, 1)) == "event draw 1 -"
    assert P.format_event(Event(EventKind.TAKE, 2, (parse_card("4h"), parse_card("6d")))) == "event take 2 4h,6d"
    assert P.format_event(Event(EventKind.LEAD, 0, (), 3)) == "event lead 0 - 3"
    assert P.format_event(Event(EventKind.DISCARD, None, (parse_card("Kd"),))) == "event discard - Kd"


@pytest.mark.parametrize("rules", RULE_VARIANTS)
def test_game_start_round_trips(rules):
    line = P.format_game_start(3, 1, 0, rules)
    assert line.startswith(f"game 3 seat=1 players={rules.num_players} dealer=0 ")
    assert P.parse_message(line) == P.GameStart(3, 1, 0, _without(rules, P.MATCH_OPTIONS))
    # The match's length is the match line's alone: game lines said games=12 under `--games 4`; and so
    # are its options (who deals next, how it ends): a bot read them as a game's rules.
    assert " games=" not in line and not {f"{k}=" for k in P.MATCH_OPTIONS} & {t.split("=")[0] + "=" for t in line.split()}


def _without(rules: Rules, options) -> Rules:
    """`rules` with `options` back at their defaults: what a line that leaves them out reads as."""
    return replace(rules, **{k: getattr(Rules(), k) for k in options})


@pytest.mark.parametrize("rules", RULE_VARIANTS)
@pytest.mark.parametrize("games", [None, 12, 7])
def test_match_start_round_trips(rules, games):
    line = P.format_match_start(rules, games)
    assert line.startswith(f"match players={rules.num_players} games={'-' if games is None else games} ")
    assert line.count(" games=") == 1 and "num_players" not in line
    msg = P.parse_message(line)
    expected = replace(rules, games=Rules().games if games is None else games)
    if games is not None:  # a match of a fixed length: no target or cap ends it
        expected = _without(expected, ("max_games", "target_points"))
    assert msg == P.MatchStart(rules.num_players, games, expected)


def _keys(line: str) -> set[str]:
    return {t.split("=")[0] for t in line.split()[1:]}


def test_match_start_lists_every_rule_option_in_force():
    """A tournament announced next_dealer=rotate max_games=50 target_points=- while refusing them, and
    its dealers came from its schedule: a line announces only the options the match runs by."""
    every = (set(Rules().to_options()) | {"players", "target_points"}) - {"num_players"}
    assert _keys(P.format_match_start(Rules(), None)) == every  # `arena play` until the scoring ends it
    assert _keys(P.format_match_start(Rules(), 12)) == every - {"max_games", "target_points"}
    tournament = P.format_match_start(Rules(), 12, dealers_given=True)
    assert _keys(tournament) == every - {"max_games", "target_points", "next_dealer"}
    assert _keys(P.format_match_start(Rules(), None, dealers_given=True)) == every - {"next_dealer"}
    assert not set(P.MATCH_OPTIONS) & _keys(P.format_game_start(1, 0, 2, Rules()))


def test_hello_quit_fault_matchover_round_trip():
    assert P.format_hello("1.2.0") == "hello protocol=1 arena=1.2.0"
    assert P.parse_message(P.format_hello("1.2.0")) == P.ArenaHello(1, "1.2.0")
    assert P.parse_message(P.format_hello("dev build")) == P.ArenaHello(1, "dev build")
    assert P.format_quit() == "quit" and P.parse_message("quit") == P.Quit()
    for text in ["no answer within 2.0 s", "illegal: 9c does not beat Kc (R38)", "", "a\nb\r\nc 100%"]:
        line = P.format_fault(7, "timeout", text)
        assert "\n" not in line and "\r" not in line
        assert P.parse_message(line) == P.Fault(7, "timeout", text or "no detail")
    assert P.format_fault(3, "illegal", "x y") == "fault 3 illegal x y"
    line = P.format_match_over([10, -3, 4], [0])
    assert line == "matchover totals=10/-3/4 winners=0"
    assert P.parse_message(line) == P.MatchOver((10, -3, 4), (0,))
    assert P.parse_message(P.format_match_over([1, 1], [0, 1])) == P.MatchOver((1, 1), (0, 1))


@pytest.mark.parametrize("outcome, points", [
    (Outcome((0, 2, 1), EndReason.NORMAL, went_out=2), (2, 0, 1)),
    (Outcome((2, 0, 1, 3), EndReason.CAPPED, went_out=0), (-1, -1, -1, -1)),
    (Outcome((1, 0, 2), EndReason.FORFEIT, 2, "timeout: no answer in 2 s (100%)", 0), (1, 2, 0)),
    (Outcome((1, 0), EndReason.FORFEIT, 0, "", 0), (1, 0)),
])
def test_game_over_round_trips(outcome, points):
    line = P.format_game_over(4, outcome, points)
    assert line.startswith(f"gameover 4 reason={outcome.reason.value} ")
    assert f" skitgubbe={outcome.skitgubbe}" in line
    assert P.parse_message(line) == P.GameOver(4, outcome, tuple(points))


def test_game_over_from_real_games():
    from arena.game.scoring import game_points
    for g in random_games(12):
        if g.is_over:
            pts = game_points(g.outcome, g.rules)
            assert P.parse_message(P.format_game_over(1, g.outcome, pts)) == P.GameOver(1, g.outcome, pts)


@pytest.mark.parametrize("line", [
    "", "bogus", "request", "request x 1 draw", "request 1 3 draw", "event", "event nope 1 -",
    "event play x Kd", "event play 1 Zz", "game", "game 1", "gameover 1 reason=weird order=0 points=0",
    "match players=3", "match players=3 games=- ace_high=maybe", "hello arena=1", "fault 1",
    "matchover totals=1/x winners=0", "gameover 1 reason=normal order=- skitgubbe=0 points=0",
])
def test_parse_message_rejects_malformed_arena_lines(line):
    with pytest.raises(P.ProtocolError):
        P.parse_message(line)


# ---- bot -> arena ------------------------------------------------------------------------------


@pytest.mark.parametrize("line, expected", [
    ("hello name=alpha", P.BotHello("alpha")),
    ("hello name=alpha\n", P.BotHello("alpha")),
    ("hello name=alpha\r\n", P.BotHello("alpha")),
    ("hello name=a.b-c_D9 version=1.0 author=Ann", P.BotHello("a.b-c_D9", "1.0", "Ann")),
    ("hello version=2 name=x protocol=1", P.BotHello("x", "2")),
    ("hello name=x lang=rust", P.BotHello("x")),  # unknown fields are ignored
    ("hello  name=x   ", P.BotHello("x")),  # extra blanks tolerated
    ("hello name=" + "n" * 32, P.BotHello("n" * 32)),
])
def test_parse_bot_hello_accepts(line, expected):
    assert P.parse_bot_hello(line) == expected


@pytest.mark.parametrize("line, message", [
    ("", "empty line"),
    ("\n", "empty line"),
    ("move 1 draw", "expected the handshake"),
    ("HELLO name=x", "expected the handshake"),
    ("hello", "name= is missing"),
    ("hello version=1", "name= is missing"),
    ("hello name=", "bad name"),
    ("hello name=" + "n" * 33, "bad name"),
    ("hello name=my bot", "expected key=value, got 'bot'"),
    ("hello name=bøt", "bad name"),
    ("hello name=a/b", "bad name"),
    ("hello name=x protocol=2", "protocol=2 is not supported"),
    ("hello name=x version=", "version= must be"),
    ("hello name=x author=" + "a" * 65, "author= must be"),
    ("hello name=x =y", "expected key=value"),
    ("hello name=x\x00", "control character"),
    ("hello name=x " + "v" * 9000, "longer than 8192 bytes"),
])
def test_parse_bot_hello_rejects(line, message):
    with pytest.raises(P.ProtocolError, match=message):
        P.parse_bot_hello(line)


@pytest.mark.parametrize("line, expected", [
    ("move 1 draw", P.MoveReply(1, DRAW)),
    ("move 17 chance\n", P.MoveReply(17, CHANCE)),
    ("move 3 pickup\r\n", P.MoveReply(3, PICKUP)),
    ("move 3 PICKUP", P.MoveReply(3, PICKUP)),
    ("move 9 Kd", P.MoveReply(9, play(parse_card("Kd")))),
    ("move 9 10h", P.MoveReply(9, play(parse_card("Th")))),
    ("move 9 4h,5h,6h", P.MoveReply(9, play(parse_card("4h"), parse_card("5h"), parse_card("6h")))),
    ("move 0012 Ac", P.MoveReply(12, play(parse_card("Ac")))),
    ("move 5 Kd ", P.MoveReply(5, play(parse_card("Kd")))),
    ("move\t5\tKd", P.MoveReply(5, play(parse_card("Kd")))),
])
def test_parse_move_reply_accepts(line, expected):
    assert P.parse_move_reply(line) == expected


@pytest.mark.parametrize("line, message", [
    ("", "empty line"),
    ("   ", "empty line"),
    ("draw", "expected 'move <id> <move>'"),
    ("hello name=x", "expected 'move <id> <move>'"),
    ("Kd", "expected 'move <id> <move>'"),
    ("move", "nothing after 'move'"),
    ("move 3", "no move after the id"),
    ("move Kd 3", "request id"),
    ("move -1 Kd", "request id"),
    ("move 1.5 Kd", "request id"),
    ("move ٣ Kd", "request id"),
    ("move 99999999999999999999 Kd", "request id"),
    # A whole number all the same: the message named the digit limit only in protocol.md.
    ("move 0000000000000000003 Kd", "request id \\(second token\\) has 19 digits; at most 18 are allowed"),
    ("move 3 Kd Qd", "extra 'Qd'"),
    ("move 3 4h, 5h", "extra '5h'"),
    ("move 3 Zq", "third token: not a move"),
    ("move 3 1h", "not a card"),
    ("move 3 Kd,Kd", "names a card twice"),
    ("move 3 4h,,5h", "not a move"),
    ("move 3 draw\x1b", "control character"),
    ("move 3 " + "Kd," * 3000 + "Qd", "longer than 8192 bytes"),
])
def test_parse_move_reply_rejects(line, message):
    with pytest.raises(P.ProtocolError, match=message):
        P.parse_move_reply(line)


def test_only_the_move_token_is_case_free_as_protocol_md_section_2_says():
    """§7 said "any case" and an outside author read it of the whole line: `MOVE 1 draw` was malformed
    and `HELLO` no hello. Now §2 says which: the move token alone; types and keys are lowercase."""
    for token in ("draw", "DRAW", "Draw"):
        assert P.parse_move_reply(f"move 4 {token}") == P.MoveReply(4, DRAW)
    assert P.parse_move_reply("move 4 kD") == P.MoveReply(4, play(parse_card("Kd")))
    for line in ("MOVE 4 draw", "Move 4 draw"):
        with pytest.raises(P.ProtocolError, match="expected 'move <id> <move>'.*message types are lowercase"):
            P.parse_move_reply(line)
    for line, message in (("HELLO name=x", "expected the handshake.*lowercase"), ("hello NAME=x", "name= is missing")):
        with pytest.raises(P.ProtocolError, match=message):
            P.parse_bot_hello(line)


def test_a_leading_blank_and_leading_zeros_of_an_id_are_accepted_as_section_2_and_7_say():
    assert P.parse_move_reply(" move 1 draw") == P.MoveReply(1, DRAW)
    assert P.parse_move_reply("\t move 01 draw") == P.MoveReply(1, DRAW)  # the id is read as a number
    assert P.parse_bot_hello("  hello name=x") == P.BotHello("x")


@pytest.mark.parametrize("name", [".probe", ".", "..", ".x"])
def test_a_hello_name_follows_the_manifests_rule_never_first_a_dot(name):
    """A hello `name=.probe` was taken though a manifest's name may not start with a dot (§3, appendix B)."""
    with pytest.raises(P.ProtocolError, match="not first a dot"):
        P.parse_bot_hello(f"hello name={name}")
    from arena.submission.manifest import NAME_RE
    assert not NAME_RE.match(name)


def test_every_legal_move_text_parses_back_as_a_reply():
    for g in random_games(6):
        for m in g.legal_moves():
            assert P.parse_move_reply(f"move 8 {m}") == P.MoveReply(8, m)


def test_constants():
    assert P.PROTOCOL_VERSION == 1
    assert P.MAX_BOT_LINE_BYTES == 8192
    assert set(P.FAULT_KINDS) == {"timeout", "illegal", "malformed", "overlong", "stale", "exited"}


def test_every_example_line_in_protocol_md_parses():
    """The example conversations of protocol.md appendix D are real lines of this codec."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "protocol.md").read_text(encoding="utf-8")
    arena = [ln[2:] for ln in text.splitlines() if ln.startswith("> ")]
    bot = [ln[2:] for ln in text.splitlines() if ln.startswith("< ")]
    assert len(arena) > 30 and len(bot) > 5
    for line in arena:
        P.parse_message(line)
    for line in bot:
        if line.startswith("hello"):
            P.parse_bot_hello(line)
        else:
            P.parse_move_reply(line)
