"""Servers that ignore `stream: true` and answer with one JSON completion (real HTTP, the real openai package)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from paicli.llm.client import OpenAIChatClient
from paicli.llm.messages import Message, Usage
from paicli.llm.protocol import LLMError


class JsonOnlyServer:
    """Answers every POST with the next scripted JSON body (status 200, application/json), never SSE."""

    def __init__(self, bodies: list[dict[str, Any]]) -> None:
        self.bodies = list(bodies)
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                owner.requests.append(json.loads(self.rfile.read(length)))
                payload = json.dumps(owner.bodies.pop(0)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def completion(message: dict[str, Any], usage: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "plain-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


@pytest.fixture
def make_server() -> Iterator[Any]:
    servers: list[JsonOnlyServer] = []

    def make(*bodies: dict[str, Any]) -> JsonOnlyServer:
        servers.append(JsonOnlyServer(list(bodies)))
        return servers[-1]

    yield make
    for srv in servers:
        srv.close()


def test_a_plain_json_answer_to_a_streamed_request_is_read(make_server: Any) -> None:
    server = make_server(
        completion(
            {"role": "assistant", "content": "完整的回答"},
            {"prompt_tokens": 12, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 4}},
        )
    )
    client = OpenAIChatClient(server.base_url, None, "plain-model", max_retries=0)
    response = client.chat([Message.user("你好")])
    assert server.requests[0]["stream"] is True
    assert response.message.content == "完整的回答"
    assert response.usage == Usage(12, 3, 4)


def test_plain_json_tool_calls_are_kept(make_server: Any) -> None:
    call = {
        "id": "call_9",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path":"a"}'},
    }
    server = make_server(completion({"role": "assistant", "content": None, "tool_calls": [call]}))
    response = OpenAIChatClient(server.base_url, None, "m", max_retries=0).chat([Message.user("读 a")])
    assert [(c.id, c.name, c.arguments) for c in response.message.tool_calls] == [
        ("call_9", "read_file", '{"path":"a"}')
    ]


def test_an_error_object_with_status_200_is_a_clear_error(make_server: Any) -> None:
    server = make_server({"error": {"message": "model overloaded, try later"}})
    with pytest.raises(LLMError) as caught:
        OpenAIChatClient(server.base_url, None, "m", max_retries=0).chat([Message.user("x")])
    assert "model overloaded" in str(caught.value)
