"""Issue 17 item 3: text that cannot be encoded is made encodable once, where it enters the program."""

from __future__ import annotations

import json

import pytest

from paicli.llm.messages import Message, ToolCall
from paicli.llm.stream import assemble
from paicli.textsafe import encodable


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("bad\udcff.txt", "bad\\xff.txt"),  # a non-UTF-8 file name byte (surrogate escape)
        ("\udcc3(", "\\xc3("),
        ("half \ud83d emoji", "half \ufffd emoji"),  # a lone high surrogate from a model
        ("tail \ude00", "tail \ufffd"),
        ("joined \ud83d\ude00!", "joined 😀!"),  # a pair split across chunks comes back together
        ("skull \ud83d\udc80", "skull 💀"),  # a low half in the escape range is still a pair
        ("plain 中文 ✓", "plain 中文 ✓"),
    ],
)
def test_encodable(raw: str, shown: str) -> None:
    assert encodable(raw) == shown
    shown.encode("utf-8")


def test_messages_and_tool_calls_are_encodable_from_construction() -> None:
    call = ToolCall("c\udcff", "read_file", '{"path": "x\ud83d"}')
    message = Message.assistant("a\ud83d", (call,), reasoning_content="r\ude00")
    json.dumps(message.to_wire(include_reasoning=True), ensure_ascii=False).encode("utf-8")
    json.dumps(message.to_json(), ensure_ascii=False).encode("utf-8")
    assert message.tool_calls[0].arguments == '{"path": "x\ufffd"}'
    assert Message.tool("t", "name \udcfe").content == "name \\xfe"


def test_a_streamed_answer_with_half_an_emoji_per_chunk_is_rejoined() -> None:
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": "hi \ud83d"}}]},
        {"choices": [{"index": 0, "delta": {"content": "\ude00 there \ud83d"}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    response = assemble(chunks)
    assert response.message.content == "hi 😀 there \ufffd"


def test_escaped_lone_surrogates_in_arguments_do_not_crash_the_runaway_guard() -> None:
    from paicli.agent.runaway import action_key

    for raw in ('{"path": "x\\ud83d"}', '{"a": ["\\udcff", {"k\\ude00": 1}]}', '{"p": "\\uD83D"}'):
        call = ToolCall("c", "read_file", raw)
        json.loads(call.arguments)
        assert action_key(call.name, call.arguments)
    pair = ToolCall("c", "read_file", '{"p": "\\ud83d\\ude00"}')
    assert json.loads(pair.arguments) == {"p": "😀"}
