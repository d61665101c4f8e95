"""The Runtime API (`paicli serve --http`) in-process, driven by a real HTTP client (http.client): keys, runs
(sync and SSE), sessions, approvals, cancel, concurrent runs. One server for the module; the model is the
loopback fake, answering by the prompt each run was given."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paicli.cli.runtime_api import RuntimeServer
from paicli.cli.runtime_runs import RunRegistry
from paicli.config.env import EnvLookup
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import message_text, paicli_env

KEY = "test-runtime-key-1234"
AUTH = {"Authorization": f"Bearer {KEY}"}

# a run's model replies, by a word of its prompt: the n-th reply answers after n tool results
SCRIPT: dict[str, list[Reply | str]] = {
    "打招呼": ["你好，我在"],
    "读文件": [Reply.tool_calls(("read_file", '{"path": "a.txt"}')), "a.txt 写着 hello"],
    "建文件": [Reply.tool_calls(("execute_command", '{"command": "touch made-by-api"}')), "建好了"],
    "暗号": ["记住了：蓝鲸"],
    "问暗号": ["暗号是蓝鲸"],
}


def respond(body: dict[str, Any]) -> Reply | str:
    messages = body["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    said = message_text(messages[last_user])
    after = sum(1 for m in messages[last_user:] if m["role"] == "tool")
    word = max((w for w in SCRIPT if w in said), key=len)
    return SCRIPT[word][after]


class Api:
    def __init__(self, port: int, project: Path, model: FakeOpenAIServer) -> None:
        self.port = port
        self.project = project
        self.model = model

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        data = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, body=data, headers=AUTH if headers is None else headers)
        response = conn.getresponse()
        payload = json.loads(response.read() or b"null")
        conn.close()
        return response.status, payload

    def stream(self, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The `data:` lines of an SSE run, parsed, as they arrive."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("POST", "/v1/runs", body=json.dumps({**body, "stream": True}).encode(), headers=AUTH)
        response = conn.getresponse()
        assert response.status == 200 and response.getheader("Content-Type", "").startswith(
            "text/event-stream"
        )
        try:
            while line := response.readline():
                if line.startswith(b"data: "):
                    yield json.loads(line[len(b"data: ") :])
        finally:
            conn.close()


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    root = tmp_path_factory.mktemp("runtime")
    project = root / "project"
    project.mkdir()
    (project / "a.txt").write_text("hello\n", encoding="utf-8")
    with FakeOpenAIServer(responder=respond) as model:
        environ = paicli_env(root / "home", model.base_url)
        registry = RunRegistry(lambda: EnvLookup(environ=environ, cwd=project), project)
        server = RuntimeServer(("127.0.0.1", 0), registry, KEY)
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        yield Api(server.server_address[1], project, model)
        server.shutdown()
        server.server_close()


def test_health_needs_no_key(api: Api) -> None:
    assert api.call("GET", "/v1/health", headers={})[0] == 200


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}, {"X-PaiCLI-API-Key": KEY + "x"}],
)
def test_a_missing_or_wrong_key_is_401(api: Api, headers: dict[str, str]) -> None:
    status, body = api.call("POST", "/v1/runs", {"prompt": "打招呼"}, headers=headers)
    assert status == 401 and "API Key" in body["error"]["message"]
    assert api.call("GET", "/v1/runs/run-1", headers=headers)[0] == 401


def test_either_header_carries_the_key(api: Api) -> None:
    assert api.call("GET", "/v1/runs/nope", headers={"X-PaiCLI-API-Key": KEY})[0] == 404
    assert api.call("GET", "/v1/runs/nope", headers={"Authorization": f"bearer {KEY}"})[0] == 404


def test_a_sync_run_answers_and_can_be_read_back(api: Api) -> None:
    status, run = api.call("POST", "/v1/runs", {"prompt": "打招呼"})
    assert status == 200
    assert (run["status"], run["result"], run["is_error"]) == ("done", "你好，我在", False)
    assert run["session_id"].startswith("session-") and run["usage"]["input_tokens"] > 0
    status, again = api.call("GET", f"/v1/runs/{run['id']}")
    assert status == 200 and again["status"] == "done" and again["result"] == "你好，我在"


def test_a_run_continues_a_session(api: Api) -> None:
    first = api.call("POST", "/v1/runs", {"prompt": "暗号是蓝鲸，记住"})[1]
    status, second = api.call("POST", "/v1/runs", {"prompt": "问暗号", "session_id": first["session_id"]})
    assert status == 200 and second["session_id"] == first["session_id"]
    said = [message_text(m) for m in api.model.requests[-1]["messages"]]
    assert "暗号是蓝鲸，记住" in said and "记住了：蓝鲸" in said
    assert api.call("POST", "/v1/runs", {"prompt": "打招呼", "session_id": "session-1-none"})[0] == 404


def test_sse_streams_the_stream_json_events_then_the_result(api: Api) -> None:
    lines = list(api.stream({"prompt": "读文件"}))
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "run" and kinds[-1] == "result"
    assert {"model_call", "tool_start", "tool_end", "text_delta", "usage"} <= set(kinds)
    assert kinds.index("tool_start") < kinds.index("tool_end")
    assert lines[-1]["id"] == lines[0]["id"] and lines[-1]["result"] == "a.txt 写着 hello"
    assert api.call("GET", f"/v1/runs/{lines[0]['id']}")[1]["status"] == "done"


def test_an_approval_is_answered_over_the_api_while_another_run_goes_on(api: Api) -> None:
    stream = api.stream({"prompt": "建文件", "approval_policy": "ask"})
    started = next(stream)
    asked = next(line for line in stream if line["type"] == "approval_request")
    assert asked["tool"] == "execute_command"
    waiting = api.call("GET", f"/v1/runs/{started['id']}")[1]
    assert waiting["status"] == "running" and [a["approval_id"] for a in waiting["pending_approvals"]] == [
        asked["approval_id"]
    ]
    # the session is held by its run; another session's run is served meanwhile
    busy = api.call("POST", "/v1/runs", {"prompt": "打招呼", "session_id": started["session_id"]})
    assert busy[0] == 409
    assert api.call("POST", "/v1/runs", {"prompt": "打招呼"})[1]["result"] == "你好，我在"
    path = f"/v1/runs/{started['id']}/approvals/{asked['approval_id']}"
    assert api.call("POST", path, {"decision": "maybe"})[0] == 400
    assert api.call("POST", path, {"decision": "approve"})[0] == 200
    rest = list(stream)
    assert rest[-1]["type"] == "result" and rest[-1]["status"] == "done"
    assert (api.project / "made-by-api").exists()
    assert api.call("POST", path, {"decision": "approve"})[0] == 404  # answered already
    (api.project / "made-by-api").unlink()


def test_cancel_stops_a_waiting_run(api: Api) -> None:
    stream = api.stream({"prompt": "建文件", "approval_policy": "ask"})
    started = next(stream)
    next(line for line in stream if line["type"] == "approval_request")
    assert api.call("POST", f"/v1/runs/{started['id']}/cancel")[0] == 202
    assert list(stream)[-1]["status"] == "cancelled"
    assert api.call("GET", f"/v1/runs/{started['id']}")[1]["status"] == "cancelled"
    assert not (api.project / "made-by-api").exists()


def test_the_default_policy_refuses_what_needs_approval(api: Api) -> None:
    run = api.call("POST", "/v1/runs", {"prompt": "建文件"})[1]
    assert run["status"] == "done" and not (api.project / "made-by-api").exists()


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"prompt": ""},
        {"prompt": "打招呼", "mode": "fast"},
        {"prompt": "x", "approval_policy": "all"},
        [1],
    ],
)
def test_bad_requests_are_400(api: Api, body: Any) -> None:
    status, answer = api.call("POST", "/v1/runs", body)
    assert status == 400 and answer["error"]["message"]


def test_a_body_that_is_not_json_is_400(api: Api) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", api.port, timeout=60)
    conn.request("POST", "/v1/runs", body=b"{not json", headers=AUTH)
    assert conn.getresponse().status == 400
    conn.close()


def test_a_run_that_does_not_wait_is_polled(api: Api) -> None:
    status, started = api.call(
        "POST", "/v1/runs", {"prompt": "建文件", "approval_policy": "ask", "wait": False}
    )
    assert status == 202 and started["status"] == "running"
    path = f"/v1/runs/{started['id']}"
    while not (pending := api.call("GET", path)[1]["pending_approvals"]):
        pass  # polled until the request arrives: what such a client does
    assert api.call("POST", f"{path}/approvals/{pending[0]['approval_id']}", {"decision": "deny"})[0] == 200
    while (final := api.call("GET", path)[1])["status"] == "running":
        pass
    assert final["status"] == "done" and final["result"] == "建好了"
    assert not (api.project / "made-by-api").exists()


def test_a_stream_client_that_leaves_does_not_stop_the_run(api: Api) -> None:
    stream = api.stream({"prompt": "读文件"})
    started = next(stream)
    stream.close()  # the connection is closed after the first event
    while (final := api.call("GET", f"/v1/runs/{started['id']}")[1])["status"] == "running":
        pass
    assert final["result"] == "a.txt 写着 hello"
