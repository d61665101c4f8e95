"""StreamAssembler: pure folding of chunk dicts."""

from __future__ import annotations

from typing import Any

from paicli.llm.messages import Usage
from paicli.llm.protocol import StreamDelta
from paicli.llm.stream import StreamAssembler, assemble, usage_from_dict


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {"id": "x", "model": "m-1", "choices": choices, **top}


def call_delta(
    index: int, *, id: str | None = None, name: str | None = None, args: str | None = None
) -> dict[str, Any]:
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if args is not None:
        function["arguments"] = args
    raw: dict[str, Any] = {"index": index, "function": function}
    if id is not None:
        raw["id"] = id
        raw["type"] = "function"
    return {"tool_calls": [raw]}


def test_text_deltas_join_and_are_reported() -> None:
    assembler = StreamAssembler()
    reported: list[StreamDelta] = []
    for part in ["你好", "，", "世界"]:
        reported += assembler.feed(chunk({"content": part}))
    reported += assembler.feed(chunk({}, finish="stop"))
    result = assembler.result()
    assert result.message.content == "你好，世界"
    assert result.message.role == "assistant" and result.message.tool_calls == ()
    assert result.finish_reason == "stop" and result.model == "m-1"
    assert reported == [StreamDelta("text", "你好"), StreamDelta("text", "，"), StreamDelta("text", "世界")]


def test_interleaved_tool_calls_with_arguments_split_over_many_chunks() -> None:
    args0, args1 = '{"path": "a/b.py", "limit": 20}', '{"command": "ls -la"}'
    chunks = [
        chunk({"role": "assistant", "content": None}),
        chunk(call_delta(0, id="call_a", name="read_file", args="")),
        chunk(call_delta(1, id="call_b", name="execute_command")),
    ]
    pieces0 = [args0[i : i + 3] for i in range(0, len(args0), 3)]
    pieces1 = [args1[i : i + 2] for i in range(0, len(args1), 2)]
    for i in range(max(len(pieces0), len(pieces1))):
        if i < len(pieces1):
            chunks.append(chunk(call_delta(1, args=pieces1[i])))
        if i < len(pieces0):
            chunks.append(chunk(call_delta(0, args=pieces0[i])))
    chunks.append(chunk({}, finish="tool_calls"))
    assembler = StreamAssembler()
    announced = [d for c in chunks for d in assembler.feed(c) if d.kind == "tool_call"]
    result = assembler.result()
    assert [(c.id, c.name, c.arguments) for c in result.message.tool_calls] == [
        ("call_a", "read_file", args0),
        ("call_b", "execute_command", args1),
    ]
    assert result.message.content is None
    assert announced == [StreamDelta("tool_call", "read_file"), StreamDelta("tool_call", "execute_command")]
    assert result.finish_reason == "tool_calls"


def test_several_calls_in_one_chunk_use_their_index() -> None:
    both = {
        "tool_calls": [
            {"index": 1, "id": "c2", "function": {"name": "b", "arguments": "{}"}},
            {"index": 0, "id": "c1", "function": {"name": "a", "arguments": '{"x"'}},
        ]
    }
    result = assemble([chunk(both), chunk(call_delta(0, args=":1}"))])
    assert [(c.id, c.name, c.arguments) for c in result.message.tool_calls] == [
        ("c1", "a", '{"x":1}'),
        ("c2", "b", "{}"),
    ]


def test_missing_tool_call_ids_are_generated_and_distinct() -> None:
    result = assemble(
        [chunk(call_delta(0, name="a", args="{}")), chunk(call_delta(1, name="b", args="{}"))],
        id_prefix="call_",
    )
    assert [c.id for c in result.message.tool_calls] == ["call_0", "call_1"]
    first = assemble([chunk(call_delta(0, name="a", args="{}"))]).message.tool_calls[0].id
    second = assemble([chunk(call_delta(0, name="a", args="{}"))]).message.tool_calls[0].id
    assert first.startswith("call_") and first != second


