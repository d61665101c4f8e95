"""What a real server says about its limits, read through the real `openai` client against the loopback fake:
a context-size refusal with its figures, the output cap sent as max_tokens, a reply cut at that cap."""

from __future__ import annotations

import pytest

from paicli.llm.client import ClientOptions, OpenAIChatClient
from paicli.llm.failures import context_limit_of
from paicli.llm.messages import Message
from paicli.llm.protocol import ContextLimit, LLMError
from paicli.testing.openai_server import FakeOpenAIServer, count_tokens, prompt_text
from paicli.testing.server_limits import ServerLimits


def client(server: FakeOpenAIServer, **options: object) -> OpenAIChatClient:
    opts = ClientOptions(server.base_url, "sk-test", backoff_base=0.001, **options)  # type: ignore[arg-type]
    return OpenAIChatClient.from_options(opts, "fake-model")


LONG = [Message.system("系统提示"), Message.user("很长的输入 " * 400)]


@pytest.mark.parametrize("refusal", ["llamacpp", "openai"])
def test_a_context_refusal_carries_the_servers_figures_and_is_not_retried(refusal: str) -> None:
    limits = ServerLimits(n_ctx=300, refusal=refusal)  # type: ignore[arg-type]
    with FakeOpenAIServer(limits=limits) as server:
        with pytest.raises(LLMError) as caught:
            client(server).chat(LONG)
        sent = server.requests[0]
        assert len(server.requests) == 1 and server.refusals == 1  # a 400 is not retried
    counted = count_tokens(prompt_text(sent))
    assert caught.value.status == 400
    assert caught.value.context_limit == ContextLimit(300, counted)
    assert str(counted) in str(caught.value)


def test_a_request_within_the_window_is_answered() -> None:
    with FakeOpenAIServer(limits=ServerLimits(n_ctx=300)) as server:
        server.push("好")
        assert client(server).chat([Message.user("短")]).message.content == "好"
        assert server.refusals == 0


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (  # vLLM: the messages' share of what was requested
            {
                "error": {
                    "message": "This model's maximum context length is 4096 tokens. However, you requested "
                    "5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length."
                }
            },
            ContextLimit(4096, 4000),
        ),
        (  # LM Studio: a plain string error
            {
                "error": "Trying to keep the first 9325 tokens when context the overflows. However, the model "
                "is loaded with context length of only 8192 tokens, which is not enough."
            },
            ContextLimit(8192, 9325),
        ),
        (
            {"error": {"message": "prompt is too long: 210000 tokens > 200000 maximum"}},
            ContextLimit(200000, 210000),
        ),
        ({"error": {"code": "context_length_exceeded", "message": "too long"}}, ContextLimit(None, None)),
        ({"error": {"message": "tools param requires --jinja flag"}}, None),
        ({"error": {"message": "messages[3] is a tool message for 'x' with no pending tool call"}}, None),
    ],
)
def test_the_wordings_of_other_servers(body: object, expected: ContextLimit | None) -> None:
    assert context_limit_of(400, body) == expected


def test_a_refusal_for_size_is_never_taken_for_a_server_error() -> None:
    assert context_limit_of(401, {"error": {"message": "maximum context length is 8192"}}) is None


def test_the_configured_output_cap_is_sent_and_a_side_calls_smaller_cap_wins() -> None:
    with FakeOpenAIServer(default_reply="好") as server:
        capped = client(server, max_output_tokens=2000)
        capped.chat([Message.user("一")])
        capped.chat([Message.user("二")], max_tokens=100)
        capped.with_model("other").chat([Message.user("三")], max_tokens=5000)
        client(server).chat([Message.user("四")])
        sent = [request.get("max_tokens") for request in server.requests]
    assert sent == [2000, 100, 2000, None]


def test_a_reply_cut_at_max_tokens_ends_with_length() -> None:
    with FakeOpenAIServer(limits=ServerLimits(honour_max_tokens=True)) as server:
        server.push("一二三四五六七八九十，这是一段很长很长的回答，会被截断。")
        response = client(server, max_output_tokens=4).chat([Message.user("说点什么")])
    assert response.finish_reason == "length"
    assert count_tokens(response.message.content or "") <= 4
