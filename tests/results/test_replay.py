"""Replays: the referee sees everything; a seat sees its own hand and public events only."""

from __future__ import annotations

from arena.game import Game, Rules, game_points, pretty_card
from arena.play.records import GameRecord
from arena.results.replay import replay_lines
from arena.schedule.tables import round_robin
from arena.play.selfplay import play_random_game
from arena.results.store import ResultStore

RULES = Rules()


def stored_games(tmp_path, count=4):
    store = ResultStore(tmp_path / "r.db")
    specs = round_robin(["ann", "bob", "cid"], 3, 1, 9)[0].games[:count]
    for spec in specs:
        g = play_random_game(RULES, spec.seed, spec.dealer)
        store.add_game(spec, GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, RULES), (),
                                        ((0.001,),) * 3, len(g.moves)))
    rows = list(store.rows())
    store.close()
    return rows


def tokens(line: str) -> set[str]:
    return set(line.replace(":", " ").split())


def test_referee_view_shows_all_starting_hands_and_outcome(tmp_path):
    for row in stored_games(tmp_path):
        lines = replay_lines(row)
        start = Game.new(row.transcript.rules, row.transcript.seed, row.transcript.dealer)
        assert "ann" in lines[1] and "bob" in lines[1] and str(row.seed) in lines[2]
        for seat in range(3):
            hand_line = next(l for l in lines if l.strip().startswith(f"seat {seat} ("))
            assert {pretty_card(c) for c in start.hands[seat]} <= tokens(hand_line)
        assert lines[-2].startswith("result: ") and row.bots[row.skitgubbe] in lines[-2]
        assert lines[-1].startswith("points: ")


def test_seat_view_never_shows_other_hands(tmp_path):
    for row in stored_games(tmp_path):
        t = row.transcript
        for seat in range(3):
            lines = replay_lines(row, seat)
            # the cards this seat ever held, replaying with the engine
            game = Game.new(t.rules, t.seed, t.dealer)
            own = set(game.hands[seat])
            for move in t.moves:
                game.apply(move)
                own |= set(game.hands[seat])
            start = Game.new(t.rules, t.seed, t.dealer)
            others = {pretty_card(c) for s in range(3) if s != seat for c in start.hands[s]}
            hidden = {pretty_card(c) for c in start.stock} | {pretty_card(c) for c in start.set_aside}
            own_text = {pretty_card(c) for c in own}
            first_event = next(i for i, l in enumerate(lines) if l.startswith("your hand")) + 1
            for line in lines[:first_event]:
                assert not (tokens(line) & (others | hidden) - own_text), line
            for line in lines:
                if "your hand" in line:
                    assert tokens(line.split(":", 1)[1]) - {"(none)"} <= own_text, line
                assert "drew" not in line and "stock (" not in line and "trump card is" not in line
            # a card held by another seat at the start first appears in a public event (a play, a take...)
            for card in others - own_text:
                first = next((l for l in lines if card in tokens(l)), None)
                if first is not None:
                    assert not first.startswith(("your hand", "  your hand", "seats", "game ")), first


def test_forfeited_game_replays(tmp_path):
    spec = round_robin(["ann", "bob", "cid"], 3, 1, 9)[0].games[0]
    g = Game.new(RULES, spec.seed, spec.dealer)
    for _ in range(6):
        g.apply(g.legal_moves()[0])
    g.forfeit(1, "timeout")
    store = ResultStore(tmp_path / "r.db")
    store.add_game(spec, GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, RULES), (),
                                    ((),) * 3, len(g.moves)))
    row = store.get_game(spec.key)
    store.close()
    for seat in (None, 0, 1):
        lines = replay_lines(row, seat)
        assert any("forfeits: timeout" in l for l in lines)
        assert "(forfeit)" in lines[-2]
