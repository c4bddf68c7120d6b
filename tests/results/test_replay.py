"""Replays: the referee sees everything; a seat sees its own hand and public events only."""

from __future__ import annotations

from arena.game import Game, Rules, game_points, pretty_card
from arena.play.records import Fault, FaultKind, GameRecord
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


def test_faults_are_shown_at_their_move_numbered_as_the_moves_are(tmp_path):
    """"fault ... at move 117" could not be found: the moves had no numbers, the faults came
    after the result, and each move the arena made for a gone bot repeated its crash (an author's
    trial). Moves are numbered from 1; a fault stands just before the move made in its place."""
    spec = round_robin(["ann", "bob", "cid"], 3, 1, 9)[0].games[0]
    g = play_random_game(RULES, spec.seed, spec.dealer)
    faults = (Fault(1, FaultKind.ILLEGAL, "Kd: you do not hold it (R8)", 4),
              Fault(2, FaultKind.EXITED, "cid exited (exit code 3)", 6),
              Fault(2, FaultKind.DEAD, "cid exited (exit code 3)", 9), Fault(2, FaultKind.DEAD, "cid exited (exit code 3)", 12))
    store = ResultStore(tmp_path / "r.db")
    store.add_game(spec, GameRecord(1, spec.bots, g.outcome, g.transcript, game_points(g.outcome, RULES), faults,
                                    ((0.001,),) * 3, len(g.moves)))
    row = store.get_game(spec.key)
    store.close()
    lines = replay_lines(row)
    illegal = lines.index("     ! fault: seat 1 (bob) illegal: Kd: you do not hold it (R8) (the arena moves for it)")
    assert lines[illegal + 1].startswith("  5. "), lines[illegal:illegal + 2]
    exited = next(i for i, line in enumerate(lines) if "! fault: seat 2 (cid) exited" in line)
    assert lines[exited + 1].startswith("  7. "), lines[exited:exited + 2]
    assert lines.index("     (the arena moves for seat 2 (cid), gone)") + 1 == next(
        i for i, line in enumerate(lines) if line.startswith(" 10. "))
    assert sum("exit code 3" in line for line in lines) == 2  # at the move, and in the list at the end
    assert "fault: seat 1 (bob) illegal at move 5: Kd: you do not hold it (R8)" in lines
    assert lines[-1] == "the arena made 2 moves for seat 2 (cid) after it was gone (moves 10 to 13; not counted as faults)"
