"""A reply that streams past PAICLI_LLM_MAX_RESPONSE_BYTES ends with a clear error instead of filling memory."""

from __future__ import annotations

import pytest

from paicli.llm.client import ClientOptions, OpenAIChatClient
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMError, StreamDelta
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from tests.llm.test_plain_json_reply import JsonOnlyServer, completion

# Far above one socket read (64 KiB): however the reads fall under load, most of what was pulled before the
# limit has been parsed and shown, so `shown > 1000` holds on any machine.
LIMIT = 1024 * 1024


def _client(base_url: str, limit: int = LIMIT) -> OpenAIChatClient:
    options = ClientOptions(base_url, None, max_retries=3, backoff_base=0.001, max_response_bytes=limit)
    return OpenAIChatClient.from_options(options, "fake-model")


@pytest.mark.parametrize("framed", [True, False], ids=["endless events", "one endless line"])
def test_an_endless_reply_stops_at_the_limit_with_a_clear_error(framed: bool) -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.endless("无尽的回答", framed=framed))
        deltas: list[StreamDelta] = []
        with pytest.raises(LLMError) as caught:
            _client(server.base_url).chat([Message.user("讲个故事")], on_delta=deltas.append)
        requests = len(server.requests)
    assert "回答长度上限" in str(caught.value) and f"{LIMIT:,}" in str(caught.value)
    assert not caught.value.retryable and requests == 1  # not sent again: it would stream it all again
    shown = sum(len(d.text.encode()) for d in deltas)
    assert shown <= LIMIT  # what reached the screen is bounded by the limit too
    if framed:
        assert shown > 1000  # it did stream: the error came from the limit, not from the start


def test_a_reply_under_the_limit_is_untouched() -> None:
    text = "正常的回答。" * 2000  # 36 KB of text, about 200 KB on the wire with the event framing
    with FakeOpenAIServer() as server:
        server.push(Reply.text(text, chunks=300))
        reply = _client(server.base_url, limit=1024 * 1024).chat([Message.user("q")])
    assert reply.message.content == text


def test_a_plain_json_reply_counts_against_the_limit_too() -> None:
    server = JsonOnlyServer([completion({"role": "assistant", "content": "大" * LIMIT})])
    try:
        with pytest.raises(LLMError) as caught:
            _client(server.base_url).chat([Message.user("q")])
    finally:
        server.close()
    assert "回答长度上限" in str(caught.value)
