"""A bare `clear` (a shell habit) asks before it throws the conversation away; `/clear` does not ask, and a
piped script's `clear` keeps the reference's meaning (nobody is there to answer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.command_handlers import CLEARED
from paicli.cli.repl_dispatch import Dispatcher
from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.served_session import ScriptedIO, served_parts

pytestmark = pytest.mark.timeout(60)


def typed(backend: AppBackend, line: str, answers: list[str], *, interactive: bool) -> ScriptedIO:
    io = ScriptedIO(answers, interactive=interactive)
    Dispatcher(backend, io).handle(line)  # type: ignore[arg-type]
    return io


def test_bare_clear_asks_and_only_y_clears(tmp_path: Path) -> None:
    with FakeOpenAIServer(["第一个回答"]) as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            backend.run("记住这个问题", "react", lambda e: None, CancelToken())
            turns = len(backend.agent.history)
            kept = typed(backend, "clear", [""], interactive=True)
            assert kept.asked == ["⚠️ 要清空当前对话历史吗？输入 y 清空，直接回车取消："]
            assert "已取消，什么都没有改变（/clear 直接执行，不再询问）" in kept.out.getvalue()
            assert len(backend.agent.history) == turns
            escaped = typed(backend, "CLEAR", [], interactive=True)  # Esc / Ctrl+C at the question
            assert "已取消" in escaped.out.getvalue() and len(backend.agent.history) == turns
            cleared = typed(backend, "clear", ["y"], interactive=True)
            assert CLEARED in cleared.out.getvalue()
            assert len(backend.agent.history) < turns
        finally:
            backend.close(5)


def test_slash_clear_and_a_piped_clear_do_not_ask(tmp_path: Path) -> None:
    with FakeOpenAIServer(["一", "二"]) as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            backend.run("问题一", "react", lambda e: None, CancelToken())
            slash = typed(backend, "/clear", [], interactive=True)
            assert slash.asked == [] and CLEARED in slash.out.getvalue()
            backend.run("问题二", "react", lambda e: None, CancelToken())
            piped = typed(backend, "clear", [], interactive=False)
            assert piped.asked == [] and CLEARED in piped.out.getvalue()
        finally:
            backend.close(5)
