"""A whole session over the scripted model (issue 46): a write's diagnostics reach the model before its next
call as a user message recorded with source `lsp_diagnostics`, the person sees a line, tool-call pairing holds,
/config names the server, and closing the session stops it. /index, /search and /graph over the same session."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from paicli.agent.events import AgentEvent, Notice
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.compose import build_components
from paicli.config.env import EnvLookup
from paicli.config.parsed import ParsedConfig
from paicli.config.settings import load_settings
from paicli.testing.commands import command
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import ScriptedLLM, tool_call_reply
from paicli.tools.approval import AutoApprover

FAKE = Path(__file__).resolve().parents[1] / "fakes" / "lsp_server.py"
pytestmark = pytest.mark.timeout(60)


def _backend(tmp_path: Path, llm: ScriptedLLM) -> AppBackend:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    env = EnvLookup(
        environ={
            "HOME": str(tmp_path),
            "PATH": os.environ.get("PATH", ""),
            "PAICLI_HOME": str(tmp_path / ".paicli"),
            "PAICLI_BASE_URL": "http://127.0.0.1:9/v1",
            "PAICLI_MODEL": "scripted-model",
            "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
            "PAICLI_LSP_PYTHON": f"{sys.executable} {FAKE}",
            "PAICLI_LSP_WAIT_SECONDS": "30",
        },
        cwd=project,
    )
    parts = build_components(
        load_settings(env, cwd=project), ParsedConfig.read(env), AutoApprover(), yes=True, llm=llm
    )
    return AppBackend(parts)


@pytest.mark.e2e  # a language server process
def test_diagnostics_of_a_write_reach_the_next_model_call_and_the_server_stops_at_close(
    tmp_path: Path,
) -> None:
    write = json.dumps({"path": "app.py", "content": "x = 1\ny = z  # ERROR: undefined name z\n"})
    llm = ScriptedLLM([tool_call_reply(("write_file", write)), "写好了，但有一个错误要修。"])
    backend = _backend(tmp_path, llm)
    events: list[AgentEvent] = []
    try:
        assert backend.parts.lsp is not None and backend.parts.lsp.built is None  # loaded by the first write
        finished = backend.run("写 app.py", "react", events.append, CancelToken())
        assert finished.status == "done"
        second = llm.requests[1].messages
        assert_protocol_valid(second)
        assert [m.role for m in second[-3:]] == ["assistant", "tool", "user"]
        assert second[-1].content is not None and "app.py\n  L2:" in second[-1].content
        assert "错误 undefined name z" in second[-1].content
        assert any(isinstance(e, Notice) and e.text.startswith("🩺 语言服务器：1 个错误") for e in events)
        ledger = [json.loads(line) for line in backend.parts.ledger.path.read_text().splitlines()]
        assert [e["message"]["role"] for e in ledger if e["source"] == "lsp_diagnostics"] == ["user"]
        config = command(backend, "/config")
        assert "语言服务器 python:" in config and "运行中" in config
        [pid] = backend.parts.lsp.get().pids()
    finally:
        backend.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_index_search_and_graph_commands(tmp_path: Path) -> None:
    backend = _backend(tmp_path, ScriptedLLM(["好的"]))
    project = tmp_path / "project"
    (project / "pay.py").write_text(
        "def charge_card(card):\n    return card\n\n\ndef checkout(c):\n    return charge_card(c)\n"
    )
    try:
        assert "代码库尚未索引" in command(backend, "/search charge")
        assert "代码库尚未索引" in command(backend, "/graph charge_card")
        assert "用法：/search <查询>" in command(backend, "/search")
        assert "用法：/graph <符号>" in command(backend, "/graph")
        built = command(backend, "/index")
        assert "✅ 代码索引已更新：1 个文件" in built
        found = command(backend, "/search 扣款")
        assert "1. pay.py:1-2 · charge_card（function）" in found
        graph = command(backend, "/graph charge_card")
        assert "pay.py:1 function charge_card" in graph and "pay.py:5-6 checkout" in graph
        assert "✅ 代码索引已更新" in command(backend, "/index .")
        assert "只能索引当前项目" in command(backend, f"/index {tmp_path}")
    finally:
        backend.close()


def test_an_indexed_project_offers_search_code_whose_result_is_framed_as_untrusted(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pay.py").write_text("def charge_card(card):\n    return card\n")
    first = _backend(tmp_path, ScriptedLLM(["好的"]))
    try:
        assert all(d["function"]["name"] != "search_code" for d in first.parts.tools.definitions())
        command(first, "/index")
    finally:
        first.close()
    call = tool_call_reply(("search_code", json.dumps({"query": "charge card"})))
    llm = ScriptedLLM([call, "找到了。"])
    backend = _backend(tmp_path, llm)
    try:
        backend.run("找扣款的代码", "react", lambda e: None, CancelToken())
    finally:
        backend.close()
    assert "search_code" in [d["function"]["name"] for d in llm.requests[0].tools or []]
    result = llm.requests[1].messages[-1]
    assert result.role == "tool" and result.content is not None
    assert 'trust="untrusted-data"' in result.content and "pay.py:1-2 · charge_card" in result.content
