"""AppBackend: the real Backend behind the REPL and `-p` — one ReAct agent and its collaborators."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from paicli import __version__
from paicli.agent.budget import AgentBudget
from paicli.agent.events import Compacted, EventSink, Notice, RunFinished
from paicli.agent.ports import MemoryPort
from paicli.agent.react import CANCELLED_ANSWER, AgentOptions, ReactAgent
from paicli.cancel import CancelToken
from paicli.cli import session_commands
from paicli.cli.backend import (
    CommandReply,
    NoticeListener,
    RunMode,
    SessionInfo,
    SessionSummary,
    StatusSnapshot,
)
from paicli.cli.compose import Components, build_llm
from paicli.cli.mentions import attach_mentions
from paicli.cli.warmup import WarmUp, await_warmup
from paicli.config import knobs
from paicli.config.env import ConfigError
from paicli.context.memory_view import TurnMemory
from paicli.context.profile import ContextProfile
from paicli.llm.messages import Message, Usage
from paicli.memory.background import BackgroundExtraction
from paicli.memory.extractor import AutoFactExtractor, saved_message
from paicli.session.resume import ResumeResult
from paicli.tools.disabled import ToolsDisabled

log = logging.getLogger(__name__)
TOKEN_RESERVES = 500 + 800 + 2000


class AppBackend:
    def __init__(
        self,
        parts: Components,
        *,
        max_turns: int | None = None,
        auto_extract: bool | None = None,
        notices: list[str] | None = None,
        count_context: bool = True,
    ) -> None:
        self.parts = parts
        self._count_context = count_context
        self.settings = parts.settings
        self._notices: list[str] = notices if notices is not None else []
        self._notice_lock = threading.Lock()
        self._notice_listener: NoticeListener | None = None
        if parts.tool_support is not None:  # "this model cannot use tools" is said once, like other notices
            parts.tool_support.notify = self._notice
        self._extra_usage = Usage()
        self._extra_calls = 0
        self._phase = "idle"
        self.stdin_context = ""
        self.warmup: WarmUp | None = None  # started by the launcher; the first run waits for it
        env = parts.env
        budget: Callable[[], AgentBudget] = lambda: AgentBudget.configured(knobs.REACT_TOKEN_BUDGET.read(env), knobs.REACT_STAGNATION_WINDOW.read(env), max_turns or knobs.REACT_HARD_MAX_ITERATIONS.read(env))  # noqa: E731
        options = AgentOptions(
            memory_placement=self.settings.memory_placement,
            memory_tokens=parts.profile.memory_context_tokens,
            budget_factory=budget,
        )
        enabled = AutoFactExtractor.enabled_by_configuration(env) if auto_extract is None else auto_extract
        parts.memory.auto_extract_enabled = enabled
        self._extractor = AutoFactExtractor(parts.llm, env)
        parts.memory.extractor = _UsageRecordingExtractor(self._extractor, self._record_side_usage)
        self._background = BackgroundExtraction(self._extract_job)
        memory: MemoryPort = parts.memory
        if self.settings.memory_placement == "turn":  # compaction puts the turn's memories back if it drops them
            memory = parts.compaction.turn_memory = TurnMemory(parts.memory)
        self.agent = ReactAgent(
            parts.llm,
            parts.tools if parts.tools_enabled else ToolsDisabled(),
            parts.prompt,
            context=parts.compaction,
            ledger=parts.ledger,
            memory=memory,
            options=options,
            on_completed=self._after_turn if enabled else None,
        )

    # ---- Backend: information ----------------------------------------------------------------------

    def info(self) -> SessionInfo:
        return SessionInfo(
            __version__,
            self.settings.model,
            self.settings.provider,
            self.parts.profile.window,
            self.parts.ledger.session_id,
            str(self.settings.project_root),
            self.parts.profile.cache_mode,
            skills=self.parts.skills.summary(),
        )

    def status(self) -> StatusSnapshot:
        usage = self.agent.usage_total + self._extra_usage
        history = list(self.agent.history)
        tools = self.agent.last_tool_definitions or None
        context_tokens = 0
        if self._count_context and len(history) > 1:  # one-shot runs skip it: it would load the tokenizer
            context_tokens = self.parts.counter.count_request(history, tools)
        return StatusSnapshot(
            model=self.settings.model,
            context_tokens=context_tokens,
            context_window=self.parts.profile.window,
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            cached_tokens=usage.cached_tokens,
            mode=self.parts.approval.label(),
            phase=self._phase,
            model_calls=self.agent.llm_calls,
            last_provider_prompt_tokens=self.parts.counter.last_provider_prompt_tokens,
        )

    # ---- Backend: running --------------------------------------------------------------------------

    def supports_mode(self, mode: RunMode) -> bool:
        return mode == "react"

    def run(self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        if not self.supports_mode(mode):
            finished = RunFinished("error", "", "Plan / Team 模式还没有在 paicli 中实现，请先用默认的 ReAct 模式。")
            emit(finished)
            return finished
        self._phase = "running"
        try:
            expanded, notes = attach_mentions(text, self.settings.project_root)
            for level, note in notes:
                emit(Notice(note, "warn" if level == "warn" else "info"))
            if self.stdin_context:
                expanded += f"\n\n以下是通过标准输入传入的内容：\n{self.stdin_context}"
            if not await_warmup(self.warmup, emit, cancel):
                finished = RunFinished("cancelled", CANCELLED_ANSWER)
                emit(finished)
                return finished
            self._before_model_call(text, expanded, emit)
            return self.agent.run(expanded, emit, cancel, submitted=text)
        except Exception as exc:  # the front end must always get a RunFinished
            log.exception("run failed")
            finished = RunFinished("error", "", f"任务出错: {exc}")
            emit(finished)
            return finished
        finally:
            self._phase = "idle"

    def _before_model_call(self, submitted: str, expanded: str, emit: EventSink) -> None:
        """Spec 5.5 / 5.7: an expanded MCP resource marks external content; an explicit request to reuse the
        logged-in Chrome is remembered globally (unless external content was read)."""
        from paicli.memory.guard import apply_explicit_memory_hints

        self.parts.tracker.observe_user_input(expanded)
        recent = [m.text for m in self.agent.history[1:][-10:]]
        saved = apply_explicit_memory_hints(self.parts.memory, self.parts.tracker, submitted, recent)
        if saved:
            emit(Notice(f"🧠 已记入长期记忆（全局）：{saved}"))

    # ---- Backend: commands --------------------------------------------------------------------------

    def clear(self) -> CommandReply:
        self.agent.clear()
        self.parts.tools.reset_session()
        return CommandReply("🗑️ 已清空当前对话历史；长期记忆不受影响。")

    def compact(self, focus: str | None, emit: EventSink, cancel: CancelToken | None = None) -> CommandReply:
        self._phase = "compacting"
        try:
            result = self.agent.compact_now(focus, cancel)
        finally:
            self._phase = "idle"
        if result.error:
            return CommandReply(f"❌ 压缩没有完成: {result.error}", ok=False)
        if not result.steps:
            return CommandReply("📭 对话还很短，暂时没有可以压缩的内容")
        emit(Compacted(result, manual=True))
        schema = self.parts.counter.count_tools(self.agent.last_tool_definitions or None)
        before, after = result.before_tokens + schema, result.after_tokens + schema
        return CommandReply(f"📦 上下文已压缩: {before:,} -> {after:,} tokens")

    def context_report(self) -> CommandReply:
        from paicli.context.status import render_context_report

        usage = self.agent.usage_total + self._extra_usage
        hit = usage.cached_tokens / usage.prompt_tokens if usage.prompt_tokens else None
        report = self.parts.compaction.context_report(
            list(self.agent.history), self._tool_definitions(), provider=self.settings.provider, cache_hit_ratio=hit
        )
        return CommandReply(render_context_report(report, self._memory_status()))

    def _tool_definitions(self) -> list[dict[str, object]]:
        if not self.parts.tools_enabled:
            return []
        return self.agent.last_tool_definitions or self.parts.tools.definitions()

    def token_usage_line(self) -> str:
        usage = self.agent.usage_total + self._extra_usage
        calls = self.agent.llm_calls + self._extra_calls
        average = usage.prompt_tokens / calls if calls else 0.0
        window = self.parts.profile.window
        return (
            f"Token 统计: 调用 {calls} 次 | 总输入: {usage.prompt_tokens} | 总输出: {usage.completion_tokens} | "
            f"cached: {usage.cached_tokens} | 平均输入: {average:.0f} | 预算: {window} (可用: {window - TOKEN_RESERVES})"
        )

    def _memory_status(self) -> str:
        from paicli.memory.commands import status_text

        return status_text(self.parts.memory, self.parts.profile.summary(), self.token_usage_line())

    def memory(self, args: str) -> CommandReply:
        from paicli.memory.commands import parse_memory_args, run_memory_command

        command = parse_memory_args(args)
        text = run_memory_command(self.parts.memory, command, self.parts.profile.summary(), self.token_usage_line())
        return CommandReply(text, ok=not text.startswith("❌"))

    def save(self, args: str) -> CommandReply:
        from paicli.memory.commands import parse_save_args, run_save

        text = run_save(self.parts.memory, parse_save_args(args))
        return CommandReply(text, ok=not text.startswith("❌"))

    def model(self, args: str) -> CommandReply:
        spec = args.strip()
        if not spec:
            available = "、".join(self.settings.available_providers) or self.settings.provider
            return CommandReply(
                f"🤖 正在使用的模型: {self.settings.describe()}\n"
                f"   上下文窗口: {self.parts.profile.window:,} tokens\n"
                f"   切换: /model <provider | model-id | provider/model-id>（已配置: {available}）"
            )
        try:
            settings = self.settings.with_model(spec)
        except ConfigError as exc:
            return CommandReply(f"❌ 无法切换模型: {exc}", ok=False)
        self._switch(settings)
        return CommandReply(
            f"✅ 已切换到 {settings.describe()}，上下文窗口 {self.parts.profile.window:,} tokens"
        )

    def _switch(self, settings: object) -> None:
        from paicli.config.settings import Settings

        assert isinstance(settings, Settings)
        llm = build_llm(settings, self.parts.tool_support)
        profile = ContextProfile.from_window(settings.context_window, settings.cache_mode)
        self.settings = settings
        self.parts.settings = settings
        self.parts.llm = llm
        self.parts.profile = profile
        self.parts.compaction.set_llm(llm)
        self.parts.compaction.set_profile(profile)
        self.agent.set_llm(llm)
        self.agent.options.memory_tokens = profile.memory_context_tokens
        self._extractor = AutoFactExtractor(llm, self.parts.env)
        self.parts.memory.extractor = _UsageRecordingExtractor(self._extractor, self._record_side_usage)

    def set_mode(self, args: str) -> CommandReply:
        if args.strip().lower() == "plan":
            return CommandReply(
                f"🧭 Plan-and-Execute 模式还没有在 paicli 中实现，会话模式保持 {self.parts.approval.label()}。", ok=False
            )
        return CommandReply(f"🧭 {self.parts.approval.set_mode(args.strip())}")

    def hitl(self, args: str) -> CommandReply:
        return CommandReply(f"🔒 {self.parts.approval.set_hitl(args.strip())}")

    def policy(self) -> CommandReply:
        return CommandReply(self.parts.tools.policy_report())

    def init_project(self, force: bool, emit: EventSink, cancel: CancelToken) -> CommandReply:
        from paicli.memory.project import run_init

        text = run_init(self.settings.project_root, self.parts.llm, "--force" if force else "", cancel)
        return CommandReply(text, ok=not text.startswith("❌"))

    # /skill /config /audit /export: handlers live in cli/session_commands.py
    def skill(self, args: str) -> CommandReply:
        before = self.parts.skills.index_text()
        reply = session_commands.skill_command(self.parts.skills, args)
        if self.parts.skills.index_text() != before:
            self.agent.invalidate_system_prompt()
        return reply

    def config_report(self) -> CommandReply:
        return CommandReply(session_commands.config_report(self.settings, self.parts.env))

    def audit(self, args: str) -> CommandReply:
        return session_commands.audit_command(self.parts.tools.audit, args)

    def export(self, args: str) -> CommandReply:
        return session_commands.export_command(
            list(self.agent.history), args, home=self.settings.paicli_home, project_root=self.settings.project_root,
            session_id=self.parts.ledger.session_id, model=self.settings.model)

    def list_sessions(self) -> list[SessionSummary]:
        from paicli.session.catalog import list_sessions

        found = list_sessions(
            self.settings.paicli_home, self.settings.project_root, exclude_session_id=self.parts.ledger.session_id
        )
        return [SessionSummary(s.session_id, s.started_at_ms, s.first_input, s.turns, s.model) for s in found]

    def resume(self, session_id: str) -> CommandReply:
        from paicli.session.catalog import find_session, resume_session

        found = find_session(self.settings.paicli_home, session_id.strip())
        if found is None:
            return CommandReply(f"📭 未找到会话: {session_id}", ok=False)
        secrets = [self.settings.api_key] if self.settings.api_key else []
        ledger, result = resume_session(
            found.path, model=self.settings.model, provider=self.settings.provider, version=__version__,
            secrets=secrets, on_error=self._notice, checkpoint_repairs=False,
        )
        self.parts.ledger.close()
        self.parts.ledger = ledger
        self.agent.recorder.ledger = ledger
        return self._restored(found.session_id, result)

    def restore_opened_session(self) -> CommandReply:
        """Start-up with -c / --resume: the ledger was opened on an existing file; rebuild its view."""
        from paicli.session.resume import load_view

        ledger = self.parts.ledger
        if ledger.path is None:
            return CommandReply("⚠️ 会话账本不可用，无法恢复会话；已开始新会话。", ok=False)
        result = load_view(ledger.path)
        ledger.mark_resumed({"model": self.settings.model, "provider": self.settings.provider,
                             "paicliVersion": __version__, "resumedFromSequence": result.last_sequence})
        return self._restored(ledger.session_id, result)

    def _restored(self, session_id: str, result: ResumeResult) -> CommandReply:
        self.parts.compaction.reset(self.agent.history)
        self.parts.tools.reset_session()
        self.agent.restore(result.messages)
        lines = [f"✅ 已恢复会话 {session_id}：{len(result.messages)} 条消息，继续写入同一个会话账本。"]
        lines.extend(f"   ⚠️ {notice}" for notice in result.notices)
        recap = last_answer(result.messages)
        if recap:
            lines.append(f"   上次最后的回答: {recap}")
        return CommandReply("\n".join(lines))

    def _after_turn(self, submitted: str) -> None:
        self._background.submit(submitted, self._extraction_done)

    def _extract_job(self, text: str) -> int:
        return len(self.parts.memory.extract_facts_from_user_turn(text))

    def _record_side_usage(self, usage: Usage | None) -> None:
        with self._notice_lock:
            self._extra_calls += 1
            if usage is not None:
                self._extra_usage = self._extra_usage + usage

    def _extraction_done(self, count: int) -> None:
        if count > 0:
            self._notice(saved_message(count))

    def _notice(self, text: str) -> None:
        with self._notice_lock:
            self._notices.append(text)
            listener = self._notice_listener
        if listener is not None:
            try:
                listener()
            except Exception:  # a front-end hook must never break background work
                log.warning("notice listener failed", exc_info=True)

    def set_notice_listener(self, listener: NoticeListener | None) -> None:
        with self._notice_lock:
            self._notice_listener = listener

    def drain_notices(self) -> list[str]:
        with self._notice_lock:
            lines, self._notices[:] = list(self._notices), []
        return lines

    def close(self, timeout: float = 10.0) -> None:
        self._background.wait(timeout)
        self.parts.memory.flush_index(timeout)
        self.parts.ledger.close()


def last_answer(messages: Sequence[Message], limit: int = 100) -> str:
    """The final answer the resumed conversation ended with, on one short line (where the user left off)."""
    from paicli.cli.render import shorten

    for message in reversed(messages):
        if message.role == "assistant" and not message.tool_calls and (message.content or "").strip():
            return shorten(message.content or "", limit)
    return ""


class _UsageRecordingExtractor:
    """Counts the extraction call in the session's token statistics (spec 5.1)."""

    def __init__(self, extractor: AutoFactExtractor, record: Callable[[Usage | None], None]) -> None:
        self._extractor = extractor
        self._record = record

    def extract(self, text: str) -> list[str]:
        outcome = self._extractor.extract(text)
        if outcome.model_called:
            self._record(outcome.usage)
        return list(outcome)
