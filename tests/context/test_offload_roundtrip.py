"""Level 1 through the real tool runner: a large command output is offloaded whole and read back in ranges
with read_file without being offloaded again (spec 12: largeCommandOutputIsRecoverableInsteadOfTruncated,
offloadedFileCanBeReadBackThroughReadFileWithoutReoffloading)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from paicli.cancel import CancelToken
from paicli.config.compaction_values import OffloadValues
from paicli.config.tool_values import ToolValues
from paicli.context.offload import ToolResultOffloader
from paicli.llm.messages import ToolCall
from paicli.tools.approval import AutoApprover
from paicli.tools.runner import ToolRunner
from tests.context.conftest import MakeEnv

NOTICE = "[工具输出过大，完整内容已卸载到会话文件]"


def run(runner: ToolRunner, name: str, arguments: dict[str, object]) -> str:
    call = ToolCall("call-1", name, json.dumps(arguments))
    [result] = runner.for_turn("读文件").execute([call], CancelToken(), lambda event: None)
    return result.content


def test_command_output_is_offloaded_whole_and_read_back_in_ranges(project: Path, make_env: MakeEnv) -> None:
    env = make_env()
    offloader = ToolResultOffloader(project, OffloadValues.parse(env))
    runner = ToolRunner(project, AutoApprover(), offloader, values=ToolValues.parse(env))

    notice = run(runner, "execute_command", {"command": "seq 1 20000"})
    assert NOTICE in notice and "输出已截断" not in notice
    found = re.search(r"(?m)^文件: (\.paicli/tool-outputs/\S+)$", notice)
    assert found
    relative = found.group(1)
    assert (project / relative).read_text(encoding="utf-8").split() == [str(i) for i in range(1, 20001)]

    ranged = run(runner, "read_file", {"path": relative, "offset": 1500, "limit": 3})
    assert NOTICE not in ranged
    rows = re.findall(r"(?m)^\s*(\d+) \| (\d+)$", ranged)
    assert rows == [("1500", "1500"), ("1501", "1501"), ("1502", "1502")]
    assert len(list((project / ".paicli" / "tool-outputs" / offloader.session_dir_name).iterdir())) == 1
