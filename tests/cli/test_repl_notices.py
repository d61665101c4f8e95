"""Background notices (facts saved after a turn) reach the screen while the user waits at the prompt."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input

from paicli.agent.events import EventSink, RunFinished, TextDelta
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.config.modes import RunMode
from paicli.testing.fake_backend import FakeBackend
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from tests.cli.served_session import served_parts
from tests.cli.test_repl_interactive import CTRL_D, ENTER, Session, pause

pytestmark = pytest.mark.timeout(30)

NOTICE = "💾 从你这轮的话里记下了 1 条项目事实"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    done = threading.Event()
    for _ in range(int(timeout / 0.02)):
        if condition():
            return True
        done.wait(0.02)
    return condition()


def test_a_notice_shows_at_the_prompt_without_further_input(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()
    session = Session(backend, pipe, tmp_path / "h")
    shown_before_any_key = threading.Event()

    def feeder(inp: PipeInput) -> None:
        assert wait_until(lambda: backend.notice_listener is not None)
        pause(0.3)  # the prompt is waiting
        backend.push_notice(NOTICE)
        if wait_until(lambda: NOTICE in session.text):
            shown_before_any_key.set()
        inp.send_text(CTRL_D)

    assert session.run(feeder) == 0
    assert shown_before_any_key.is_set()
    assert session.text.count(NOTICE) == 1
    assert session.text.index(NOTICE) < session.text.index("👋")
    assert backend.notice_listener is None  # unhooked when the REPL ends


def test_text_typed_before_a_notice_is_kept(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()
    session = Session(backend, pipe, tmp_path / "h")

    def feeder(inp: PipeInput) -> None:
        assert wait_until(lambda: backend.notice_listener is not None)
        pause(0.3)
        inp.send_text("半句")
        pause(0.2)
        backend.push_notice(NOTICE)
        assert wait_until(lambda: NOTICE in session.text)
        inp.send_text("话" + ENTER)
        assert wait_until(lambda: "echo: 半句话" in session.text)
        inp.send_text(CTRL_D)

    session.run(feeder)
    assert backend.calls == [("run", ("半句话", "react"))]
    assert session.text.index(NOTICE) < session.text.index("echo: 半句话")


def test_a_notice_during_a_task_is_printed_once_after_its_answer(pipe: PipeInput, tmp_path: Path) -> None:
    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        backend.push_notice(NOTICE)  # no prompt is waiting: the listener must not print or lose it
        emit(TextDelta("答案正文\n"))
        return RunFinished("done", "答案正文")

    backend = FakeBackend(scripts=[run])
    session = Session(backend, pipe, tmp_path / "h")
    session.run(None, "做点事" + ENTER, CTRL_D)
    assert session.text.count(NOTICE) == 1
    assert session.text.index("答案正文") < session.text.index(NOTICE)


def test_a_notice_left_when_the_session_closes_is_still_printed(pipe: PipeInput, tmp_path: Path) -> None:
    class LateBackend(FakeBackend):
        def close(self, timeout: float = 10.0) -> None:
            self.push_notice(NOTICE)  # the extraction finished while close() waited for it
            super().close(timeout)

    backend = LateBackend()
    session = Session(backend, pipe, tmp_path / "h")
    session.run(None, CTRL_D)
    assert backend.closed
    assert session.text.count(NOTICE) == 1


def test_the_real_backend_calls_its_listener_when_extraction_saves_a_fact(tmp_path: Path) -> None:
    statement = "我们团队约定所有提交信息都用中文书写"

    def responder(body: dict[str, Any]) -> Reply | str:
        if "=== 用户原文 ===" in str(body["messages"][-1].get("content", "")):
            return json.dumps({"facts": [{"quote": statement}]}, ensure_ascii=False)
        return "好的。"

    with FakeOpenAIServer(responder=responder) as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url, auto_extract=True))
        called = threading.Event()
        backend.set_notice_listener(called.set)
        try:
            backend.run(f"{statement}。帮我看看 README", "react", lambda e: None, CancelToken())
            assert called.wait(10)
            assert any(statement in line for line in backend.drain_notices())  # the notice names the fact
            backend.set_notice_listener(None)
            called.clear()
            backend.background.notice("另一条")  # the queueing path, now without a listener
            assert not called.is_set() and backend.drain_notices() == ["另一条"]
        finally:
            backend.close(10)
