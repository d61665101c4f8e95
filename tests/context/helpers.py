"""History builders shared by the context tests."""

from __future__ import annotations

from paicli.llm.messages import Message, ToolCall
from paicli.testing.protocol import assert_protocol_valid

STRUCTURED = (
    "## 当前目标与成功条件\n完成重构\n"
    "## 用户要求与已确认决定\n使用 Python\n"
    "## 已完成工作及证据\n改了 a.py\n"
    "## 未解决问题与下一步\n跑测试"
)


def tool_result_text(tool: str, body: str) -> str:
    return f'<tool_result tool="{tool}" trust="untrusted-data">\n{body}\n</tool_result>'


def tool_round(
    index: int, tool: str = "read_file", body: str | None = None, wrap: bool = True
) -> list[Message]:
    call = ToolCall(f"call-{index}", tool, f'{{"path":"f{index}.txt"}}')
    content = body if body is not None else "x" * 2000
    content = tool_result_text(tool, content) if wrap else content
    return [Message.assistant(None, (call,)), Message.tool(call.id, content)]


def qa_rounds(count: int, prefix: str = "Q", answer_prefix: str = "A", size: int = 200) -> list[Message]:
    messages: list[Message] = []
    for i in range(1, count + 1):
        messages.append(Message.user(f"{prefix}{i} " + "问题内容" * size))
        messages.append(Message.assistant(f"{answer_prefix}{i} " + "回答内容" * size))
    return messages


def assert_pairs_valid(history: list[Message]) -> None:
    """Every assistant tool call is answered by exactly one tool message before the next non-tool message."""
    assert_protocol_valid(history)
