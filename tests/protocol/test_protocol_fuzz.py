"""Fuzzing the bot -> arena parsers: whatever a bot sends, only ProtocolError may escape."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena import protocol as P

# Text near the grammar finds more corner cases than uniform noise.
_word = st.sampled_from(["move", "hello", "name=", "name=x", "version=1", "protocol=1", "protocol=", "draw",
                         "chance", "pickup", "Kd", "10h", "4h,5h,6h", "Kd,Kd", ",", "=", "-", "0", "17",
                         "-3", "٣", " ", "\t", "\r", "\n", "\x00", "é", "\ud800"])
_near = st.lists(st.one_of(_word, st.text(max_size=6)), max_size=8).map(" ".join)
_any_text = st.one_of(st.text(max_size=200), _near)


@settings(max_examples=600, deadline=None)
@given(_any_text)
def test_parse_move_reply_only_raises_protocol_error(line):
    try:
        reply = P.parse_move_reply(line)
    except P.ProtocolError as e:
        assert str(e)
    else:
        assert isinstance(reply, P.MoveReply) and reply.request_id >= 0


@settings(max_examples=600, deadline=None)
@given(_any_text)
def test_parse_bot_hello_only_raises_protocol_error(line):
    try:
        hello = P.parse_bot_hello(line)
    except P.ProtocolError as e:
        assert str(e)
    else:
        assert 1 <= len(hello.name) <= P.NAME_MAX


@settings(max_examples=300, deadline=None)
@given(_any_text)
def test_parse_message_only_raises_protocol_error(line):
    try:
        P.parse_message(line)
    except P.ProtocolError as e:
        assert str(e)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=10**12), st.sampled_from(P.FAULT_KINDS), st.text(max_size=80))
def test_fault_round_trips_any_text(request_id, kind, text):
    line = P.format_fault(request_id, kind, text)
    assert "\n" not in line and "\r" not in line
    assert P.parse_message(line) == P.Fault(request_id, kind, text or "no detail")  # never absent (§9)
