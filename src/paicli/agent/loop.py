"""The one model-call -> tool-calls -> results loop (spec 8.1 6a-g, 8.2, 8.3), run over a Conversation.

ReAct, every Plan task and every Team sub-agent run this loop; what differs between them is LoopOptions.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from paicli.agent.budget import AgentBudget, BudgetStatus
from paicli.agent.conversation import Conversation
from paicli.agent.events import (
    Compacted,
    CompactionStarted,
    EventSink,
    ModelCallFinished,
    ModelCallStarted,
    Notice,
    ReasoningDelta,
    RunFinished,
    TextDelta,
)
from paicli.agent.output_limits import (
    CONTINUING_NOTICE,
    CUT_CALLS_NOTICE,
    OVERFLOW_RETRY_NOTICE,
    continuation_request,
    cut_call_results,
    joined,
    limit_figures,
    overflow_error,
    truncated_notice,
    was_cut,
)
from paicli.agent.ports import TurnTools
from paicli.agent.runaway import RunawayGuard, inner_text
from paicli.agent.tool_images import TOOL_IMAGE_SOURCE, tool_image_messages
from paicli.cancel import Cancelled, CancelToken
from paicli.llm.messages import ChatResponse, Message, Usage
from paicli.llm.protocol import ContextLimit, LLMClient, LLMError, StreamDelta
from paicli.prompt.tool_list import with_tool_list
from paicli.session.ledger_keys import OUTCOME_KEY
from paicli.tools.base import CANCELLED_PREFIX, ToolOutcome, ToolResult
from paicli.tools.skill_load import settle_skill_loads

log = logging.getLogger(__name__)

CANCELLED_ANSWER = "⏹️ 任务已取消。"
BUDGET_NOTICE = "⚠️ 已到执行预算上限，停止调用工具，正在整理已有结果"
UNEXECUTED_CALL_NOTICE = (
    "⚠ 回答里有一段写成工具调用格式的文字，它并没有被执行（可能本轮没有开放这个工具，或格式无法识别）；"
    "如果那只是你要求展示的示例，可以不用理会。"
)
RUNAWAY_NOTICE = "↻ 模型在重复同样的工具调用，已提醒它换个办法"
TOOL_LIST_SOURCE = "tool_list_refresh"
DIAGNOSTICS_SOURCE = "lsp_diagnostics"  # the system prompt's tool list now names the request's tools
_CALL_MARKUP = re.compile(
    r"<\s*/?\s*(?:tool_?calls?|function_?calls?|invoke)\b|tool▁calls?▁begin", re.IGNORECASE
)


def looks_like_unexecuted_tool_call(text: str, tool_names: Sequence[str]) -> bool:
    """A final answer that spells out a tool call as text (tag markup, or JSON naming a tool with arguments)."""
    if _CALL_MARKUP.search(text):
        return True
    if not tool_names or not re.search(r'"(?:arguments|parameters|args|input)"\s*:', text):
        return False
    names = "|".join(re.escape(name) for name in tool_names)
    return re.search(rf'"(?:name|tool|tool_name|function)"\s*:\s*"(?:{names})"', text) is not None


def with_valid_json_arguments(reply: Message) -> Message:
    """The view keeps malformed arguments wrapped in valid JSON: strict providers reject a history whose tool-call
    arguments do not parse, which would fail every later request. The runner still sees (and reports) the raw text."""
    fixed = []
    for call in reply.tool_calls:
        try:
            json.loads(call.arguments)
            fixed.append(call)
        except ValueError:
            fixed.append(
                replace(call, arguments=json.dumps({"_raw_arguments": call.arguments}, ensure_ascii=False))
            )
    return replace(reply, tool_calls=tuple(fixed)) if fixed != list(reply.tool_calls) else reply


def tool_names(definitions: Sequence[dict[str, Any]]) -> list[str]:
    return [str(d.get("function", {}).get("name", "")) for d in definitions if d.get("function")]


@dataclass(frozen=True)
class LoopOptions:
    """Per-mode differences of the loop (ReAct defaults)."""

    budget_factory: Callable[[], AgentBudget] = AgentBudget
    runaway_factory: Callable[[], RunawayGuard] = RunawayGuard
    blank_answer_fallback: bool = False  # Plan tasks: a blank final answer after tools returns their results
    budget_notice: str = BUDGET_NOTICE
    continuations: int = 2  # a text answer cut by the output limit is continued at most this often
    images: bool = False  # the model takes images: those tools return follow their results
    # before each model call: language-server diagnostics of the files just written (text for the model, a
    # line for the person), injected as a user message with source `lsp_diagnostics` (spec 8.1 6b)
    diagnostics: Callable[[], tuple[str, str] | None] | None = None


@dataclass
class LoopStats:
    """Accounting shared by every conversation of a session; safe to update from parallel tasks."""

    usage_total: Usage = field(default_factory=Usage)
    llm_calls: int = 0
    last_tool_definitions: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, usage: Usage | None) -> None:
        with self.lock:
            self.llm_calls += 1
            if usage is not None:
                self.usage_total = self.usage_total + usage


class ToolLoop:
    """One run of the loop over one conversation; build a new one per run (budget and guard are per run)."""

    def __init__(
        self,
        conversation: Conversation,
        llm: LLMClient,
        turn: TurnTools,
        emit: EventSink,
        cancel: CancelToken,
        options: LoopOptions | None = None,
        stats: LoopStats | None = None,
    ) -> None:
        self.conversation = conversation
        self.llm = llm
        self.turn = turn
        self.emit = emit
        self.cancel = cancel
        self.options = options or LoopOptions()
        self.stats = stats or LoopStats()
        self.tool_texts: list[str] = []
        self._overflow_retried = False

    def run(self) -> RunFinished:
        budget = self.options.budget_factory()
        guard = self.options.runaway_factory()
        iteration = 0
        while True:
            if self.cancel.cancelled:
                return self.cancelled()
            self._inject_diagnostics()
            definitions = self.turn.definitions()
            self.stats.last_tool_definitions = definitions
            self._name_tools(definitions)
            stop = self._compact(definitions)
            if self.cancel.cancelled:
                return self.cancelled()
            if stop is not None:  # the request would not fit and must not be sent (automatic compaction off)
                return RunFinished("error", "", stop)
            status = budget.check()
            if status != BudgetStatus.WITHIN_BUDGET:
                return self._finalize(budget, status)
            budget.begin_iteration()
            iteration += 1
            try:
                response = self.call_model(definitions or None, iteration)
                response = self._continue_cut_answer(response, definitions or None, iteration)
            except Cancelled:
                return self.cancelled()
            except LLMError as error:
                return self._model_failed(error)
            if response.usage is not None:
                budget.record_usage(response.usage.prompt_tokens, response.usage.completion_tokens)
            reply = response.message
            if not reply.tool_calls:
                if looks_like_unexecuted_tool_call(reply.content or "", tool_names(definitions)):
                    self.emit(Notice(UNEXECUTED_CALL_NOTICE, "warn"))
                return self._final_answer(reply, was_cut(response))
            budget.record_tool_calls(reply.tool_calls)
            if was_cut(response):
                self._refuse_cut_calls(reply)
                continue
            self._run_tools(reply, guard)
            if self.cancel.cancelled:
                return self.cancelled()

    def cancelled(self) -> RunFinished:
        self.conversation.event("run_cancelled", "user_cancel", {})
        return RunFinished("cancelled", CANCELLED_ANSWER)

    def _inject_diagnostics(self) -> None:
        collect = self.options.diagnostics
        if collect is None:
            return
        try:
            found = collect()
        except Exception:  # diagnostics are a help; the call goes out without them
            log.exception("collecting diagnostics failed")
            return
        if found is not None:
            text, summary = found
            self.conversation.append(Message.user(text), DIAGNOSTICS_SOURCE)
            self.emit(Notice(summary))

    def _name_tools(self, definitions: list[dict[str, Any]]) -> None:
        """The system prompt's `## Tools` list follows the tools the request carries (recorded when it changes)."""
        names = tool_names(definitions)
        if names:
            prompt = self.conversation.system_prompt
            self.conversation.set_system_prompt(with_tool_list(prompt, names), TOOL_LIST_SOURCE)

    def _compact(self, definitions: list[dict[str, Any]]) -> str | None:
        """Compaction before a model call; why the call must not be made, if it must not."""
        self.emit(CompactionStarted(self.conversation.actor))

        def announce(text: str) -> None:
            self.emit(Notice(text))
            self.emit(CompactionStarted(self.conversation.actor))  # the wait goes on: its spinner again

        try:
            result = self.conversation.compact_before_call(
                definitions or None, self.cancel, announce, llm=self.llm
            )
        except Exception:  # compaction is best effort; the request must still go out
            log.exception("compaction check failed")
            return None
        if result.steps:
            self.emit(Compacted(result))
        return result.stop

    def call_model(
        self, tools: list[dict[str, Any]] | None, iteration: int, messages: Sequence[Message] | None = None
    ) -> ChatResponse:
        """One model call over the view (or over `messages`, a continuation). A refusal as too long for the
        server's context is answered once: the server's figures are taken, the view compacted, the call made
        again; a second refusal ends the run."""
        try:
            return self._request(tools, iteration, messages)
        except LLMError as error:
            limit = error.context_limit
            if limit is None or messages is not None or not self._recover(limit, tools):
                raise
            return self._request(tools, iteration, None)

    def _request(
        self, tools: list[dict[str, Any]] | None, iteration: int, messages: Sequence[Message] | None
    ) -> ChatResponse:
        actor = self.conversation.actor
        self.emit(ModelCallStarted(iteration, actor))

        def on_delta(delta: StreamDelta) -> None:
            if delta.kind == "text":
                self.emit(TextDelta(delta.text))
            elif delta.kind == "reasoning":
                self.emit(ReasoningDelta(delta.text))

        view = self.conversation.request_view() if messages is None else messages
        response = self.llm.chat(view, tools, on_delta=on_delta, cancel=self.cancel)
        self.stats.add(response.usage)
        try:
            if messages is None:  # a continuation's count is not the view's
                self.conversation.after_response(tools, response.usage, model=self.llm.model)
        except Exception:
            log.exception("token calibration failed")
        self.emit(ModelCallFinished(response.usage, response.model or self.llm.model, actor))
        return response

    def _recover(self, limit: ContextLimit, tools: list[dict[str, Any]] | None) -> bool:
        """Whether the server's figures let the view be made to fit (then it is compacted for the retry)."""
        if self._overflow_retried or not self.conversation.context_refused(
            limit, tools, model=self.llm.model
        ):
            return False
        self._overflow_retried = True
        self.emit(Notice(OVERFLOW_RETRY_NOTICE.format(figures=limit_figures(limit)), "warn"))
        self._compact(tools or [])
        return True

    def _model_failed(self, error: LLMError) -> RunFinished:
        if error.context_limit is not None:
            text = overflow_error(error.context_limit, self._overflow_retried)
            return RunFinished("error", "", text, overflow=True)
        return RunFinished("error", "", f"调用模型失败: {error}")

    def _continue_cut_answer(
        self, response: ChatResponse, tools: list[dict[str, Any]] | None, iteration: int
    ) -> ChatResponse:
        """A text answer cut by the output limit is continued up to `continuations` times; the parts join."""
        limit, done = self.options.continuations, 0
        while was_cut(response) and not response.message.tool_calls and done < limit:
            done += 1
            self.emit(Notice(CONTINUING_NOTICE.format(n=done, limit=limit), "warn"))
            request = continuation_request(self.conversation.request_view(), response.message)
            try:
                more = self.call_model(tools, iteration, request)
            except LLMError:
                log.warning("continuing a cut answer failed", exc_info=True)
                break  # the part already written stands, marked as cut
            response = joined(response, more)
        if was_cut(response) and not response.message.tool_calls:
            self.emit(Notice(truncated_notice(done), "warn"))
        return response

    def _refuse_cut_calls(self, reply: Message) -> None:
        """A reply cut mid-way may carry a call with half its arguments: none of its calls runs."""
        reply = self._with_unique_call_ids(reply)
        self.conversation.append(with_valid_json_arguments(reply), "llm_response")
        for message in cut_call_results(reply):
            self.conversation.append(message, "tool_execution")
        self.emit(Notice(CUT_CALLS_NOTICE.format(count=len(reply.tool_calls)), "warn"))

    def _run_tools(self, reply: Message, guard: RunawayGuard) -> None:
        reply = self._with_unique_call_ids(reply)
        self.conversation.append(with_valid_json_arguments(reply), "llm_response")
        missing = "❌ 工具没有返回结果，本次调用未完成。"
        try:
            results = self.turn.execute(reply.tool_calls, self.cancel, self.emit)
        except Exception as error:  # runners must not raise; if one does, every call still gets an answer
            log.exception("tool runner failed")
            results = []
            missing = f"❌ 工具执行失败: {type(error).__name__}: {error}"
        results, injections = settle_skill_loads(self.conversation.request_view(), results)
        by_id = {r.call_id: r for r in results}
        for call in reply.tool_calls:
            result = by_id.get(call.id)
            content = result.content if result is not None else self._missing_text(missing)
            outcome = result.outcome if result is not None else self._missing_outcome()
            self.conversation.append(Message.tool(call.id, content), "tool_execution", {OUTCOME_KEY: outcome})
            if self.options.blank_answer_fallback:
                self.tool_texts.append(inner_text(content))
        if self.options.images:
            for framed in tool_image_messages(results):
                self.conversation.append(framed, TOOL_IMAGE_SOURCE)
        for injection in injections:  # load_skill: the skill text follows the tool results (spec 7.5)
            self.conversation.append(injection, "skill_injection")
        self._remind(guard, results, reply)

    def _missing_text(self, missing: str) -> str:
        return f"{CANCELLED_PREFIX}该工具调用，未执行。" if self.cancel.cancelled else missing

    def _missing_outcome(self) -> ToolOutcome:
        return "cancelled" if self.cancel.cancelled else "failed"

    def _remind(self, guard: RunawayGuard, results: Sequence[ToolResult], reply: Message) -> None:
        reminder = guard.observe_step(results, reply.tool_calls)
        if reminder:
            self.conversation.append(Message.user(reminder), "runaway_reminder")
            self.emit(Notice(RUNAWAY_NOTICE, "warn"))

    def _with_unique_call_ids(self, reply: Message) -> Message:
        """Providers that number calls per response (`call_0` every time) would repeat ids across the
        history, which strict endpoints reject; a repeated id gets a suffix before the call is recorded."""
        used = self.conversation.used_call_ids()
        if not any(call.id in used for call in reply.tool_calls):
            return reply
        calls = tuple(
            replace(call, id=f"{call.id}_{uuid.uuid4().hex[:8]}") if call.id in used else call
            for call in reply.tool_calls
        )
        return replace(reply, tool_calls=calls)

    def _final_answer(self, reply: Message, truncated: bool = False) -> RunFinished:
        self.conversation.append_answer(reply, "llm_response")
        answer = reply.content or ""
        if not answer.strip() and self.options.blank_answer_fallback and self.tool_texts:
            answer = "\n\n".join(self.tool_texts)
        return RunFinished("done", answer, truncated=truncated)

    def _finalize(self, budget: AgentBudget, status: BudgetStatus) -> RunFinished:
        reason = budget.describe_exit(status)
        self.emit(Notice(self.options.budget_notice, "warn"))
        self.conversation.append(Message.user(budget.finalization_instruction(status)), "budget_finalization")
        header = f"⚠️ 部分完成（{reason}）"
        try:
            response = self.call_model(None, 0)
        except Cancelled:
            self.conversation.append_answer(Message.assistant(header), "budget_finalization_response")
            return self.cancelled()
        except LLMError as error:
            self.conversation.append_answer(Message.assistant(header), "budget_finalization_response")
            return RunFinished("partial", f"{header}\n\n整理结果时调用模型失败：{error}")
        content = response.message.content or ""
        reply = response.message if content else Message.assistant(header)
        self.conversation.append_answer(reply, "budget_finalization_response")
        return RunFinished("partial", f"{header}\n\n{content}".rstrip(), truncated=was_cut(response))
