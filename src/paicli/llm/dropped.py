"""A server that silently drops `tools` (its chat template does not render them): the prompt it counted cannot
hold the tool definitions that were sent. Pure decisions over token counts; the client makes the requests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from paicli.llm.messages import Message

# A prompt under this share of the local count of messages + tools is suspicious: a server that rendered the
# tools counts about r·(messages + tools), one that dropped them r·messages, where r (its tokenizer against the
# local one) lies around 0.6-1.3. Either way the one-token request without tools decides.
SUSPICIOUS_SHARE = 0.6
SAME_PROMPT_SLACK = 8  # tokens: two renderings of the same messages may differ by a separator or two

DROPPED_TOOLS_NOTICE = (
    "⚠️ 模型服务没有把工具定义交给模型 {model}：服务端统计的提示词只有 {prompt} tokens，"
    "连工具定义本身（约 {tools} tokens）都装不下，去掉工具后数字也不变。多半是聊天模板不支持工具"
    "（llama.cpp 需要 --jinja 和能渲染 tools 的模板）。本次会话改为纯对话：它不能读写文件或运行命令。"
)


class PromptSize(Protocol):
    """Local token counts (paicli.context.tokens.TokenCounter satisfies this)."""

    def count_messages(self, history: Sequence[Message]) -> int: ...

    def count_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> int: ...


def suspicious(prompt_tokens: int, message_tokens: int, tool_tokens: int) -> bool:
    """The server's prompt count is too small to have included the tools (checked further before acting)."""
    return tool_tokens > 0 and prompt_tokens < SUSPICIOUS_SHARE * (message_tokens + tool_tokens)


def same_prompt(with_tools: int, without_tools: int) -> bool:
    """The counts of the same messages sent with and without tools: equal when the tools were never rendered."""
    return abs(with_tools - without_tools) <= max(SAME_PROMPT_SLACK, without_tools // 100)
