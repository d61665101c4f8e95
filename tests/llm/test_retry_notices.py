"""Retry notices go to the listener of the request's own context, not to whoever else uses the client."""

from __future__ import annotations

import threading
from contextvars import copy_context

from paicli.agent.plan.parallel import run_all
from paicli.llm.client import OpenAIChatClient
from paicli.llm.messages import Message
from paicli.llm.notices import RetryListener, retry_notices
from paicli.testing.openai_server import FakeOpenAIServer, Reply

Heard = list[tuple[int, int, str]]


def _client(server: FakeOpenAIServer) -> OpenAIChatClient:
    return OpenAIChatClient(server.base_url, "sk-test", "fake-model", max_retries=2, backoff_base=0.0)


def _listener(heard: Heard) -> RetryListener:
    return lambda number, retries, delay, cause: heard.append((number, retries, cause))


def test_a_call_hears_its_own_retry() -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.error(503), "好了")
        heard: Heard = []
        with retry_notices(_listener(heard)):
            reply = _client(server).chat([Message.user("x")])
        assert reply.message.content == "好了" and heard == [(1, 2, "HTTP 503")]


def test_a_call_on_another_thread_does_not_borrow_the_listener() -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.error(500), "后台好了")
        client, heard, outcome = _client(server), [], []  # one client shared by the turn and the side call
        with retry_notices(_listener(heard)):
            side = threading.Thread(target=lambda: outcome.append(client.chat([Message.user("side")])))
            side.start()
            side.join(30)
        assert not side.is_alive() and outcome[0].message.content == "后台好了"
        assert len(server.requests) == 2  # it did retry, and nobody was told it was theirs
        assert heard == []


def test_work_run_in_a_copy_of_the_context_keeps_the_listener() -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.error(500), "甲")
        client, heard = _client(server), []
        with retry_notices(_listener(heard)):
            copied = copy_context()
        assert copied.run(client.chat, [Message.user("x")]).message.content == "甲"
        assert heard == [(1, 2, "HTTP 500")]


def test_parallel_plan_work_reports_retries_to_the_runs_listener() -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.error(500), "一", "二")
        client, heard = _client(server), []
        with retry_notices(_listener(heard)):
            answers = run_all(["a", "b"], lambda text: client.chat([Message.user(text)]).message.content, 2)
        assert sorted(a or "" for a in answers) == ["一", "二"]
        assert heard == [(1, 2, "HTTP 500")]
