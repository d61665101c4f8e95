"""History builders shared by the context tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from paicli.cancel import CancelToken
from paicli.context.climb import climb
from paicli.context.manager import AutoCompactionManager
from paicli.context.summariser import SummaryCall
from paicli.context.types import CompactionResult
from paicli.context.user_words import values_of
from paicli.llm.messages import Message, ToolCall
from paicli.llm.protocol import LLMClient
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import Request

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


def keeping_text(texts: Sequence[str]) -> str:
    """A summary that keeps what the user said: STRUCTURED with every value stated in `texts` (a summariser
    that drops them is what the words check rejects; tests of other behaviour use this one). Of a rendered
    transcript, only the USER lines count."""
    said = [_user_lines(text) for text in texts]
    values = dict.fromkeys(value for text in said for value in values_of(text))
    return STRUCTURED.replace("使用 Python", "使用 Python\n" + "、".join(values))


def keeping_summary(request: Request) -> str:
    return keeping_text([m.content or "" for m in request.messages if m.role == "user"])


def keeping_reply(body: dict[str, Any]) -> str:
    """keeping_summary for a request body the fake server received."""
    return keeping_text([str(m.get("content") or "") for m in body["messages"] if m.get("role") == "user"])


def _user_lines(text: str) -> str:
    if not any(marker in text for marker in ("=== 本部分对话 ===", "=== 待压缩的对话 ===")):
        return text
    return "\n".join(line for line in text.splitlines() if line.startswith("USER: "))


def climb_at(
    manager: AutoCompactionManager,
    history: list[Message],
    trigger: int,
    cancel: CancelToken | None = None,
    *,
    llm: LLMClient | None,
) -> CompactionResult:
    """The manager's ladder climbed at `trigger` (the reference algorithm, spec 2.1), for `llm`'s model."""
    with manager.gauge.keyed(llm.model if llm is not None else ""):
        return climb(manager.ladder, manager.summariser, history, trigger, cancel, SummaryCall(llm))
