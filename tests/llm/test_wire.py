"""The raw-body request path (llm/wire.py) against the SDK's typed path: the same request on the wire."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import openai
import pytest

from paicli.llm.client import OpenAIChatClient
from paicli.llm.connection import ClientOptions, Connection
from paicli.llm.messages import Message, ToolCall
from paicli.llm.wire import ChatRequest, open_stream
from paicli.testing.openai_server import FakeOpenAIServer

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "读取文件 (UTF-8)",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
    {"type": "function", "function": {"name": "list_dir", "parameters": {"type": "object"}}},
]


def _round(n: int, reasoning: str | None = None, text: str | None = None) -> list[Message]:
    calls = (
        ToolCall(f"call_{n}_a", "read_file", json.dumps({"path": f"src/模块_{n}.py"}, ensure_ascii=False)),
        ToolCall(f"call_{n}_b", "list_dir", '{"path": "."'),  # cut-off JSON is echoed as the model sent it
    )
    return [
        Message.assistant(text, calls, reasoning),
        Message.tool(calls[0].id, f"第 {n} 个文件：\n\tdef f():\n\t\treturn '\"引号\"' \\ 😀"),
        Message.tool(calls[1].id, ""),
    ]


def _corpus() -> dict[str, list[Message]]:
    system = Message.system("你是 paicli。\n规则：\u2028行分隔符、\x00控制字符、</script> 都原样发送。")
    plain = [system, Message.user("你好"), Message.assistant("你好！有什么可以帮忙？"), Message.user("再见")]
    tools = [system, Message.user("读一下代码"), *_round(1), *_round(2, text="先看看目录")]
    reasoning = [
        system,
        Message.user("想一想"),
        *_round(3, reasoning="先读文件，再回答。"),
        Message.assistant("好"),
    ]
    odd = [
        system,
        Message.user(""),
        Message.assistant(None),
        Message.user("半个表情 \ud83d 和一个完整的 😀"),
        Message("assistant", "", (), None, "只有推理"),
    ]
    long = [system]
    for n in range(40):
        long += [Message.user(f"第 {n} 轮"), *_round(n, reasoning=f"推理 {n}"), Message.assistant(f"答 {n}")]
    return {"plain": plain, "tools": tools, "reasoning": reasoning, "odd": odd, "long": long}


# What `chat.completions.create` was given before the raw-body path (the reference of this comparison).
def _typed_params(
    model: str,
    history: Sequence[Message],
    tools: Sequence[Mapping[str, Any]] | None,
    tool_choice: str | None,
    with_reasoning: bool,
    usage: bool,
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "model": model,
        "messages": [m.to_wire(include_reasoning=with_reasoning and bool(m.tool_calls)) for m in history],
        "stream": True,
    }
    if usage:
        params["stream_options"] = {"include_usage": True}
    if tools:
        params["tools"] = [dict(tool) for tool in tools]
        if tool_choice:
            params["tool_choice"] = tool_choice
    return params


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(default_reply="好") as srv:
        yield srv


def _drain(stream: Any) -> None:
    for _ in stream:
        pass


VARIANTS = [
    ("no tools", None, None, False, True),
    ("tools", TOOLS, None, False, True),
    ("tools, choice none", TOOLS, "none", False, True),
    ("reasoning echoed", TOOLS, "auto", True, True),
    ("no usage option", TOOLS, None, True, False),
]


@pytest.mark.parametrize("history_name", list(_corpus()))
@pytest.mark.parametrize(("label", "tools", "choice", "reasoning", "usage"), VARIANTS)
def test_raw_body_requests_equal_the_sdk_path(
    history_name: str,
    label: str,
    tools: list[dict[str, Any]] | None,
    choice: str | None,
    reasoning: bool,
    usage: bool,
) -> None:
    history = _corpus()[history_name]
    with FakeOpenAIServer(default_reply="好", reject_stream_options=not usage) as server:
        options = ClientOptions(server.base_url, "sk-test", include_reasoning_in_wire=reasoning)
        connection = Connection(options)
        request = OpenAIChatClient.from_options(options, "fake-model").request(history, tools, choice)
        if not usage:
            request.head.pop("stream_options")
        _drain(open_stream(connection.sdk(), request))
        typed = _typed_params("fake-model", history, tools, choice, reasoning, usage)
        _drain(connection.sdk().chat.completions.create(**typed))
    raw_body, sdk_body = server.requests
    assert raw_body == sdk_body, label
    assert json.loads(request.body()) == sdk_body
    raw_headers, sdk_headers = server.request_headers
    for name in ("authorization", "content-type", "accept"):
        assert raw_headers.get(name) == sdk_headers.get(name), name
    assert raw_headers["authorization"] == "Bearer sk-test"
    server.assert_no_violations()


class _SdkWithoutRawBody(openai.OpenAI):
    """An SDK whose `post` takes no raw `content` (older releases): the request goes through `create`."""

    def post(  # type: ignore[override]
        self,
        path: str,
        *,
        cast_to: Any,
        body: Any = None,
        options: Any = None,
        files: Any = None,
        stream: bool = False,
        stream_cls: Any = None,
    ) -> Any:
        return super().post(
            path,
            cast_to=cast_to,
            body=body,
            options=options or {},
            files=files,
            stream=stream,
            stream_cls=stream_cls,
        )


def test_an_sdk_without_the_raw_body_path_sends_the_same_request(server: FakeOpenAIServer) -> None:
    history = _corpus()["tools"]
    request = OpenAIChatClient(server.base_url, "k", "fake-model").request(history, TOOLS, "auto")
    _drain(open_stream(_SdkWithoutRawBody(api_key="k", base_url=server.base_url, max_retries=0), request))
    _drain(open_stream(openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0), request))
    older, current = server.requests
    assert older == current == json.loads(request.body())
    server.assert_no_violations()


def test_the_raw_stream_yields_plain_chunks_the_client_assembles(server: FakeOpenAIServer) -> None:
    request = OpenAIChatClient(server.base_url, None, "fake-model").request([Message.user("嗨")])
    sdk = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
    chunks = list(open_stream(sdk, request))
    assert chunks and all(isinstance(chunk, dict) for chunk in chunks)
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == "好"
    assert chunks[-1]["usage"]["completion_tokens"] > 0


def test_a_status_error_on_the_raw_path_is_the_sdks_own(server: FakeOpenAIServer) -> None:
    from paicli.testing.openai_server import Reply

    server.push(Reply.error(429, "slow down", retry_after=2))
    request = OpenAIChatClient(server.base_url, None, "fake-model").request([Message.user("x")])
    sdk = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
    with pytest.raises(openai.RateLimitError) as caught:
        open_stream(sdk, request)
    assert caught.value.status_code == 429 and caught.value.response.headers["retry-after"] == "2"


def test_each_message_is_serialised_once_and_stays_a_plain_value() -> None:
    call = ToolCall("c1", "read_file", '{"path": "a"}')
    message = Message.assistant("看看", (call,), "推理")
    first = message.wire_json()
    assert message.wire_json() is first  # the cached bytes, not a new serialisation
    assert json.loads(first) == message.to_wire()
    assert json.loads(message.wire_json(True)) == message.to_wire(include_reasoning=True)
    twin = Message.assistant("看看", (call,), "推理")
    assert twin == message and hash(twin) == hash(message) and repr(twin) == repr(message)
    changed = replace(message, content="改过")
    assert json.loads(changed.wire_json())["content"] == "改过"


def test_the_body_splices_fragments_into_one_json_object() -> None:
    history = [Message.system("s"), Message.user("u")]
    request = ChatRequest.build({"model": "m", "stream": True}, history, False)
    assert json.loads(request.body()) == {
        "model": "m",
        "stream": True,
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
    }
    assert json.loads(ChatRequest.build({"model": "m"}, [], False).body()) == {"model": "m", "messages": []}
