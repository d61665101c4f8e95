"""The session's `recall` tool (cli/session_factory.py): its spec is in the tool list from the start, and its
handler (with the session catalog and search it reads) loads at the first call and answers over this session."""

from __future__ import annotations

from pathlib import Path

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.tools.recall_spec import RECALL
from tests.cli.served_session import served_parts


def test_the_recall_tool_answers_through_the_handler_it_loads_at_the_first_call(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好") as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        tool = backend.parts.tools.tools["recall"]
        assert tool.spec == RECALL
        assert RECALL.definition() in backend.parts.tools.definitions()
        context = backend.parts.tools.context(CancelToken())
        asked = tool.handler({}, context)
        unknown = tool.handler({"id": "不是编号"}, context)
    assert not asked.success and "recall 需要 id" in asked.content
    assert not unknown.success and "无法识别的 recall id：不是编号" in unknown.content
