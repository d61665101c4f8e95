"""OpenAIChatClient against the loopback server, through the real openai package."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from paicli.cancel import Cancelled, CancelToken
from paicli.llm.client import ClientOptions, OpenAIChatClient
from paicli.llm.messages import Message, ToolCall, Usage
from paicli.llm.protocol import LLMError, StreamDelta
from paicli.testing.openai_server import FakeOpenAIServer, Reply

TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


def make_client(server: FakeOpenAIServer, **kwargs: object) -> OpenAIChatClient:
    kwargs.setdefault("backoff_base", 0.001)
    return OpenAIChatClient(server.base_url, "sk-test", "fake-model", **kwargs)  # type: ignore[arg-type]


def test_streams_text_and_reports_each_delta(server: FakeOpenAIServer) -> None:
    server.push(Reply.text("第一段，第二段，第三段。", chunks=3))
    deltas: list[StreamDelta] = []
    response = make_client(server).chat([Message.system("s"), Message.user("hi")], on_delta=deltas.append)
    assert response.message.content == "第一段，第二段，第三段。"
    assert response.finish_reason == "stop"
    assert [d.kind for d in deltas] == ["text"] * 3
    assert "".join(d.text for d in deltas) == response.message.content
    request = server.requests[0]
    assert request["stream"] is True and request["stream_options"] == {"include_usage": True}
    assert request["messages"] == [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]
    assert "tools" not in request
    server.assert_no_violations()


def test_two_parallel_tool_calls_with_split_arguments(server: FakeOpenAIServer) -> None:
    args_a = json.dumps({"path": "src/main.py", "offset": 10})
    args_b = json.dumps({"pattern": "TODO", "glob": "**/*.py"})
    server.push(Reply.tool_calls(("read_file", args_a), ("grep", args_b), arg_chunk=2, interleave=True))
    deltas: list[StreamDelta] = []
    response = make_client(server).chat([Message.user("go")], TOOLS, on_delta=deltas.append)
    calls = response.message.tool_calls
    assert [(c.name, c.arguments) for c in calls] == [("read_file", args_a), ("grep", args_b)]
    assert len({c.id for c in calls}) == 2 and all(c.id for c in calls)
    assert response.finish_reason == "tool_calls"
    assert [d for d in deltas if d.kind == "tool_call"] == [
        StreamDelta("tool_call", "read_file"),
        StreamDelta("tool_call", "grep"),
    ]
    assert server.requests[0]["tools"] == TOOLS


def test_usage_reads_openai_and_deepseek_cache_fields(server: FakeOpenAIServer) -> None:
    server.push(
        Reply.text(
            "a",
            usage={
                "prompt_tokens": 900,
                "completion_tokens": 7,
                "prompt_tokens_details": {"cached_tokens": 640},
            },
        ),
        Reply.text(
            "b",
            usage={
                "prompt_tokens": 800,
                "completion_tokens": 5,
                "prompt_cache_hit_tokens": 512,
                "prompt_cache_miss_tokens": 288,
            },
        ),
    )
    client = make_client(server)
    first = client.chat([Message.user("x")]).usage
    second = client.chat([Message.user("y")]).usage
    assert first == Usage(900, 7, 640)
    assert second == Usage(800, 5, 512)


def test_computed_usage_counts_the_prompt_and_emulates_prefix_cache() -> None:
    long_system = "你是一个认真负责的编程助手。" * 60
    with FakeOpenAIServer(cache_emulation=True, deepseek_usage=True) as srv:
        srv.push("one", "two")
        client = make_client(srv)
        first = client.chat([Message.system(long_system), Message.user("第一个问题")])
        second = client.chat([Message.system(long_system), Message.user("另一个完全不同的问题")])
    assert first.usage is not None and second.usage is not None
    assert first.usage.prompt_tokens > 64 and first.usage.cached_tokens == 0
    assert second.usage.cached_tokens > 0 and second.usage.cached_tokens % 64 == 0
    assert second.usage.cached_tokens <= first.usage.prompt_tokens


def test_reasoning_is_kept_and_echoed_only_when_configured(server: FakeOpenAIServer) -> None:
    server.push(Reply.tool_calls(("read_file", "{}"), reasoning="先读文件再回答"), "done", "done again")
    deltas: list[StreamDelta] = []
    client = make_client(server, include_reasoning_in_wire=True)
    first = client.chat([Message.user("q")], TOOLS, on_delta=deltas.append)
    assert first.message.reasoning_content == "先读文件再回答"
    assert "".join(d.text for d in deltas if d.kind == "reasoning") == "先读文件再回答"
    history = [Message.user("q"), first.message, Message.tool(first.message.tool_calls[0].id, "内容")]
    client.chat(history, TOOLS)
    assert server.requests[1]["messages"][1]["reasoning_content"] == "先读文件再回答"
    make_client(server).chat(history, TOOLS)
    assert "reasoning_content" not in server.requests[2]["messages"][1]
    server.assert_no_violations()


def test_two_server_errors_then_success_is_retried(server: FakeOpenAIServer) -> None:
    server.push(Reply.error(500, "boom"), Reply.error(503, "busy"), "recovered")
    response = make_client(server).chat([Message.user("x")])
    assert response.message.content == "recovered"
    assert len(server.requests) == 3


def test_server_errors_give_up_after_bounded_attempts(server: FakeOpenAIServer) -> None:
    server.push(*[Reply.error(502, "bad gateway")] * 5)
    with pytest.raises(LLMError) as info:
        make_client(server, max_retries=2).chat([Message.user("x")])
    assert len(server.requests) == 3
    assert info.value.status == 502
    assert "502" in str(info.value) and "3" in str(info.value) and "\n" not in str(info.value)


def test_rate_limit_honours_retry_after(server: FakeOpenAIServer) -> None:
    server.push(Reply.error(429, "slow down", retry_after=0.01), "ok")
    assert make_client(server).chat([Message.user("x")]).message.content == "ok"
    assert len(server.requests) == 2


def test_unauthorised_is_not_retried_and_says_so() -> None:
    with FakeOpenAIServer(api_key="sk-right") as srv:
        srv.push("never served")
        with pytest.raises(LLMError) as info:
            OpenAIChatClient(srv.base_url, "sk-wrong", "fake-model").chat([Message.user("x")])
        assert len(srv.requests) == 1
        assert srv.request_headers[0]["authorization"] == "Bearer sk-wrong"
    assert info.value.status == 401 and not info.value.retryable
    assert "401" in str(info.value) and "API Key" in str(info.value)
    assert "sk-wrong" not in str(info.value)
    assert str(info.value).endswith("。请运行 paicli --setup 重新设置 API Key")  # no origin known


def test_a_refused_key_names_where_it_was_read() -> None:
    """Issue 44 item 9: the 401 names the variable and its file and suggests `paicli --setup`."""
    with FakeOpenAIServer(api_key="sk-right") as srv:
        options = ClientOptions(srv.base_url, "sk-wrong", key_origin="DEEPSEEK_API_KEY（/p/.env）")
        with pytest.raises(LLMError) as info:
            OpenAIChatClient.from_options(options, "fake-model").chat([Message.user("x")])
    assert str(info.value).endswith("。请检查 DEEPSEEK_API_KEY（/p/.env），或运行 paicli --setup 重新设置")


def test_protocol_invalid_request_gets_400_and_is_recorded(server: FakeOpenAIServer) -> None:
    server.push("unused")
    orphan = [
        Message.user("x"),
        Message.assistant(None, (ToolCall("c1", "read_file", "{}"),)),
        Message.user("y"),
    ]
    with pytest.raises(LLMError) as info:
        make_client(server).chat(orphan, TOOLS)
    assert info.value.status == 400
    assert len(server.requests) == 1 and len(server.violations) == 1
    assert "c1" in server.violations[0][0]


def test_malformed_argument_json_is_echoed_without_rejection(server: FakeOpenAIServer) -> None:
    server.push("fine")
    history = [
        Message.user("x"),
        Message.assistant(None, (ToolCall("c1", "read_file", '{"path": "a'),)),
        Message.tool("c1", "参数不是合法 JSON"),
    ]
    assert make_client(server).chat(history, TOOLS).message.content == "fine"
    server.assert_no_violations()


def test_connection_refused_is_a_clear_retryable_error() -> None:
    with FakeOpenAIServer() as srv:
        url = srv.base_url
    with pytest.raises(LLMError) as info:
        OpenAIChatClient(url, None, "m", max_retries=1, backoff_base=0.001).chat([Message.user("x")])
    assert url in str(info.value) and "2" in str(info.value)
    assert info.value.status is None and info.value.retryable


def test_cancel_mid_stream_stops_a_hanging_response(server: FakeOpenAIServer) -> None:
    server.push(Reply.hang("部分输出"))
    cancel = CancelToken()
    seen: list[str] = []
    outcome: list[BaseException] = []
    returned = threading.Event()
    streamed = threading.Event()

    def on_delta(delta: StreamDelta) -> None:
        seen.append(delta.text)
        if "".join(seen) == "部分输出":
            streamed.set()

    def run() -> None:
        try:
            make_client(server).chat([Message.user("x")], on_delta=on_delta, cancel=cancel)
        except BaseException as exc:
            outcome.append(exc)
        returned.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert server.wait_for_hang() and streamed.wait(10)
    assert not returned.is_set()
    cancel.cancel()
    assert returned.wait(30), "chat() did not return after cancel"
    assert len(outcome) == 1 and isinstance(outcome[0], Cancelled)
    assert "".join(seen) == "部分输出"
    assert len(server.requests) == 1


def test_cancel_before_headers_returns_and_already_cancelled_sends_nothing(server: FakeOpenAIServer) -> None:
    server.push(Reply.hang(before_headers=True))
    cancel = CancelToken()
    client = make_client(server)
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            client.chat([Message.user("x")], cancel=cancel)
        except BaseException as exc:
            errors.append(exc)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert server.wait_for_hang()
    cancel.cancel()
    assert done.wait(30) and isinstance(errors[0], Cancelled)
    with pytest.raises(Cancelled):
        client.chat([Message.user("again")], cancel=cancel)
    assert len(server.requests) == 1


def test_with_model_shares_the_endpoint(server: FakeOpenAIServer) -> None:
    server.push("a", "b")
    client = make_client(server)
    light = client.with_model("light-model")
    assert light.model == "light-model" and client.model == "fake-model"
    light.chat([Message.user("x")])
    client.chat([Message.user("y")])
    assert [r["model"] for r in server.requests] == ["light-model", "fake-model"]


def test_repr_never_shows_the_key(server: FakeOpenAIServer) -> None:
    client = OpenAIChatClient(server.base_url, "sk-secret-value", "m")
    assert "sk-secret-value" not in repr(client) and "sk-secret-value" not in repr(client.options)


def test_server_refusing_stream_options_still_streams_without_usage() -> None:
    with FakeOpenAIServer(reject_stream_options=True) as srv:
        srv.push("first", "second")
        client = make_client(srv)
        assert client.chat([Message.user("x")]).message.content == "first"
        assert client.with_model("other").chat([Message.user("y")]).message.content == "second"
        requests = srv.requests
    assert ["stream_options" in r for r in requests] == [True, False, False]
    assert all(r["stream"] for r in requests)


def test_prewarm_then_chat(server: FakeOpenAIServer) -> None:
    server.push("warm")
    client = make_client(server)
    client.prewarm()
    assert client.chat([Message.user("x")]).message.content == "warm"


def test_read_timeout_is_a_clear_retryable_error(server: FakeOpenAIServer) -> None:
    server.push(Reply.hang(before_headers=True))
    client = OpenAIChatClient(server.base_url, None, "fake-model", read_timeout=0.2, max_retries=0)
    with pytest.raises(LLMError) as info:
        client.chat([Message.user("x")])
    assert info.value.retryable and info.value.status is None
    assert "超时" in str(info.value) and server.base_url in str(info.value)


def test_cancel_mid_stream_also_ends_the_reading_thread(server: FakeOpenAIServer) -> None:
    server.push(Reply.hang("x"))
    cancel = CancelToken()
    before = set(threading.enumerate())
    started = threading.Event()
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            make_client(server).chat([Message.user("q")], on_delta=lambda _d: started.set(), cancel=cancel)
        except BaseException as exc:
            outcome.append(exc)

    caller = threading.Thread(target=run, daemon=True)
    caller.start()
    assert server.wait_for_hang() and started.wait(10)
    workers = [t for t in threading.enumerate() if t not in before and t.name == "paicli-llm-stream"]
    assert len(workers) == 1
    cancel.cancel()
    caller.join(10)
    workers[0].join(10)
    assert not caller.is_alive() and not workers[0].is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], Cancelled)


def test_a_key_echoed_by_the_provider_is_redacted(server: FakeOpenAIServer) -> None:
    server.push(Reply.error(403, "key sk-echoed-secret-42 may not use this model"))
    with pytest.raises(LLMError) as info:
        OpenAIChatClient(server.base_url, "sk-echoed-secret-42", "fake-model").chat([Message.user("x")])
    assert info.value.status == 403 and not info.value.retryable
    assert "sk-echoed-secret-42" not in str(info.value) and "403" in str(info.value)
    assert len(server.requests) == 1


def test_whole_call_timeout_bounds_a_stalled_attempt(server: FakeOpenAIServer) -> None:
    server.push(Reply.hang(before_headers=True))
    client = OpenAIChatClient.from_options(
        ClientOptions(server.base_url, call_timeout=0.2, max_retries=0), "fake-model"
    )
    with pytest.raises(LLMError) as info:
        client.chat([Message.user("x")])
    assert info.value.retryable and "0.2" in str(info.value)


def test_tool_choice_goes_out_only_with_tools(server: FakeOpenAIServer) -> None:
    server.push(Reply.text("摘要"), Reply.text("无工具"))
    client = make_client(server)
    client.chat([Message.user("整理一下")], TOOLS, tool_choice="none")
    client.chat([Message.user("整理一下")], None, tool_choice="none")
    with_tools, without = server.requests
    assert with_tools["tools"] == TOOLS and with_tools["tool_choice"] == "none"
    assert "tools" not in without and "tool_choice" not in without  # a tool_choice alone is invalid
    server.assert_no_violations()
