"""The wire protocol: every malformed message is refused with one clear error."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chasetheace.web import protocol as P


def test_a_valid_create_reads_with_defaults() -> None:
    msg = P.parse_message(json.dumps({"type": "create", "name": "  Ann   Lee ", "v": 1}))
    assert msg == P.Create("Ann Lee")


@pytest.mark.parametrize(("text", "code", "words"), [
    ("{not json", "bad_json", "malformed JSON"),
    ("[1, 2]", "bad_message", "JSON object"),
    ('{"kind": "act"}', "bad_message", "'type'"),
    ('{"type": "teleport"}', "unknown_type", "unknown message type 'teleport'"),
    ('{"type": "act", "action": "keep", "v": 2}', "bad_version", "version 2"),
    ('{"type": "act", "action": "fold"}', "bad_message", "'action' must be one of keep, swap"),
    ('{"type": "act"}', "bad_message", "missing field 'action'"),
    ('{"type": "act", "action": "keep", "seat": 3}', "bad_message", "unknown field(s) 'seat'"),
    ('{"type": "act", "action": "keep", "act_id": ""}', "bad_message", "'act_id' must be a non-empty string"),
    ('{"type": "act", "action": "keep", "act_id": 7}', "bad_message", "'act_id'"),
    ('{"type": "act", "action": "keep", "act_id": "' + "x" * 65 + '"}', "bad_message", "at most 64"),
    ('{"type": "join", "table": "x", "name": ""}', "bad_message", "'name'"),
    ('{"type": "join", "table": "x", "name": "a\\u0000b"}', "bad_message", "printable"),
    ('{"type": "join", "table": "x", "name": "' + "n" * 25 + '"}', "bad_message", "1 to 24"),
    ('{"type": "resume", "table": "x", "token": 5}', "bad_message", "'token'"),
    ('{"type": "create", "name": "A", "seats": 1}', "bad_options", "'seats' must be an integer 2..12"),
    ('{"type": "create", "name": "A", "seats": true}', "bad_options", "'seats'"),
    ('{"type": "create", "name": "A", "timer": 1}', "bad_options", "'timer' must be an integer 5..600"),
    ('{"type": "create", "name": "A", "on_timeout": "pass"}', "bad_options", "on_timeout"),
    ('{"type": "create", "name": "A", "options": [1]}', "bad_options", "'options' must be an object"),
    ('{"type": "create", "name": "A", "bots": 7}', "bad_options", "'bots'"),
])
def test_bad_messages_name_what_is_wrong(text: str, code: str, words: str) -> None:
    with pytest.raises(P.ProtocolError) as info:
        P.parse_message(text)
    assert info.value.code == code
    assert words in str(info.value)


def test_an_act_may_carry_an_id() -> None:
    msg = P.parse_message('{"type": "act", "action": "swap", "act_id": "a-1"}')
    assert msg == P.Act("swap", None, "a-1") and isinstance(msg, P.Act) and msg.act_id == "a-1"
    assert P.parse_message('{"type": "act", "action": "swap"}') == P.Act("swap")


def test_oversized_and_binary_messages_are_refused() -> None:
    big = json.dumps({"type": "ping", "pad": "x" * P.MAX_MESSAGE_BYTES})
    with pytest.raises(P.ProtocolError, match="message too large") as info:
        P.parse_message(big)
    assert info.value.code == "too_large"
    with pytest.raises(P.ProtocolError, match="binary"):
        P.parse_message(b'{"type": "ping"}')


def test_deeply_nested_json_is_a_clean_error() -> None:
    with pytest.raises(P.ProtocolError):
        P.parse_message("[" * 2000 + "]" * 2000)


@given(st.text(max_size=300))
def test_any_text_is_either_a_message_or_a_protocol_error(text: str) -> None:
    try:
        msg = P.parse_message(text)
    except P.ProtocolError as exc:
        assert str(exc) and exc.code
    else:
        assert isinstance(msg, (P.Create, P.Join, P.Resume, P.Watch, P.Start, P.Act, P.Rematch, P.Ping))


@given(st.dictionaries(st.sampled_from(["type", "action", "table", "name", "token", "v", "x"]),
                       st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10),
                                 st.lists(st.integers(), max_size=2)), max_size=5))
def test_any_object_is_either_a_message_or_a_protocol_error(obj: dict[str, object]) -> None:
    try:
        P.parse_message(json.dumps(obj))
    except P.ProtocolError as exc:
        assert str(exc)
