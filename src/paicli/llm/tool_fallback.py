"""Models that reject `tools` (many local models): found on the first such error, then the session goes on
without tools, saying so once. The system prompt sent to such a model carries the no-tools section instead of
the tool sections (spec 7.1, `ctx.toolsEnabled == false`); the rewrite is injected so llm/ stays free of prompt/.

A server can also drop `tools` without a word (a chat template that does not render them): the first reply's
prompt count then cannot hold the definitions that were sent. That is checked once per model (llm/dropped.py)
and ends in the same fallback, with a line naming the chat template.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from paicli.cancel import CancelToken
from paicli.lazyre import lazy_pattern
from paicli.llm.dropped import DROPPED_TOOLS_NOTICE, PromptSize, same_prompt, suspicious
from paicli.llm.messages import ChatResponse, Message
from paicli.llm.protocol import DeltaCallback, LLMClient, LLMError

NO_TOOLS_NOTICE = (
    "⚠️ 模型 {model} 不支持工具调用，本次会话改为纯对话：它不能读写文件或运行命令。"
    "需要工具时请用 /model 或 paicli --setup 换用支持工具的模型。"
)

# What servers say when a model cannot take `tools`: Ollama "does not support tools", llama.cpp "tools param
# requires --jinja flag", vLLM "auto" tool choice requires ..., OpenAI-style "Unrecognized ... argument: tools",
# "does not support Function Calling". A message about a `tool` *message* (a pairing error) does not match.
_TOOLS_REJECTED = lazy_pattern(  # compiled with the first refusal
    r"\btools\b|tool[ _]choice|function[ _]?call(?:ing)?\b|tool[ _]?(?:use|calling)\b", re.IGNORECASE
)


def rejects_tools(error: LLMError) -> bool:
    return error.status in (400, 422) and bool(_TOOLS_REJECTED().search(str(error)))


class ToolSupport:
    """Shared by every client of one session: which models refused tools, and the one-time notice."""

    def __init__(
        self,
        rewrite_system: Callable[[str], str],
        notify: Callable[[str], None] | None = None,
        size: PromptSize | None = None,
        exact: PromptSize | None = None,
    ) -> None:
        self._rewrite = rewrite_system
        self.notify = notify
        # local token counts, to see a server that drops `tools` (None: never checked): a cheap estimate first,
        # the exact count only when the server's figure falls below it
        self.size = size
        self.exact = exact or size
        self._rejected: set[str] = set()
        self._checked: set[str] = set()
        self._lock = threading.Lock()

    def rejected(self, model: str) -> bool:
        with self._lock:
            return model in self._rejected

    def mark(self, model: str, notice: str = NO_TOOLS_NOTICE) -> None:
        with self._lock:
            first = model not in self._rejected
            self._rejected.add(model)
        if first and self.notify is not None:
            self.notify(notice.format(model=model))

    def take_check(self, model: str) -> bool:
        """True once per model: whether its first reply with a prompt count should be checked for dropped tools."""
        with self._lock:
            if self.size is None or model in self._checked:
                return False
            self._checked.add(model)
            return True

    def without_tools(self, messages: Sequence[Message]) -> list[Message]:
        adapted = list(messages)
        if adapted and adapted[0].role == "system":
            adapted[0] = Message.system(self._rewrite(adapted[0].content or ""))
        return adapted


class ToolFallbackClient:
    """An `LLMClient` that retries a tools-rejecting request once without tools, and from then on sends none."""

    def __init__(self, inner: LLMClient, support: ToolSupport, check_dropped: bool = True) -> None:
        self._inner = inner
        self._support = support
        self._check = check_dropped  # local servers: their chat template may drop tools (cloud APIs do not)

    @property
    def model(self) -> str:
        return self._inner.model

    @property
    def inner(self) -> LLMClient:
        return self._inner

    def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        on_delta: DeltaCallback | None = None,
        cancel: CancelToken | None = None,
        tool_choice: str | None = None,
        max_tokens: int | None = None,
    ) -> ChatResponse:
        model = self._inner.model
        if tools and not self._support.rejected(model):
            try:
                response = self._inner.chat(
                    messages,
                    tools,
                    on_delta=on_delta,
                    cancel=cancel,
                    tool_choice=tool_choice,
                    max_tokens=max_tokens,
                )
            except LLMError as error:
                if not rejects_tools(error):
                    raise
                self._support.mark(model)
            else:
                self._check_dropped(messages, tools, response, cancel)
                return response
        if self._support.rejected(model):
            return self._inner.chat(
                self._support.without_tools(messages),
                None,
                on_delta=on_delta,
                cancel=cancel,
                max_tokens=max_tokens,
            )
        return self._inner.chat(
            messages, tools, on_delta=on_delta, cancel=cancel, tool_choice=tool_choice, max_tokens=max_tokens
        )

    def _check_dropped(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        response: ChatResponse,
        cancel: CancelToken | None,
    ) -> None:
        """The first reply with a prompt count: a count too small for the tools sent is confirmed by the same
        request without tools (one output token); the same count means the server never rendered them."""
        size, usage = self._support.size, response.usage
        if not self._check or size is None or usage is None or usage.prompt_tokens <= 0:
            return
        model = self._inner.model
        if not self._support.take_check(model):
            return
        if usage.prompt_tokens >= size.count_messages(messages) + size.count_tools(tools):
            return  # at least the estimate of everything sent: the tools were counted
        exact = self._support.exact or size
        tool_tokens = exact.count_tools(tools)
        if not suspicious(usage.prompt_tokens, exact.count_messages(messages), tool_tokens):
            return
        try:
            bare = self._inner.chat(messages, None, cancel=cancel, max_tokens=1)
        except LLMError:
            return  # no verdict: the tools stay
        if bare.usage is not None and same_prompt(usage.prompt_tokens, bare.usage.prompt_tokens):
            notice = DROPPED_TOOLS_NOTICE.format(
                model="{model}", prompt=usage.prompt_tokens, tools=tool_tokens
            )
            self._support.mark(model, notice)

    def with_model(self, model: str) -> ToolFallbackClient:
        return ToolFallbackClient(self._inner.with_model(model), self._support, self._check)

    def __getattr__(self, name: str) -> Any:  # prewarm, options, ... of the wrapped client
        return getattr(self._inner, name)
