"""The ReAct loop: one history, model call -> tool calls -> results, until a final answer (spec 8.1)."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from paicli.agent.budget import AgentBudget, BudgetStatus
from paicli.agent.events import (
    Compacted,
    EventSink,
    ModelCallFinished,
    ModelCallStarted,
    Notice,
    ReasoningDelta,
    RunFinished,
    TextDelta,
)
from paicli.agent.ports import (
    ContextPort,
    LedgerPort,
    MemoryPort,
    NoMemory,
    NullContext,
    NullLedger,
    SystemPromptBuilder,
    ToolRunner,
    TurnTools,
)
from paicli.agent.recorder import HistoryRecorder
from paicli.agent.runaway import RunawayGuard
from paicli.cancel import Cancelled, CancelToken
from paicli.context.types import CompactionResult
from paicli.llm.messages import ChatResponse, Message, Usage
from paicli.llm.protocol import LLMClient, LLMError, StreamDelta
from paicli.tools.skill_load import settle_skill_loads

log = logging.getLogger(__name__)

Placement = Literal["system", "turn"]
CANCELLED_ANSWER = "⏹️ 任务已取消。"
UNEXECUTED_CALL_NOTICE = (
    "⚠ 回答里有一段写成工具调用格式的文字，它并没有被执行（可能本轮没有开放这个工具，或格式无法识别）；"
    "如果那只是你要求展示的示例，可以不用理会。"
)
_CALL_MARKUP = re.compile(r"<\s*/?\s*(?:tool_?calls?|function_?calls?|invoke)\b|tool▁calls?▁begin", re.IGNORECASE)


def looks_like_unexecuted_tool_call(text: str, tool_names: Sequence[str]) -> bool:
    """A final answer that spells out a tool call as text (tag markup, or JSON naming a tool with arguments)."""
    if _CALL_MARKUP.search(text):
        return True
    if not tool_names or not re.search(r'"(?:arguments|parameters|args|input)"\s*:', text):
        return False
    names = "|".join(re.escape(name) for name in tool_names)
    return re.search(rf'"(?:name|tool|tool_name|function)"\s*:\s*"(?:{names})"', text) is not None


def _with_valid_json_arguments(reply: Message) -> Message:
    """The view keeps malformed arguments wrapped in valid JSON: strict providers reject a history whose tool-call
    arguments do not parse, which would fail every later request. The runner still sees (and reports) the raw text."""
    fixed = []
    for call in reply.tool_calls:
        try:
            json.loads(call.arguments)
            fixed.append(call)
        except ValueError:
            fixed.append(replace(call, arguments=json.dumps({"_raw_arguments": call.arguments}, ensure_ascii=False)))
    return replace(reply, tool_calls=tuple(fixed)) if fixed != list(reply.tool_calls) else reply


def _tool_names(definitions: Sequence[dict[str, Any]]) -> list[str]:
    return [str(d.get("function", {}).get("name", "")) for d in definitions if d.get("function")]


@dataclass
class AgentOptions:
    mode: str = "react"
    actor: str = "agent"
    memory_placement: Placement = "turn"
    memory_tokens: int = 640
    budget_factory: Callable[[], AgentBudget] = AgentBudget
    runaway_factory: Callable[[], RunawayGuard] = RunawayGuard
    today: Callable[[], dt.date] = dt.date.today


class ReactAgent:
    """Owns exactly one conversation history; history[0] is the assembled system prompt."""

    def __init__(
        self,
        llm: LLMClient,
        tools: ToolRunner,
        prompt: SystemPromptBuilder,
        *,
        context: ContextPort | None = None,
        ledger: LedgerPort | None = None,
        memory: MemoryPort | None = None,
        options: AgentOptions | None = None,
        on_completed: Callable[[str], None] | None = None,
    ) -> None:
        self.llm = llm
        self.tools = tools
        self.prompt = prompt
        self.context: ContextPort = context or NullContext()
        self.memory: MemoryPort = memory or NoMemory()
        self.options = options or AgentOptions()
        self.recorder = HistoryRecorder(ledger or NullLedger(), self.options.mode, self.options.actor)
        self.on_completed = on_completed
        self.usage_total = Usage()
        self.llm_calls = 0
        self.last_tool_definitions: list[dict[str, Any]] = []
        self._prompt_day = self.options.today()
        self._prompt_stale = False
        self.history: list[Message] = [Message.system(self.prompt.build(""))]
        self.recorder.message("session_attach", self.history[0])

    # ---- public operations -------------------------------------------------------------------------

    def run(
        self, user_input: str, emit: EventSink, cancel: CancelToken, submitted: str | None = None
    ) -> RunFinished:
        """One top-level task. Model and tool failures end in a RunFinished, never an exception."""
        submitted_text = user_input if submitted is None else submitted
        turn = self.tools.for_turn(submitted_text)
        policy_notice = turn.notice()
        if policy_notice:
            emit(Notice(policy_notice))
        self._refresh_system_prompt(user_input)
        user_message = Message.user(self._user_content(user_input))
        self.history.append(user_message)
        self.recorder.message("user_input", user_message, {"submittedInput": submitted_text})
        finished = self._loop(turn, emit, cancel)
        emit(finished)
        if finished.status == "done" and self.on_completed is not None:
            try:
                self.on_completed(submitted_text)
            except Exception:  # a side task must never fail the turn
                log.exception("post-turn hook failed")
        return finished

    def clear(self) -> int:
        """/clear: drop the view, keep long-term memory; the ledger keeps everything."""
        discarded = len(self.history)
        self.context.reset(self.history)
        self.recorder.event("history_clear", "slash_clear", {"discardedViewMessages": discarded})
        self._prompt_day = self.options.today()
        self.history[:] = [Message.system(self.prompt.build(""))]
        self.recorder.message("history_reset", self.history[0])
        self.recorder.checkpoint("slash_clear", self.history)
        return discarded

    def compact_now(self, focus: str | None = None, cancel: CancelToken | None = None) -> CompactionResult:
        result = self.context.compact_now(self.history, focus, cancel)
        self.recorder.compaction(result, self.history, manual=True)
        return result

    def restore(self, messages: Sequence[Message]) -> None:
        """Resume: a fresh system prompt followed by the view rebuilt from a ledger."""
        self.history[:] = [Message.system(self.prompt.build("")), *messages]
        self.recorder.message("session_attach", self.history[0])
        self.recorder.checkpoint("session_resumed", self.history)

    def set_llm(self, llm: LLMClient) -> None:
        self.llm = llm

    def invalidate_system_prompt(self) -> None:
        """A stable prompt part changed (`/skill on|off|reload`): rebuild it before the next turn's call."""
        self._prompt_stale = True

    # ---- phases ------------------------------------------------------------------------------------

    def _refresh_system_prompt(self, query: str) -> None:
        if self.options.memory_placement == "system":
            memory = self.memory.context_for_query(query, self.options.memory_tokens)
            prompt = self.prompt.build(memory)
        else:
            today = self.options.today()
            if today == self._prompt_day and not self._prompt_stale:
                return
            self._prompt_day, self._prompt_stale = today, False
            prompt = self.prompt.build("")
        if prompt != self.history[0].content:
            self.history[0] = Message.system(prompt)
            self.recorder.message("memory_context_refresh", self.history[0])

    def _user_content(self, user_input: str) -> str:
        if self.options.memory_placement != "turn":
            return user_input
        visible = "\n".join(m.text for m in self.history[1:])
        memory = self.memory.context_for_query(user_input, self.options.memory_tokens, visible)
        return f"{memory.rstrip()}\n\n{user_input}" if memory.strip() else user_input

    def _loop(self, turn: TurnTools, emit: EventSink, cancel: CancelToken) -> RunFinished:
        budget = self.options.budget_factory()
        guard = self.options.runaway_factory()
        iteration = 0
        while True:
            if cancel.cancelled:
                return self._cancelled()
            definitions = turn.definitions()
            self.last_tool_definitions = definitions
            self._compact(emit, cancel)
            if cancel.cancelled:
                return self._cancelled()
            status = budget.check()
            if status != BudgetStatus.WITHIN_BUDGET:
                return self._finalize(budget, status, emit, cancel)
            budget.begin_iteration()
            iteration += 1
            try:
                response = self._call_model(definitions or None, iteration, emit, cancel)
            except Cancelled:
                return self._cancelled()
            except LLMError as error:
                return RunFinished("error", "", f"调用模型失败: {error}")
            usage = response.usage
            if usage is not None:
                budget.record_usage(usage.prompt_tokens, usage.completion_tokens)
            reply = response.message
            if not reply.tool_calls:
                if looks_like_unexecuted_tool_call(reply.content or "", _tool_names(definitions)):
                    emit(Notice(UNEXECUTED_CALL_NOTICE, "warn"))
                return self._final_answer(reply)
            budget.record_tool_calls(reply.tool_calls)
            self._run_tools(turn, reply, guard, emit, cancel)
            if cancel.cancelled:
                return self._cancelled()

    def _cancelled(self) -> RunFinished:
        self.recorder.event("run_cancelled", "user_cancel", {})
        return RunFinished("cancelled", CANCELLED_ANSWER)

    def _compact(self, emit: EventSink, cancel: CancelToken) -> None:
        try:
            result = self.context.before_call(self.history, self.last_tool_definitions or None, cancel)
        except Exception:  # compaction is best effort; the request must still go out
            log.exception("compaction check failed")
            return
        if result.steps:
            self.recorder.compaction(result, self.history, manual=False)
            emit(Compacted(result))

    def _call_model(
        self, tools: list[dict[str, Any]] | None, iteration: int, emit: EventSink, cancel: CancelToken
    ) -> ChatResponse:
        emit(ModelCallStarted(iteration, self.options.actor))

        def on_delta(delta: StreamDelta) -> None:
            if delta.kind == "text":
                emit(TextDelta(delta.text))
            elif delta.kind == "reasoning":
                emit(ReasoningDelta(delta.text))

        response = self.llm.chat(self.history, tools, on_delta=on_delta, cancel=cancel)
        self._account(response, tools)
        emit(ModelCallFinished(response.usage, response.model or self.llm.model, self.options.actor))
        return response

    def _account(self, response: ChatResponse, tools: list[dict[str, Any]] | None) -> None:
        self.llm_calls += 1
        if response.usage is not None:
            self.usage_total = self.usage_total + response.usage
        try:
            self.context.after_response(self.history, tools, response.usage)
        except Exception:
            log.exception("token calibration failed")

    def _run_tools(
        self, turn: TurnTools, reply: Message, guard: RunawayGuard, emit: EventSink, cancel: CancelToken
    ) -> None:
        reply = self._with_unique_call_ids(reply)
        stored = _with_valid_json_arguments(reply)
        self.history.append(stored)
        self.recorder.message("llm_response", stored)
        missing = "❌ 工具没有返回结果，本次调用未完成。"
        try:
            results = turn.execute(reply.tool_calls, cancel, emit)
        except Exception as error:  # runners must not raise; if one does, every call still gets an answer
            log.exception("tool runner failed")
            results = []
            missing = f"❌ 工具执行失败: {type(error).__name__}: {error}"
        results, injections = settle_skill_loads(self.history, results)
        by_id = {r.call_id: r for r in results}
        for call in reply.tool_calls:
            result = by_id.get(call.id)
            if result is not None:
                content = result.content
            else:
                content = "用户取消了该工具调用，未执行。" if cancel.cancelled else missing
            tool_message = Message.tool(call.id, content)
            self.history.append(tool_message)
            self.recorder.message("tool_execution", tool_message)
        for injection in injections:  # load_skill: the skill text follows the tool results (spec 7.5)
            self.history.append(injection)
            self.recorder.message("skill_injection", injection)
        reminder = guard.observe_step(results, reply.tool_calls)
        if reminder:
            reminder_message = Message.user(reminder)
            self.history.append(reminder_message)
            self.recorder.message("runaway_reminder", reminder_message)
            emit(Notice("↻ 模型在重复同样的工具调用，已提醒它换个办法", "warn"))

    def _with_unique_call_ids(self, reply: Message) -> Message:
        """Providers that number calls per response (`call_0` every time) would repeat ids across the
        history, which strict endpoints reject; a repeated id gets a suffix before the call is recorded."""
        used = {call.id for message in self.history for call in message.tool_calls}
        if not any(call.id in used for call in reply.tool_calls):
            return reply
        calls = tuple(
            replace(call, id=f"{call.id}_{uuid.uuid4().hex[:8]}") if call.id in used else call
            for call in reply.tool_calls
        )
        return replace(reply, tool_calls=calls)

    def _final_answer(self, reply: Message) -> RunFinished:
        self._append_answer(reply, "llm_response")
        return RunFinished("done", reply.content or "")

    def _finalize(
        self, budget: AgentBudget, status: BudgetStatus, emit: EventSink, cancel: CancelToken
    ) -> RunFinished:
        reason = budget.describe_exit(status)
        emit(Notice("⚠️ 已到执行预算上限，停止调用工具，正在整理已有结果", "warn"))
        instruction = Message.user(budget.finalization_instruction(status))
        self.history.append(instruction)
        self.recorder.message("budget_finalization", instruction)
        header = f"⚠️ 部分完成（{reason}）"
        try:
            response = self._call_model(None, 0, emit, cancel)
        except Cancelled:
            self._append_answer(Message.assistant(header), "budget_finalization_response")
            return self._cancelled()
        except LLMError as error:
            self._append_answer(Message.assistant(header), "budget_finalization_response")
            return RunFinished("partial", f"{header}\n\n整理结果时调用模型失败：{error}")
        content = response.message.content or ""
        reply = response.message if content else Message.assistant(header)
        self._append_answer(reply, "budget_finalization_response")
        return RunFinished("partial", f"{header}\n\n{content}".rstrip())

    def _append_answer(self, reply: Message, source: str) -> None:
        """The ledger keeps the full reply (reasoning included); the view keeps only its text."""
        self.recorder.message(source, reply)
        self.history.append(Message.assistant(reply.content or ""))
