"""Replies cut by the output limit (`finish_reason: "length"`) and requests refused as too long for the server.

A cut text answer is continued a bounded number of times: the request repeats the view with the partial
answer and an instruction to go on, and the parts are joined into one answer (the history only ever holds the
joined reply). A cut reply with tool calls runs none of them: each call gets a result saying why, so pairing
holds and the model knows to try again shorter. Pure helpers; the loop (agent/loop.py) makes the calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from importlib import resources

from paicli.config import knobs
from paicli.llm.messages import ChatResponse, Message, Usage
from paicli.llm.protocol import ContextLimit

LENGTH = "length"
CONTINUING_NOTICE = "✂️ 回答因长度上限被截断，正在自动续写（第 {n}/{limit} 次）"
TRUNCATED_NOTICE = "⚠️ 回答因长度上限被截断，内容不完整{tried}"
CUT_CALLS_NOTICE = "✂️ 模型的回复因长度上限被截断，其中的 {count} 个工具调用没有执行（已告诉模型缩短后重来）"
OVERFLOW_RETRY_NOTICE = "⚠️ 请求超出了模型服务的上下文窗口（{figures}），已按服务端的数字压缩对话，重试一次"
OVERFLOW_ERROR = (
    "请求超出了模型服务的上下文窗口（{figures}）{tried}。本轮输入没有留在对话里。"
    "可以先用 /compact 压缩对话再试，或把 {setting} 设为服务端的实际窗口{example}。"
)


@cache
def _text(name: str) -> str:
    return (resources.files("paicli") / "prompts" / "limits" / name).read_text(encoding="utf-8").strip()


def was_cut(response: ChatResponse) -> bool:
    return response.finish_reason == LENGTH


def continuation_request(view: Sequence[Message], partial: Message) -> list[Message]:
    """The view, the cut answer so far, and the instruction to continue it (never kept in the history)."""
    return [*view, Message.assistant(partial.content or ""), Message.user(_text("continue.md"))]


def joined(first: ChatResponse, more: ChatResponse) -> ChatResponse:
    """Two parts of one answer as one reply: texts and reasoning joined, the later part's calls and finish."""
    a, b = first.message, more.message
    reasoning = "".join(part for part in (a.reasoning_content, b.reasoning_content) if part) or None
    text = (a.content or "") + (b.content or "")
    message = Message.assistant(text or None if b.tool_calls else text, b.tool_calls, reasoning)
    usage = first.usage + more.usage if first.usage and more.usage else more.usage or first.usage
    return replace(more, message=message, usage=usage or Usage())


def cut_call_results(reply: Message) -> list[Message]:
    """One tool message per call of a cut reply: not run, and why."""
    text = _text("cut-call.md")
    return [Message.tool(call.id, text) for call in reply.tool_calls]


def truncated_notice(continued: int) -> str:
    return TRUNCATED_NOTICE.format(tried=f"（已自动续写 {continued} 次）" if continued else "")


def limit_figures(limit: ContextLimit) -> str:
    parts = []
    if limit.window:
        parts.append(f"服务端窗口 {limit.window:,} tokens")
    if limit.prompt_tokens:
        parts.append(f"本次请求 {limit.prompt_tokens:,} tokens")
    return "，".join(parts) or "服务端没有给出具体数字"


def overflow_error(limit: ContextLimit, retried: bool) -> str:
    example = f"（例如 {limit.window}）" if limit.window else ""
    tried = "，压缩后重试仍未成功" if retried else ""
    setting = knobs.CONTEXT_WINDOW.key
    return OVERFLOW_ERROR.format(figures=limit_figures(limit), tried=tried, setting=setting, example=example)
