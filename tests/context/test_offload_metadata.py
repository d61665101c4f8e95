"""spec `contextOffloadKeepsTypedMetadata`: offloading replaces only the text of a tool result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paicli.cancel import CancelToken
from paicli.config.compaction_values import OffloadValues
from paicli.context.offload import ToolResultOffloader
from paicli.llm.messages import ToolCall
from paicli.tools.registry import Tool
from paicli.tools.schema import ToolOutput, ToolSpec
from tests.context.conftest import MakeEnv
from tests.tools.helpers import make_runner

URLS = ("https://example.org/a", "https://example.org/b")
NOTICE = "[工具输出过大，完整内容已卸载到会话文件]"


def finder(size: int) -> Tool:
    def handler(args: dict[str, Any], ctx: object) -> ToolOutput:
        return ToolOutput("结果行\n" * size, metadata={"discovered_urls": URLS, "kind": "search"})

    return Tool(ToolSpec("find_links", "找链接", read_only=True), handler)


def test_context_offload_keeps_typed_metadata(tmp_path: Path, make_env: MakeEnv) -> None:
    project = tmp_path / "project"
    project.mkdir()
    offloader = ToolResultOffloader(project, OffloadValues.parse(make_env()))
    runner = make_runner(project, offloader=offloader)
    runner.register(finder(20_000))
    turn = runner.for_turn("找一下链接")
    [result] = turn.execute([ToolCall("call-7", "find_links", "{}")], CancelToken(), lambda _e: None)
    assert NOTICE in result.content  # the text was offloaded ...
    assert result.call_id == "call-7" and result.name == "find_links"  # ... and nothing else changed
    assert result.success and not result.timed_out and not result.blocked
    assert result.metadata == {"discovered_urls": URLS, "kind": "search"}
    saved = next((project / ".paicli" / "tool-outputs").glob("*/001-find_links.txt"))
    assert saved.read_text(encoding="utf-8") == "结果行\n" * 20_000


def test_small_results_are_returned_as_the_same_object(tmp_path: Path, make_env: MakeEnv) -> None:
    offloader = ToolResultOffloader(tmp_path, OffloadValues.parse(make_env()))
    content = "小结果" * 10
    assert offloader.offload_if_oversized("find_links", "{}", content) is content
