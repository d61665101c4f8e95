"""Level 3 (spec 2.4, 2.5): summarise the turns before a real user message; keep the recent turns verbatim.

Any failure (LLM error, empty or unstructured summary, a rebuilt history that is not smaller) leaves the
history untouched. The split always lands on a real user message, so tool-call pairs are never separated.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paicli.cancel import Cancelled, CancelToken
from paicli.context import prompts, rounds, summary_words
from paicli.context.estimate import utf16_len
from paicli.context.internal import is_internal
from paicli.context.markers import ACKNOWLEDGEMENT as ACKNOWLEDGEMENT
from paicli.context.markers import SUMMARY_PREFIX as SUMMARY_PREFIX
from paicli.context.summary_text import (
    MAX_SUMMARY_INPUT_CHARS,
    has_required_structure,
    real_user_indices,
    rebuild_with_summary,
    render_summary_chunks,
    system_end,
)
from paicli.context.tokens import TokenCounter
from paicli.context.types import CompactionStep, Strategy, SummaryHooks
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient, LLMError

log = logging.getLogger(__name__)

DEFAULT_RETAIN_RECENT_ROUNDS = 3
MAX_PARTIAL_SUMMARY_CHARS = 8_000
SUMMARY_OUTPUT_CAP = 4_096
DEFAULT_WORDS_BUDGET = 2_000
HOLLOW_REASON = "摘要没有写进你说过的任何具体信息（名称、路径、地址、数字等），修复一次后仍然如此"

Measure = Callable[[Sequence[Message]], int]


class SummaryError(Exception):
    """A summary could not be produced; the message says why (shown to the user)."""


@dataclass(frozen=True)
class SummaryOutcome:
    compacted: bool
    before_messages: int = 0
    after_messages: int = 0
    before_tokens: int = 0
    after_tokens: int = 0
    error: str | None = None

    def step(self, strategy: Strategy) -> CompactionStep:
        return CompactionStep(
            strategy, self.before_messages, self.after_messages, self.before_tokens, self.after_tokens
        )


@dataclass(frozen=True)
class SharedPrefix:
    """Beyond the reference: the start of the request the model last saw (its messages up to the cut, and its
    tool definitions). A summary request that begins with exactly these is served from the provider's prefix
    cache, so only the instruction and the summary itself are paid for in full."""

    messages: tuple[Message, ...]
    tools: tuple[Mapping[str, Any], ...]


_CLIENT_ERRORS = frozenset({400, 404, 405, 415, 422})


class ConversationHistoryCompactor:
    # max_tokens of every summary request: a summary has to fit the room kept for it (the manager sizes it
    # from the window), and a model that never stops must not run until the server's context is full
    max_output_tokens = SUMMARY_OUTPUT_CAP

    def __init__(
        self,
        counter: TokenCounter | None = None,
        retain_recent_rounds: int = DEFAULT_RETAIN_RECENT_ROUNDS,
        *,
        summary_model: str | None = None,
        measure: Measure | None = None,
        pinned: Callable[[], str] | None = None,
        inline: bool = True,
        words_check: bool = False,
        hooks: SummaryHooks | None = None,
    ) -> None:
        """`inline`: a summary request may start with the request the model last saw (False: the transcript,
        as the setting can ask). `words_check` (beyond the reference; the paicli profile): a summary is checked
        against the user's words it replaces, and what it misses is carried beside it within `words_budget`.
        The model is not held: each `compact` is given the client of the call it serves."""
        self._llm: LLMClient | None = None  # the client of the summary in progress (`compact`)
        self._summary_model = summary_model
        self.retain = max(1, retain_recent_rounds)
        counter = counter or TokenCounter("heuristic")
        self._measure: Measure = measure or counter.count_messages
        self.calls = 0  # summary-model requests made, for tests and the bench
        self.max_input_chars = MAX_SUMMARY_INPUT_CHARS  # the manager lowers it for small windows
        self.inline_enabled = inline
        self._cancel: CancelToken | None = None
        self._prefix: SharedPrefix | None = None
        self.words_check = words_check
        self.words_budget = DEFAULT_WORDS_BUDGET
        # the pin block: what it holds a summary need not carry
        self.pinned: Callable[[], str] = pinned if pinned is not None else (lambda: "")
        self._hooks = hooks if hooks is not None else SummaryHooks()  # PreCompact / PostCompact

    def compact_now(self, history: list[Message], focus: str | None = None, *, llm: LLMClient | None) -> bool:
        return self.compact(history, 0, True, 1, focus, llm=llm).compacted

    def compact(
        self,
        history: list[Message],
        trigger: int,
        force: bool,
        retain: int,
        focus: str | None = None,
        cancel: CancelToken | None = None,
        cut: int | None = None,
        prefix: SharedPrefix | None = None,
        *,
        llm: LLMClient | None,
    ) -> SummaryOutcome:
        """`cut` (from rounds.choose_cut) overrides `retain`: the tail from there on is kept verbatim. With a
        `prefix` covering everything before the split, the summary request starts with it (see SharedPrefix);
        otherwise the old messages are rendered as text (the reference). `llm`: the client of the call this
        summary serves (None: no model, so no summary)."""
        self._llm, self._cancel, self._prefix = llm, cancel, prefix
        try:
            return self._compact(history, trigger, force, retain, focus, cut)
        finally:
            self._llm, self._cancel, self._prefix = None, None, None

    def _compact(
        self,
        history: list[Message],
        trigger: int,
        force: bool,
        retain: int,
        focus: str | None,
        cut: int | None,
    ) -> SummaryOutcome:
        if not history:
            return SummaryOutcome(False)
        before = self._measure(history)
        if not force and before < trigger:
            return SummaryOutcome(False, len(history), len(history), before, before)
        start = system_end(history)
        if cut is None:
            users = real_user_indices(history, start)
            retain = max(1, retain)
            if len(users) <= retain or users[len(users) - retain] <= start:
                return SummaryOutcome(False, len(history), len(history), before, before)
            split_idx = users[len(users) - retain]
        else:
            split_idx = cut
        old = [m for m in rounds.removed(history, split_idx) if not is_internal(m)]
        if not old:
            return SummaryOutcome(False, len(history), len(history), before, before)
        focus = self._hooks.focus(focus)
        try:
            inline = self._usable_prefix(history, split_idx)
            summary = self.summarize_inline(inline, old, focus) if inline else self.summarize(old, focus)
        except SummaryError as exc:
            return self._abandon(history, before, str(exc))
        if not summary or not summary.strip():
            return self._abandon(history, before, "摘要模型返回了空内容")
        if self.words_check:
            kept = self._keep_words(summary, old)
            if kept.text is None:
                return self._abandon(history, before, HOLLOW_REASON)
            summary = kept.text
        rebuilt = rebuild_with_summary(history, split_idx, f"{SUMMARY_PREFIX}\n{summary.strip()}")
        after = self._measure(rebuilt)
        if after >= before:
            return self._abandon(history, before, f"摘要没有让上下文变小（{before} → {after} tokens）")
        before_messages = len(history)
        history[:] = rebuilt
        self._hooks.after()
        return SummaryOutcome(True, before_messages, len(history), before, after)

    def _keep_words(self, summary: str, old: Sequence[Message]) -> summary_words.Kept:
        """Beyond the reference: the summary checked against the user's words it replaces (summary_words)."""

        def repair(prompt: str) -> str:
            try:
                return self._request(prompt)
            except SummaryError as exc:  # no repair: what is missing is carried beside the summary
                log.warning("summary repair for the user's words failed: %s", exc)
                return ""

        def size(text: str) -> int:
            return self._measure([Message.user(text)]) - self._measure([Message.user("")])

        kept = summary_words.keep_words(
            summary.strip(), old, repair, has_required_structure, self.words_budget, size, self.pinned()
        )
        if kept.check.missing:
            log.info(
                "summary misses %d of the user's %d values", len(kept.check.missing), len(kept.check.values)
            )
        return kept

    @staticmethod
    def _abandon(history: Sequence[Message], before: int, reason: str) -> SummaryOutcome:
        log.warning("history compaction abandoned: %s", reason)
        return SummaryOutcome(False, len(history), len(history), before, before, reason)

    # -- the summary itself ---------------------------------------------------------------------------

    def _usable_prefix(self, history: Sequence[Message], split_idx: int) -> SharedPrefix | None:
        """The shared prefix, cut at the split, when it is the same conversation (same roles and tool-call ids
        up to the split) and the summary goes to the session model (another model has no cache to share)."""
        prefix = self._prefix
        if (
            prefix is None
            or not self.inline_enabled
            or self._summary_model
            or len(prefix.messages) < split_idx
        ):
            return None
        for sent, current in zip(prefix.messages[:split_idx], history[:split_idx], strict=True):
            if sent.role != current.role or sent.tool_call_id != current.tool_call_id:
                return None
        return SharedPrefix(prefix.messages[:split_idx], prefix.tools)

    def summarize_inline(
        self, prefix: SharedPrefix, old: Sequence[Message], focus: str | None = None
    ) -> str | None:
        """One request: the shared prefix, then the summary instruction; tools are sent but may not be called.
        A provider that refuses the form (a 4xx client error) or ignores `tool_choice` (answers with tool calls)
        gets the reference's transcript, at once and from then on."""
        if self._llm is None:
            raise SummaryError("没有可用的模型来生成摘要")
        focus_text = prompts.render("focus.md", focus=focus.strip()) if focus and focus.strip() else ""
        conversation = [*prefix.messages, Message.user(prompts.render("summary-inline.md", focus=focus_text))]
        self.calls += 1
        try:
            response = self._llm.chat(
                conversation,
                list(prefix.tools) or None,
                cancel=self._cancel,
                tool_choice="none",
                max_tokens=self.max_output_tokens,
            )
        except Cancelled as exc:
            raise SummaryError("摘要已取消") from exc
        except LLMError as exc:
            if exc.status in _CLIENT_ERRORS:
                log.warning("summary request with the shared prefix refused (%s); using the transcript", exc)
                self.inline_enabled = False
                return self.summarize(old, focus)
            raise SummaryError(f"摘要模型调用失败：{exc}") from exc
        except Exception as exc:  # provider errors of any kind abort the summary, never the turn
            raise SummaryError(f"摘要模型调用失败：{exc}") from exc
        if response.message.tool_calls and not (response.message.content or "").strip():
            # The provider ignored tool_choice: the transcript form carries no tools to call.
            log.warning(
                "summary request with the shared prefix answered with tool calls; using the transcript"
            )
            self.inline_enabled = False
            return self.summarize(old, focus)
        return self._ensure_structured(response.message.content or "")

    def summarize(self, messages: Sequence[Message], focus: str | None = None) -> str | None:
        if self._llm is None:
            raise SummaryError("没有可用的模型来生成摘要")
        chunks = render_summary_chunks(messages, self.max_input_chars)
        if not chunks:
            return None
        focus_text = prompts.render("focus.md", focus=focus.strip()) if focus and focus.strip() else ""
        if len(chunks) == 1:
            draft = self._request(prompts.render("summary.md", focus=focus_text, conversation=chunks[0]))
            return self._ensure_structured(draft)
        partials = [
            self._bounded(
                self._request(
                    prompts.render("chunk.md", index=str(i), total=str(len(chunks)), conversation=c)
                )
            )
            for i, c in enumerate(chunks, start=1)
        ]
        return self._ensure_structured(self._merge_all(partials, focus_text))

    def _merge_all(self, partials: list[str], focus_text: str) -> str:
        while True:
            merged: list[str] = []
            group = ""
            for number, partial in enumerate(partials, start=1):
                item = f"\n--- 片段 {number} ---\n{partial}\n"
                if group and utf16_len(group) + utf16_len(item) > self.max_input_chars:
                    merged.append(self._merge(group, focus_text))
                    group = ""
                group += item
            if group:
                merged.append(self._merge(group, focus_text))
            if len(merged) == 1:
                return merged[0]
            if len(merged) >= len(partials):  # no group held two: merging again would never end
                raise SummaryError("分段摘要太长，无法继续合并")
            partials = merged

    def _merge(self, group: str, focus_text: str) -> str:
        return self._bounded(self._request(prompts.render("merge.md", focus=focus_text, summaries=group)))

    @staticmethod
    def _bounded(text: str) -> str:
        if not text.strip() or utf16_len(text) > MAX_PARTIAL_SUMMARY_CHARS:
            raise SummaryError(f"分段摘要为空或超过 {MAX_PARTIAL_SUMMARY_CHARS} 字符上限")
        return text.strip()

    def _ensure_structured(self, draft: str) -> str:
        if has_required_structure(draft):
            return draft
        repaired = self._request(prompts.render("repair.md", summary=draft))
        if has_required_structure(repaired):
            return repaired
        raise SummaryError("摘要缺少必需的四个栏目，修复一次后仍不符合要求")

    def _request(self, prompt: str) -> str:
        assert self._llm is not None
        llm = self._llm.with_model(self._summary_model) if self._summary_model else self._llm
        conversation = [Message.system(prompts.system_text("system.md")), Message.user(prompt)]
        self.calls += 1
        try:
            response = llm.chat(conversation, None, cancel=self._cancel, max_tokens=self.max_output_tokens)
        except Cancelled as exc:
            raise SummaryError("摘要已取消") from exc
        except Exception as exc:  # provider errors of any kind abort the summary, never the turn
            raise SummaryError(f"摘要模型调用失败：{exc}") from exc
        return response.message.content or ""
