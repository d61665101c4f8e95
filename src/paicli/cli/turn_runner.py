"""Running what the user submits: a ReAct turn, a plan or a team run (and a plan's review steps), with
@mentions expanded, the start-up warm-up awaited, retries shown, and every failure ending in a RunFinished."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar

from paicli.agent.events import EventSink, Notice, Preparing, RunFinished
from paicli.agent.react import CANCELLED_ANSWER, ReactAgent
from paicli.cancel import CancelToken
from paicli.cli.compose import Components
from paicli.cli.mentions import attach_mentions
from paicli.cli.warmup import WarmUp, await_warmup
from paicli.config.modes import DEFAULT_MODE, ORCHESTRATED, RUN_MODES, RunMode, mode_named
from paicli.llm.content_parts import ImagePart
from paicli.llm.notices import RetryListener, retry_notices

if TYPE_CHECKING:
    from paicli.agent.plan.agent import PlanDraft
    from paicli.cli.orchestrated_session import OrchestratedRuns
    from paicli.tools.checkpoint import TurnCheckpoint
    from paicli.tools.hooks import Hooks

log = logging.getLogger(__name__)
RESUMABLE_MODES = ORCHESTRATED  # runs whose interrupted steps /resume and -c offer to continue
T = TypeVar("T")


class TurnGate(Protocol):
    """Background side calls that yield while a turn runs (SessionBackground)."""

    def turn_started(self) -> None: ...

    def turn_ended(self) -> None: ...


@dataclass
class RunState:
    """What outlives a rebuild of the session (/model, /resume): set by the launcher, read by every run."""

    phase: str = "idle"
    stdin_context: str = ""  # `-p` with piped input: appended to the task
    warmup: WarmUp | None = None  # started by the launcher; the first run waits for it
    continue_plan_first: bool = False  # `-p --plan -c`: continue the interrupted plan instead of a new one
    report_changes: bool = False  # `-p` JSON output: a run's RunFinished lists the files it changed
    turn_gate: TurnGate | None = None  # told when a run starts and ends (background extraction yields)
    shell_context: list[str] = field(default_factory=list)  # `!command` outputs for the next turn


def retry_line(number: int, retries: int, delay: float, cause: str) -> str:
    """`⏳ 重试 2/4，3 s 后…（HTTP 500）`; a wait under a second in tenths, none at all as `立即重试`
    (never `0 s 后`)."""
    if delay < 0.05:
        return f"⏳ 立即重试 {number}/{retries}…（{cause}）"
    wait = f"{delay:.1f}" if delay < 0.95 else f"{delay:.0f}"
    return f"⏳ 重试 {number}/{retries}，{wait} s 后…（{cause}）"


def _retry_teller(emit: EventSink) -> RetryListener:
    """Each model-call retry of a run is shown."""

    def told(number: int, retries: int, delay: float, cause: str) -> None:
        emit(Notice(retry_line(number, retries, delay, cause), "warn"))

    return told


HOOK_CONTEXT = "以下是 UserPromptSubmit 钩子（用户配置的脚本）附加的上下文："


def prompt_hooks(hooks: Hooks | None, text: str, emit: EventSink) -> str | RunFinished:
    """UserPromptSubmit: the context its hooks add (stdout), or the refusal when one exits 2."""
    if hooks is None:
        return ""
    result = hooks.run("UserPromptSubmit", {"prompt": text})
    for line in result.failures:
        emit(Notice(line, "warn"))
    if result.blocked:
        return RunFinished(
            "error", "", f"🪝 UserPromptSubmit 钩子阻止了这条输入，没有发给模型: {result.reason}"
        )
    return result.context


def stop_hooks(hooks: Hooks | None, emit: EventSink) -> None:
    if hooks is None:
        return
    for line in hooks.run("Stop", {"stop_hook_active": False}).failures:
        emit(Notice(line, "warn"))


class TurnRunner:
    def __init__(
        self,
        parts: Components,
        agent: ReactAgent,
        runs: OrchestratedRuns,
        state: RunState,
        checkpoint: TurnCheckpoint | None = None,
    ) -> None:
        """`checkpoint`: the session's workspace snapshots, told where each turn or run begins."""
        self.parts = parts
        self.agent = agent
        self.runs = runs
        self.state = state
        self._checkpoint = checkpoint

    def supports_mode(self, mode: RunMode) -> bool:
        return mode in RUN_MODES

    def default_mode(self) -> RunMode:
        """What a plain input runs as: `/mode plan` (or Shift+Tab) makes every input a plan, `/mode team` a team run."""
        return (mode_named(self.parts.approval.mode) or DEFAULT_MODE).runs

    def run(self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        if not self.supports_mode(mode):
            return RunFinished("error", "", f"不支持的运行模式：{mode}")
        submitted = prompt_hooks(self.parts.tools.hooks, text, emit)
        if isinstance(submitted, RunFinished):
            return submitted
        self._begin_unit(text, mode)
        with self._phase(), retry_notices(_retry_teller(emit)):  # this run's requests only
            try:
                result = self._run(text, mode, emit, cancel, submitted)
            except Exception as exc:  # the front end must always get a RunFinished
                log.exception("run failed")
                return RunFinished("error", "", f"任务出错: {exc}")
        if result.turn is not None:  # a Plan or Team run ended
            self.agent.record_run(result.turn)
        stop_hooks(self.parts.tools.hooks, emit)
        return result

    def _begin_unit(self, text: str, mode: RunMode) -> None:
        """Snapshots taken from here on belong to this turn or run (/undo takes a whole run back)."""
        checkpoint = self._checkpoint
        if checkpoint is None:
            return
        note = checkpoint.take_note()  # files restored behind the model's back: told before it goes on
        if note:
            self.agent.note_workspace(note)
        checkpoint.begin_unit(text, mode)

    @contextmanager
    def _phase(self) -> Iterator[None]:
        self.state.phase = "running"
        gate = self.state.turn_gate  # background side calls wait while a run needs the model
        if gate is not None:
            gate.turn_started()
        try:
            yield
        finally:
            self.state.phase = "idle"
            if gate is not None:
                gate.turn_ended()

    def _run(
        self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken, hook_context: str = ""
    ) -> RunFinished:
        if mode in ORCHESTRATED and self.state.continue_plan_first:
            self.state.continue_plan_first = False
            found = self.runs.interrupted((mode,))
            if found is not None:
                return self.runs.continue_interrupted(found, emit, cancel)
        expanded, images = self._images(self._expand(text, emit), mode, emit)
        if hook_context:
            expanded += f"\n\n{HOOK_CONTEXT}\n{hook_context}"
        from paicli.cli.input_size import oversize_input

        refusal = oversize_input(expanded, self.parts.profile.window)
        if refusal is not None:  # no request could carry it: refuse before sending anything
            return RunFinished("error", "", refusal)
        if not await_warmup(self.state.warmup, emit, cancel):
            return RunFinished("cancelled", CANCELLED_ANSWER)
        if mode in ORCHESTRATED:
            self.parts.tracker.observe_user_input(expanded)
            return self.runs.run(mode, expanded, text, emit, cancel)
        self._before_model_call(text, expanded, emit)
        return self.agent.run(expanded, emit, cancel, submitted=text, images=images)

    def _images(self, expanded: str, mode: RunMode, emit: EventSink) -> tuple[str, tuple[ImagePart, ...]]:
        """`@image:` references: parts of this turn's message when the model takes images; else one line."""
        if "@image:" not in expanded:
            return expanded, ()
        from paicli.cli.image_refs import attach_images, no_vision_line
        from paicli.cli.vision import model_takes_images

        settings = self.parts.settings
        if not model_takes_images(settings, self.parts.values.vision):
            emit(Notice(no_vision_line(settings.model), "warn"))
            return expanded, ()
        if mode in ORCHESTRATED:
            emit(Notice("⚠️ Plan / Team 模式不发送图片，本轮只发送文字", "warn"))
            return expanded, ()
        attached = attach_images(expanded, settings.project_root)
        for level, note in attached.notes:
            emit(Notice(note, "warn" if level == "warn" else "info"))
        return attached.text, attached.images

    def _expand(self, text: str, emit: EventSink) -> str:
        expanded, notes = attach_mentions(text, self.parts.settings.project_root)
        for level, note in notes:
            emit(Notice(note, "warn" if level == "warn" else "info"))
        if self.parts.mcp is not None:
            emit(Preparing("读取 MCP 资源"))  # @server:uri mentions are fetched now: a wait worth showing
            expanded = self.parts.mcp.expand(
                expanded, lambda level, note: emit(Notice(note, "warn" if level == "warn" else "info"))
            )
        if self.state.stdin_context:
            expanded += f"\n\n以下是通过标准输入传入的内容：\n{self.state.stdin_context}"
        if self.state.shell_context:  # `!command` runs since the last turn (cli/shell_escape.py)
            expanded += "".join(f"\n\n{block}" for block in self.state.shell_context)
            self.state.shell_context.clear()
        return expanded

    def guarded(self, emit: EventSink, work: Callable[[], T]) -> T | RunFinished:
        """`work` (a plan's review steps) as a run: a failure ends in a RunFinished."""
        with self._phase():
            try:
                result = work()
            except Exception as exc:  # the front end must always get a RunFinished
                log.exception("run failed")
                return RunFinished("error", "", f"任务出错: {exc}")
        if isinstance(result, RunFinished) and result.turn is not None:  # a Plan or Team run ended
            self.agent.record_run(result.turn)
        return result

    def _before_model_call(self, submitted: str, expanded: str, emit: EventSink) -> None:
        """Spec 5.5 / 5.7: an expanded MCP resource marks external content; an explicit request to reuse the
        logged-in Chrome is remembered globally (unless external content was read)."""
        from paicli.memory.guard import apply_explicit_memory_hints

        self.parts.tracker.observe_user_input(expanded)
        recent = [m.text for m in self.agent.history[1:][-10:]]
        saved = apply_explicit_memory_hints(self.parts.memory, self.parts.tracker, submitted, recent)
        if saved:
            emit(Notice(f"🧠 已记入长期记忆（全局）：{saved}"))

    # ---- plan review and continuation ----------------------------------------------------------------

    def plan_create(self, text: str, emit: EventSink, cancel: CancelToken) -> PlanDraft | RunFinished:
        self._begin_unit(text, "plan")

        def create() -> PlanDraft | RunFinished:
            expanded = self._expand(text, emit)
            if not await_warmup(self.state.warmup, emit, cancel):
                return RunFinished("cancelled", CANCELLED_ANSWER)
            self.parts.tracker.observe_user_input(expanded)
            return self.runs.create(expanded, text, emit, cancel)

        return self.guarded(emit, create)

    def plan_revise(
        self, draft: PlanDraft, supplement: str, emit: EventSink, cancel: CancelToken
    ) -> PlanDraft | RunFinished:
        return self.guarded(emit, lambda: self.runs.revise(draft, supplement, emit, cancel))

    def plan_execute(self, draft: PlanDraft, emit: EventSink, cancel: CancelToken) -> RunFinished:
        result = self.guarded(emit, lambda: self.runs.execute(draft, emit, cancel))
        assert isinstance(result, RunFinished)
        return result

    def plan_cancel(self, draft: PlanDraft) -> RunFinished:
        result = self.guarded(lambda _event: None, lambda: self.runs.cancel(draft))
        assert isinstance(result, RunFinished)
        return result

    def interrupted_plan(self) -> str | None:
        """The newest interrupted Plan or Team run, described for the continuation question."""
        return self.runs.describe_interrupted(RESUMABLE_MODES)

    def continue_plan(self, emit: EventSink, cancel: CancelToken) -> RunFinished:
        found = self.runs.interrupted(RESUMABLE_MODES)
        self._begin_unit("继续中断的运行", "plan")
        result = self.guarded(emit, lambda: self.runs.continue_interrupted(found, emit, cancel))
        assert isinstance(result, RunFinished)
        return result
