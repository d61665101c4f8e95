"""Plan mode in the REPL: plan, review with single keys (Enter / Ctrl+O / Esc / I), execute; continue an
interrupted plan after /resume or -c. Shown only at an interactive terminal; piped plans run without review."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, Protocol

from rich.console import Console

from paicli.agent.events import AgentEvent, RunFinished
from paicli.agent.task_events import PlanProposed
from paicli.cli.commands import is_yes
from paicli.cli.plan_view import (
    COLLAPSED_HINT,
    EXPANDED_HINT,
    REVIEW_HELP,
    UNKNOWN_KEY,
    plan_table,
    plan_tree,
)
from paicli.cli.render import EventRenderer, say
from paicli.cli.repl_terminal import ReplIO, run_guarded, run_rendered

if TYPE_CHECKING:
    from paicli.agent.plan.agent import PlanDraft
    from paicli.cancel import CancelToken
    from paicli.cli.app_backend import AppBackend

Decision = Literal["execute", "cancel", "supplement"]
CANCEL_WORDS = frozenset({"取消", "cancel", "q", "quit", "esc", "n", "no"})
CONTINUE_QUESTION = "继续未完成的计划？[y/N] "
SUPPLEMENT_PROMPT = "补充> "


class Dispatcher(Protocol):
    """What plan mode uses of the REPL's dispatcher (cli/repl_dispatch.py)."""

    @property
    def session(self) -> AppBackend: ...

    @property
    def io(self) -> ReplIO: ...

    def notices(self) -> None: ...

    def remember_fold(self, tool: str, text: str) -> None: ...


def supplement_decision(text: str | None) -> tuple[Decision, str]:
    """What the line typed at `补充>` means: blank runs the plan, a cancel word cancels, anything else replans."""
    if text is None:
        return "cancel", ""
    stripped = text.strip()
    if not stripped:
        return "execute", ""
    if stripped.lower() in CANCEL_WORDS:
        return "cancel", ""
    return "supplement", stripped


class PlanFlow:
    """One /plan task in an interactive REPL."""

    def __init__(self, dispatcher: Dispatcher, read_key: Callable[[str], str]) -> None:
        self.d = dispatcher
        self.session: AppBackend = dispatcher.session
        self.read_key = read_key
        self.plan: PlanProposed | None = None

    def _renderer(self) -> _PlanRenderer:
        io = self.d.io
        fold = self.d.remember_fold if io.interactive else None
        return _PlanRenderer(self, io.console, io.progress, markdown=io.markdown, on_fold=fold)

    def run(self, text: str) -> None:
        renderer = self._renderer()
        draft: PlanDraft | RunFinished = run_guarded(
            self.d.io, renderer, lambda cancel: self.session.turns.plan_create(text, renderer, cancel)
        )
        while not isinstance(draft, RunFinished):
            decision, extra = self._review()
            if decision == "cancel":
                say(self.d.io.console, self.session.turns.plan_cancel(draft).answer, "yellow")
                return
            if decision == "execute":
                renderer = self._renderer()
            draft = self._step(draft, decision, extra, renderer)
        renderer.finish(draft)

    def _step(
        self, draft: PlanDraft, decision: Decision, extra: str, renderer: _PlanRenderer
    ) -> PlanDraft | RunFinished:
        def work(cancel: CancelToken) -> PlanDraft | RunFinished:
            if decision == "execute":
                return self.session.turns.plan_execute(draft, renderer, cancel)
            return self.session.turns.plan_revise(draft, extra, renderer, cancel)

        return run_guarded(self.d.io, renderer, work)

    def _review(self) -> tuple[Decision, str]:
        console = self.d.io.console
        say(console, REVIEW_HELP, "cyan")
        expanded = False
        while True:
            key = self.read_key("")
            if key == "enter":
                return "execute", ""
            if key == "c-o":
                expanded = not expanded
                self._show(expanded)
                say(console, EXPANDED_HINT if expanded else COLLAPSED_HINT, "dim")
            elif key == "escape" and expanded:
                expanded = False
                self._show(False)
                say(console, COLLAPSED_HINT, "dim")
            elif key in ("escape", ""):
                return "cancel", ""
            elif key.lower() == "i":
                return supplement_decision(self.d.io.ask(SUPPLEMENT_PROMPT))
            else:
                say(console, UNKNOWN_KEY, "yellow")

    def _show(self, expanded: bool) -> None:
        if self.plan is not None:
            view = plan_table if expanded else plan_tree
            self.d.io.console.print(view(self.plan.plan, self.plan.done))


class _PlanRenderer(EventRenderer):
    """The renderer, remembering the newest proposed plan for Ctrl+O."""

    def __init__(
        self,
        flow: PlanFlow,
        *args: Console,
        markdown: bool,
        on_fold: Callable[[str, str], None] | None = None,
    ) -> None:
        super().__init__(*args, markdown=markdown, on_fold=on_fold)
        self._flow = flow

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, PlanProposed):
            self._flow.plan = event
        super().__call__(event)


def offer_continuation(dispatcher: Dispatcher) -> None:
    """After /resume or a start with -c / --resume: offer to finish a plan that was interrupted."""
    text = dispatcher.session.turns.interrupted_plan()
    if not text:
        return
    io = dispatcher.io
    say(io.console, text, "cyan")
    if not is_yes(io.ask(CONTINUE_QUESTION) or ""):
        say(io.console, "好的，未完成的计划保持原样，之后 /resume 仍可继续。", "dim")
        return
    fold = dispatcher.remember_fold if io.interactive else None
    renderer = EventRenderer(io.console, io.progress, markdown=io.markdown, on_fold=fold)
    session = dispatcher.session
    run_rendered(io, renderer, lambda cancel: session.turns.continue_plan(renderer, cancel))
    dispatcher.notices()
