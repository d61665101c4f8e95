"""A retry notice belongs to the request that was retried: the background fact extractor shares the session's
client, and its HTTP 500 retry must not show up as a retry of a turn. Since issue 40 the extractor never runs
while a turn does (a one-slot server would queue the turn behind it): it retries between the turns, and neither
turn reports that retry."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from paicli.agent.events import AgentEvent, Notice, RunFinished
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.turn_runner import retry_line
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from tests.cli.served_session import served_parts

pytestmark = pytest.mark.timeout(60)

STATEMENT = "我们团队约定所有提交信息都用中文书写"
WAIT = 30.0


def _last_user_text(body: dict[str, Any]) -> str:
    return str(body["messages"][-1].get("content", ""))


class Script:
    """Turn 1 is answered; its extraction fails with HTTP 500 once, then succeeds; turn 2 is answered; turn 3
    itself fails once, to show that a turn's own retry is still reported."""

    def __init__(self) -> None:
        self.extractions = 0
        self.turn3_calls = 0
        self.order: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply | str:
        text = _last_user_text(body)
        if "=== 用户原文 ===" in text:
            return self._extraction(text)
        with self._lock:
            self.order.append("turn")
        if "第二轮" in text:
            return "第二轮好了。"
        if "第三轮" in text:
            with self._lock:
                self.turn3_calls += 1
                first = self.turn3_calls == 1
            return Reply.error(500, "turn three exploded") if first else "第三轮好了。"
        return "好的。"

    def _extraction(self, text: str) -> Reply | str:
        if STATEMENT not in text:
            return json.dumps({"facts": []})
        with self._lock:
            self.extractions += 1
            number = self.extractions
            self.order.append("extraction")
        if number == 1:
            return Reply.error(500, "extractor exploded")
        return json.dumps({"facts": [{"quote": STATEMENT}]}, ensure_ascii=False)


def _retry_notices(events: list[AgentEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice) and "重试" in e.text]


def _run(backend: AppBackend, text: str) -> tuple[RunFinished, list[AgentEvent]]:
    events: list[AgentEvent] = []
    finished = backend.run(text, "react", events.append, CancelToken())
    return finished, events


def test_the_extractors_retry_is_not_shown_as_a_retry_of_the_next_turn(tmp_path: Path) -> None:
    script = Script()
    with FakeOpenAIServer(responder=script) as server:
        parts = served_parts(
            tmp_path,
            server.base_url,
            auto_extract=True,
            PAICLI_LLM_MAX_RETRIES="3",
            PAICLI_LLM_RETRY_BACKOFF="0",
            PAICLI_LOCAL_PORTS="off",
        )
        backend = AppBackend(parts)
        saved = threading.Event()
        backend.set_notice_listener(saved.set)
        try:
            first, first_events = _run(backend, f"{STATEMENT}。帮我看看 README")
            assert first.status == "done" and first.answer == "好的。"
            assert saved.wait(WAIT)  # the retried extraction still saved its fact
            assert script.extractions == 2  # the extractor did retry, after turn 1
            second, second_events = _run(backend, "第二轮：再看看 tests 目录")
            assert second.status == "done" and second.answer == "第二轮好了。"
            assert _retry_notices(first_events) == [] and _retry_notices(second_events) == []
            assert script.order == ["turn", "extraction", "extraction", "turn"]
            third, third_events = _run(backend, "第三轮：看看 src")
            assert third.status == "done" and third.answer == "第三轮好了。"
            assert _retry_notices(third_events) == ["⏳ 立即重试 1/3…（HTTP 500）"]
        finally:
            backend.close(10)
        server.assert_no_violations()


def test_the_retry_line_never_says_zero_seconds() -> None:
    """Issue 44 item 9: a wait that rounds to 0 s is `立即重试`; under a second it is said in tenths."""
    assert retry_line(1, 3, 0.0, "HTTP 500") == "⏳ 立即重试 1/3…（HTTP 500）"
    assert retry_line(1, 3, 0.01, "HTTP 500") == "⏳ 立即重试 1/3…（HTTP 500）"
    assert retry_line(2, 3, 0.4, "HTTP 503") == "⏳ 重试 2/3，0.4 s 后…（HTTP 503）"
    assert retry_line(2, 4, 0.96, "HTTP 429") == "⏳ 重试 2/4，1 s 后…（HTTP 429）"
    assert retry_line(3, 4, 3.2, "HTTP 500") == "⏳ 重试 3/4，3 s 后…（HTTP 500）"
