"""AppBackend: the real Backend behind the REPL and `-p` — one ReAct agent and its collaborators."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

from paicli import __version__
from paicli.agent.budget import AgentBudget
from paicli.agent.events import Compacted, EventSink, Notice, RunFinished
from paicli.agent.loop import LoopStats
from paicli.agent.plan.agent import PlanDraft
from paicli.agent.plan.checkpoint import InterruptedPlan
from paicli.agent.ports import MemoryPort
from paicli.agent.react import CANCELLED_ANSWER, AgentOptions, ReactAgent
from paicli.cancel import CancelToken
from paicli.cli import session_commands
from paicli.cli.backend import (
    BannerInfo,
    CommandReply,
    NoticeListener,
    RunMode,
    SessionSummary,
    StatusSnapshot,
)
from paicli.cli.compose import Components, build_llm
from paicli.cli.mentions import attach_mentions
from paicli.cli.models import ModelChoice
from paicli.cli.plan_session import PlanSession
from paicli.cli.session_parts import UsageRecordingExtractor as _UsageRecordingExtractor
from paicli.cli.session_parts import last_answer as last_answer
from paicli.cli.team_session import TeamSession
from paicli.cli.warmup import WarmUp, await_warmup
from paicli.config import knobs
from paicli.config.env import ConfigError
from paicli.context.memory_view import TurnMemory
from paicli.context.profile import ContextProfile
from paicli.llm.messages import Usage
from paicli.memory.background import BackgroundExtraction
from paicli.memory.extractor import AutoFactExtractor, saved_message
from paicli.session.resume import ResumeResult
from paicli.tools.disabled import ToolsDisabled

log = logging.getLogger(__name__)
TOKEN_RESERVES = 500 + 800 + 2000
RESUMABLE_MODES = ("plan", "team")  # runs whose interrupted steps /resume and -c offer to continue
T = TypeVar("T")


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

        def budget() -> AgentBudget:
            return AgentBudget.configured(
                knobs.REACT_TOKEN_BUDGET.read(env),
                knobs.REACT_STAGNATION_WINDOW.read(env),
                max_turns or knobs.REACT_HARD_MAX_ITERATIONS.read(env),
            )

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
        self.stats = LoopStats()
        self.continue_plan_first = False  # `-p --plan -c`: continue the interrupted plan instead of a new one
        self.plan = PlanSession(parts, self.stats, budget, self._after_turn if enabled else None)
        self.team = TeamSession(parts, self.stats, budget, self._after_turn if enabled else None)
        memory: MemoryPort = parts.memory
        if (
            self.settings.memory_placement == "turn"
        ):  # compaction puts the turn's memories back if it drops them
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
            stats=self.stats,
        )

    # ---- Backend: information ----------------------------------------------------------------------

    def info(self) -> BannerInfo:
        return BannerInfo(
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
        context_tokens, source = 0, "local"
        if self._count_context and len(history) > 1:  # one-shot runs skip it: it would load the tokenizer
            figure = self.parts.compaction.figure(history, self._tool_definitions())
            context_tokens, source = figure.tokens, figure.source
        return StatusSnapshot(
            model=self.settings.model,
            context_tokens=context_tokens,
            context_source=source,
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
        return mode in ("react", "plan", "team")

    def default_mode(self) -> RunMode:
        """What a plain input runs as: `/mode plan` (or Shift+Tab) makes every input a plan, `/mode team` a team run."""
        mode = self.parts.approval.mode
        return "plan" if mode == "plan" else "team" if mode == "team" else "react"

    def _expand(self, text: str, emit: EventSink) -> str:
        expanded, notes = attach_mentions(text, self.settings.project_root)
        for level, note in notes:
            emit(Notice(note, "warn" if level == "warn" else "info"))
        if self.stdin_context:
            expanded += f"\n\n以下是通过标准输入传入的内容：\n{self.stdin_context}"
        return expanded

    def run(self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        if not self.supports_mode(mode):
            finished = RunFinished("error", "", f"不支持的运行模式：{mode}")
            emit(finished)
            return finished
        return self._guarded(emit, lambda: self._run(text, mode, emit, cancel))

    def _run(self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        if mode in ("plan", "team") and self.continue_plan_first:
            self.continue_plan_first = False
            found = self.plan.interrupted((mode,))
            if found is not None:
                return self._continue(found, emit, cancel)
        expanded = self._expand(text, emit)
        from paicli.cli.input_size import oversize_input

        refusal = oversize_input(expanded, self.parts.profile.window)
        if refusal is not None:  # no request could carry it: refuse before sending anything
            finished = RunFinished("error", "", refusal)
            emit(finished)
            return finished
        if not await_warmup(self.warmup, emit, cancel):
            finished = RunFinished("cancelled", CANCELLED_ANSWER)
            emit(finished)
            return finished
        if mode == "plan":
            self.parts.tracker.observe_user_input(expanded)
            return self._with_retry_notices(emit, lambda: self.plan.run(expanded, text, emit, cancel))
        if mode == "team":
            self.parts.tracker.observe_user_input(expanded)
            return self._with_retry_notices(emit, lambda: self.team.run(expanded, text, emit, cancel))
        self._before_model_call(text, expanded, emit)
        return self._with_retry_notices(emit, lambda: self.agent.run(expanded, emit, cancel, submitted=text))

    def _guarded(self, emit: EventSink, work: Callable[[], T]) -> T | RunFinished:
        self._phase = "running"
        try:
            return work()
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

    # ---- Backend (optional): plan review and continuation -------------------------------------------

    def plan_create(self, text: str, emit: EventSink, cancel: CancelToken) -> PlanDraft | RunFinished:
        def create() -> PlanDraft | RunFinished:
            expanded = self._expand(text, emit)
            if not await_warmup(self.warmup, emit, cancel):
                return RunFinished("cancelled", CANCELLED_ANSWER)
            self.parts.tracker.observe_user_input(expanded)
            return self.plan.create(expanded, text, emit, cancel)

        return self._guarded(emit, create)

    def plan_revise(
        self, draft: PlanDraft, supplement: str, emit: EventSink, cancel: CancelToken
    ) -> PlanDraft | RunFinished:
        return self._guarded(emit, lambda: self.plan.revise(draft, supplement, emit, cancel))

    def plan_execute(self, draft: PlanDraft, emit: EventSink, cancel: CancelToken) -> RunFinished:
        result = self._guarded(emit, lambda: self.plan.execute(draft, emit, cancel))
        assert isinstance(result, RunFinished)
        return result

    def plan_cancel(self, draft: PlanDraft) -> RunFinished:
        return self.plan.cancel(draft)

    def interrupted_plan(self) -> str | None:
        """The newest interrupted Plan or Team run, described for the continuation question."""
        return self.plan.describe_interrupted(RESUMABLE_MODES)

    def continue_plan(self, emit: EventSink, cancel: CancelToken) -> RunFinished:
        found = self.plan.interrupted(RESUMABLE_MODES)
        work = (
            (lambda: self._continue(found, emit, cancel))
            if found is not None
            else (lambda: self.plan.continue_interrupted(emit, cancel))
        )
        result = self._guarded(emit, work)
        assert isinstance(result, RunFinished)
        return result

    def _continue(self, found: InterruptedPlan, emit: EventSink, cancel: CancelToken) -> RunFinished:
        if found.mode == "team":
            return self.team.continue_interrupted(found, emit, cancel)
        return self.plan.continue_interrupted(emit, cancel)

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
            self.agent.history, self._tool_definitions(), provider=self.settings.provider, cache_hit_ratio=hit
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
        text = run_memory_command(
            self.parts.memory, command, self.parts.profile.summary(), self.token_usage_line()
        )
        return CommandReply(text, ok=not text.startswith("❌"))

    def save(self, args: str) -> CommandReply:
        from paicli.memory.commands import parse_save_args, run_save

        text = run_save(self.parts.memory, parse_save_args(args))
        return CommandReply(text, ok=not text.startswith("❌"))

    def model_choices(self) -> list[ModelChoice]:
        """The current model first, then each configured provider's model."""
        current = self.settings
        found = [ModelChoice(current.provider, current.model, self.parts.profile.window, current=True)]
        for name in current.available_providers:
            try:
                other = current.with_model(name)
            except ConfigError:
                continue
            choice = ModelChoice(other.provider, other.model, other.context_window)
            if all(item.spec != choice.spec for item in found):
                found.append(choice)
        return found

    def model(self, args: str) -> CommandReply:
        from paicli.cli import models

        command = models.parse_model_args(args)
        choices = self.model_choices()
        if command.action in ("show", "list"):
            head = f"🤖 正在使用的模型: {self.settings.describe()}\n" if command.action == "show" else ""
            return CommandReply(head + models.list_text(choices))
        if command.action == "info":
            return CommandReply(
                f"🤖 {self.settings.describe()} · 上下文窗口 {self.parts.profile.window:,} tokens"
                f" · prompt cache: {self.parts.profile.cache_mode} · {self.settings.base_url}"
            )
        if command.action == "unsupported":
            return CommandReply(models.unsupported_text(command.target), ok=False)
        if command.action == "invalid" or not models.is_known_target(command.target, choices):
            return CommandReply(models.rejected_text(command.target, choices), ok=False)
        spec = command.target
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
        return CommandReply(f"🧭 {self.parts.approval.set_mode(args.strip())}")

    def hitl(self, args: str) -> CommandReply:
        return CommandReply(f"🔒 {self.parts.approval.set_hitl(args.strip())}")

    def policy(self, args: str = "") -> CommandReply:
        if args.strip().lower() == "reset":
            self.parts.approval.clear_grants()
            return CommandReply("🛡️ 已撤销本会话的全部“始终允许”，之后需要确认的操作会照常询问。")
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
            list(self.agent.history),
            args,
            home=self.settings.paicli_home,
            project_root=self.settings.project_root,
            session_id=self.parts.ledger.session_id,
            model=self.settings.model,
        )

    def list_sessions(self, include_hidden: bool = False) -> list[SessionSummary]:
        from paicli.session.catalog import list_sessions

        found = list_sessions(
            self.settings.paicli_home,
            self.settings.project_root,
            exclude_session_id=self.parts.ledger.session_id,
            include_throwaway=include_hidden,
        )
        return [
            SessionSummary(
                s.session_id,
                s.started_at_ms,
                s.first_input,
                s.turns,
                s.model,
                s.updated_at_ms or s.started_at_ms,
                s.throwaway,
            )
            for s in found
        ]

    def resume(self, session_id: str) -> CommandReply:
        from paicli.session.catalog import find_session, resume_session

        found = find_session(self.settings.paicli_home, session_id.strip())
        if found is None:
            return CommandReply(f"📭 未找到会话: {session_id}", ok=False)
        from paicli.cli.busy_session import busy_text, forked_text
        from paicli.session.ownership import fork_session, in_use

        path, forked = found.path, ""
        if in_use(path):  # open in another process: continue in a copy, never in the same file
            path = fork_session(found.path)
            forked = f"{busy_text(found.path)}\n{forked_text(found.path, path)}\n"
        secrets = [self.settings.api_key] if self.settings.api_key else []
        ledger, result = resume_session(
            path,
            model=self.settings.model,
            provider=self.settings.provider,
            version=__version__,
            secrets=secrets,
            on_error=self._notice,
            checkpoint_repairs=False,
        )
        self.parts.ledger.close()
        ledger.claim()
        self.parts.ledger = ledger
        self.agent.attach_ledger(ledger)
        reply = self._restored(path.name[: -len(".jsonl")], result)
        return CommandReply(forked + reply.text, reply.ok) if forked else reply

    def restore_opened_session(self) -> CommandReply:
        """Start-up with -c / --resume: the ledger was opened on an existing file; rebuild its view."""
        from paicli.session.resume import load_view

        ledger = self.parts.ledger
        if ledger.path is None:
            return CommandReply("⚠️ 会话账本不可用，无法恢复会话；已开始新会话。", ok=False)
        result = load_view(ledger.path)
        ledger.mark_resumed(
            {
                "model": self.settings.model,
                "provider": self.settings.provider,
                "paicliVersion": __version__,
                "resumedFromSequence": result.last_sequence,
            }
        )
        return self._restored(ledger.session_id, result)

    def has_conversation(self) -> bool:
        """Something worth resuming: the history holds more than the system prompt."""
        return any(message.role != "system" for message in self.agent.history)

    def _restored(self, session_id: str, result: ResumeResult) -> CommandReply:
        self.parts.tools.reset_session()
        self.agent.restore(result.messages)
        lines = [f"✅ 已恢复会话 {session_id}：{len(result.messages)} 条消息，继续写入同一个会话账本。"]
        lines.extend(f"   ⚠️ {notice}" for notice in result.notices)
        from paicli.cli.replay import replay_lines

        replay = replay_lines(result.messages)
        recap = last_answer(result.messages)
        if replay:
            lines.extend(replay)
        elif recap:
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

    def _with_retry_notices(self, emit: EventSink, work: Callable[[], RunFinished]) -> RunFinished:
        """While `work` runs, each model-call retry is shown: `⏳ 重试 2/4，3 s 后…（HTTP 500）`."""
        llm = self.parts.llm
        if not hasattr(llm, "on_retry"):
            return work()

        def told(number: int, retries: int, delay: float, cause: str) -> None:
            emit(Notice(f"⏳ 重试 {number}/{retries}，{delay:.0f} s 后…（{cause}）", "warn"))

        llm.on_retry = told
        try:
            return work()
        finally:
            llm.on_retry = None

    def pending_background(self) -> int:
        """Fact extractions still queued or running (the REPL says it is finishing them on exit)."""
        return self._background.pending

    def close(self, timeout: float = 10.0) -> None:
        self._background.wait(timeout)
        self.parts.memory.flush_index(timeout)
        self.parts.ledger.close()
