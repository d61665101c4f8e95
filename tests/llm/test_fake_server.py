"""The loopback server itself: validation rules, scripting features, non-streamed replies."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest

from paicli.llm.client import OpenAIChatClient
from paicli.llm.messages import Message
from paicli.testing.openai_server import FakeOpenAIServer, Reply, validate_request


def call(id_: str, name: str = "read_file", args: str = "{}") -> dict[str, Any]:
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": args}}


def body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": list(messages), **extra}


USER = {"role": "user", "content": "q"}


def asst(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def tool(id_: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": id_, "content": "r"}


def test_valid_parallel_calls_answered_in_any_order() -> None:
    assert validate_request(body(USER, asst(call("a"), call("b")), tool("b"), tool("a"), USER)) == []


def test_malformed_arguments_are_not_a_violation() -> None:
    assert validate_request(body(USER, asst(call("a", args='{"path": ')), tool("a"))) == []


@pytest.mark.parametrize(
    ("messages", "fragment"),
    [
        ((USER, asst(call("a"), call("b")), tool("a"), USER), "before tool results"),
        ((USER, asst(call("a")), tool("a"), tool("a")), "no pending tool call"),
        ((USER, tool("zzz")), "no pending tool call"),
        ((USER, asst(call("a")), tool("a"), USER, asst(call("a")), tool("a")), "repeats tool call id"),
        ((USER, asst(call("a"))), "unanswered"),
        ((USER, {"role": "robot", "content": "x"}), "invalid role"),
        ((USER, {"role": "assistant", "content": None}), "neither content nor tool_calls"),
        (
            (USER, asst({"id": "a", "type": "function", "function": {"arguments": "{}"}}), tool("a")),
            "name missing",
        ),
        ((USER, {"role": "tool", "content": "x"}), "tool_call_id"),
        (({"role": "user", "content": None},), "no content"),
    ],
)
def test_structural_violations_are_reported(messages: tuple[dict[str, Any], ...], fragment: str) -> None:
    problems = validate_request(body(*messages))
    assert any(fragment in p for p in problems), problems


def test_request_level_shape_rules() -> None:
    assert validate_request([1, 2]) == ["request body is not a JSON object"]
    assert any("messages" in p for p in validate_request({"model": "m", "messages": []}))
    assert any("model" in p for p in validate_request({"messages": [USER]}))
    assert any("include_usage" in p for p in validate_request(body(USER, stream=True)))
    assert validate_request(body(USER, stream=True, stream_options={"include_usage": True})) == []
    assert any("tools[0]" in p for p in validate_request(body(USER, tools=[{"name": "x"}])))


def post(url: str, payload: Any, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    request = urllib.request.Request(
        url, data=data, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_non_streamed_reply_with_tool_calls_and_usage() -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(("read_file", '{"path": "x"}'), reasoning="想一下"))
        status, reply = post(f"{server.base_url}/chat/completions", body(USER))
    assert status == 200
    message = reply["choices"][0]["message"]
    assert message["tool_calls"][0]["function"] == {"name": "read_file", "arguments": '{"path": "x"}'}
    assert message["reasoning_content"] == "想一下" and reply["choices"][0]["finish_reason"] == "tool_calls"
    assert reply["usage"]["prompt_tokens"] > 0 and reply["usage"]["prompt_tokens_details"] == {
        "cached_tokens": 0
    }


def test_unparsable_body_is_a_400_violation() -> None:
    with FakeOpenAIServer() as server:
        status, reply = post(f"{server.base_url}/chat/completions", b"{oops")
        assert status == 400 and "not JSON" in reply["error"]["message"]
        assert len(server.violations) == 1 and len(server.requests) == 1


def test_models_listing_and_api_key_check() -> None:
    with FakeOpenAIServer(api_key="k", models=("a", "b")) as server:
        request = urllib.request.Request(f"{server.base_url}/models", headers={"Authorization": "Bearer k"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert [m["id"] for m in json.loads(response.read())["data"]] == ["a", "b"]
        status, reply = post(f"{server.base_url}/chat/completions", body(USER))
        assert status == 401 and reply["error"]["type"] == "authentication_error"


def test_responder_answers_side_calls_without_consuming_the_queue() -> None:
    def responder(request: dict[str, Any]) -> Reply | str | None:
        return '{"facts": []}' if "extract" in request["messages"][-1]["content"] else None

    with FakeOpenAIServer(responder=responder, default_reply="默认回答") as server:
        server.push("main answer")
        client = OpenAIChatClient(server.base_url, None, "fake-model")
        assert client.chat([Message.user("please extract")]).message.content == '{"facts": []}'
        assert client.chat([Message.user("task")]).message.content == "main answer"
        assert client.chat([Message.user("task 2")]).message.content == "默认回答"
        assert server.pending_replies == 0


def test_empty_queue_without_default_is_a_loud_500() -> None:
    with FakeOpenAIServer() as server:
        status, reply = post(f"{server.base_url}/chat/completions", body(USER))
    assert status == 500 and "no scripted reply" in reply["error"]["message"]


def test_released_hang_finishes_the_stream() -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.hang("半截"))
        client = OpenAIChatClient(server.base_url, None, "fake-model")
        result: list[str | None] = []
        thread = threading.Thread(target=lambda: result.append(client.chat([USER_MSG]).message.content))
        thread.start()
        assert server.wait_for_hang()
        server.release()
        thread.join(10)
    assert result == ["半截"]


USER_MSG = Message.user("q")


def test_release_only_frees_requests_parked_so_far() -> None:
    with FakeOpenAIServer() as server:
        client = OpenAIChatClient(server.base_url, None, "fake-model")
        for text in ("一", "二"):
            server.push(Reply.hang(text))
            result: list[str | None] = []
            thread = threading.Thread(
                target=lambda r=result: r.append(client.chat([USER_MSG]).message.content)
            )
            thread.start()
            assert server.wait_for_hang()
            assert thread.is_alive() and result == []
            server.release()
            thread.join(10)
            assert result == [text]


def test_delay_explicit_ids_and_finish_reason_pass_through() -> None:
    with FakeOpenAIServer() as server:
        server.push(
            Reply.tool_calls(("my-id", "read_file", '{"a": 1}'), content="先读一下", delay=0.01),
            Reply.text("被截断的", finish_reason="length"),
        )
        client = OpenAIChatClient(server.base_url, None, "fake-model")
        first = client.chat([USER_MSG])
        second = client.chat([USER_MSG])
    assert first.message.content == "先读一下"
    assert [(c.id, c.name, c.arguments) for c in first.message.tool_calls] == [
        ("my-id", "read_file", '{"a": 1}')
    ]
    assert (second.message.content, second.finish_reason) == ("被截断的", "length")