def test_usage_in_the_last_chunk_with_openai_cache_field() -> None:
    result = assemble(
        [
            chunk({"content": "ok"}, finish="stop"),
            chunk(
                None,
                usage={
                    "prompt_tokens": 1200,
                    "completion_tokens": 30,
                    "total_tokens": 1230,
                    "prompt_tokens_details": {"cached_tokens": 1024},
                },
            ),
        ]
    )
    assert result.usage == Usage(1200, 30, 1024)
    assert result.message.content == "ok"


def test_deepseek_cache_hit_field() -> None:
    raw = {
        "prompt_tokens": 500,
        "completion_tokens": 9,
        "prompt_cache_hit_tokens": 384,
        "prompt_cache_miss_tokens": 116,
    }
    assert assemble([chunk({"content": "x"}), chunk(None, usage=raw)]).usage == Usage(500, 9, 384)
    assert usage_from_dict(
        {"prompt_tokens": 10, "completion_tokens": 2, "prompt_tokens_details": None}
    ) == Usage(10, 2, 0)


def test_no_usage_chunk_leaves_usage_unknown() -> None:
    assert assemble([chunk({"content": "x"}, finish="stop")]).usage is None


def test_reasoning_content_and_reasoning_field_are_kept() -> None:
    assembler = StreamAssembler()
    deltas = assembler.feed(chunk({"reasoning_content": "先想"}))
    deltas += assembler.feed(chunk({"reasoning": "一想"}))
    deltas += assembler.feed(chunk({"content": "答案"}))
    result = assembler.result()
    assert result.message.reasoning_content == "先想一想"
    assert result.message.content == "答案"
    assert [d.kind for d in deltas] == ["reasoning", "reasoning", "text"]


def test_has_output_only_after_visible_content() -> None:
    assembler = StreamAssembler()
    assembler.feed(chunk({"role": "assistant", "content": ""}))
    assert not assembler.has_output
    assembler.feed(chunk(call_delta(0, id="c", name="a")))
    assert assembler.has_output


def test_name_repeated_on_every_chunk_is_not_doubled() -> None:
    result = assemble(
        [
            chunk(call_delta(0, id="c", name="read_file", args="{")),
            chunk(call_delta(0, name="read_file", args="}")),
        ]
    )
    assert result.message.tool_calls[0].name == "read_file"
    assert result.message.tool_calls[0].arguments == "{}"


def test_non_streamed_completion_message_is_accepted() -> None:
    body = {
        "model": "m",
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "whole"}}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1},
    }
    assert assemble([body]).message.content == "whole"


def test_calls_without_index_are_told_apart_by_id() -> None:
    result = assemble(
        [
            chunk({"tool_calls": [{"id": "a", "function": {"name": "read_file", "arguments": '{"path":'}}]}),
            chunk({"tool_calls": [{"function": {"arguments": ' "x"}'}}]}),
            chunk(
                {
                    "tool_calls": [
                        {"id": "b", "function": {"name": "list_dir", "arguments": "{}"}},
                        {"id": "c", "function": {"name": "glob", "arguments": "{}"}},
                    ]
                }
            ),
        ]
    )
    assert [(c.id, c.name, c.arguments) for c in result.message.tool_calls] == [
        ("a", "read_file", '{"path": "x"}'),
        ("b", "list_dir", "{}"),
        ("c", "glob", "{}"),
    ]


def test_a_repeated_call_id_in_one_response_is_replaced() -> None:
    def call(index: int, name: str) -> dict[str, object]:
        return {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": "call_0",
                                "type": "function",
                                "function": {"name": name, "arguments": "{}"},
                            }
                        ]
                    },
                }
            ]
        }

    response = assemble([call(0, "read_file"), call(1, "list_dir")], id_prefix="gen_")
    ids = [c.id for c in response.message.tool_calls]
    assert ids[0] == "call_0" and ids[1] == "gen_1"
