"""Every line each bot is sent, and what it answered, equals the stored transcript made before the
referee was made faster (tests/play/wire_match.py): the bytes on the wire do not change."""

from __future__ import annotations

from tests.play.wire_match import MATCHES, play_all, stored


def test_the_wire_is_byte_for_byte_the_stored_transcript():
    now, before = play_all(), stored()
    assert len(now) == len(before) == sum(int(options.get("num_players", 3)) for options, _ in MATCHES)
    for got, want in zip(now, before):
        where = f"match {got['match']} seat {got['seat']}"
        assert len(got["sent"]) == len(want["sent"]), where
        for i, (line, expected) in enumerate(zip(got["sent"], want["sent"])):
            assert line == expected, f"{where}, line {i}"
        assert got["answered"] == want["answered"], where


def test_the_transcript_covers_faults_of_every_kind_and_the_options():
    lines = [line for entry in stored() for line in entry["sent"]]
    sent_faults = {line.split(" ")[2] for line in lines if line.startswith("fault ")}
    assert {"illegal", "malformed", "timeout", "stale", "overlong"} <= sent_faults
    assert any(line.startswith("match players=5 ") for line in lines)
    assert sum(1 for line in lines if line.startswith("request ")) > 1000
