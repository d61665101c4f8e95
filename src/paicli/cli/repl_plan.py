"""Plan mode in the REPL: plan, review with single keys (Enter / Ctrl+O / Esc / I), execute; continue an
interrupted plan after /resume or -c. Works only through optional Backend methods (looked up with getattr)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

from paicli.agent.events import PlanProposed, RunFinished
from paicli.cli.backend import Backend
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

Decision = Literal["execute", "cancel", "supplement"]
CANCEL_WORDS = frozenset({"取消", "cancel", "q", "quit", "esc", "n", "no"})
CONTINUE_QUESTION = "继续未完成的计划？[y/N] "
SUPPLEMENT_PROMPT = "补充> "


class Dispatcher(Protocol):
    """What plan mode uses of the REPL's dispatcher (cli/repl_dispatch.py)."""

    @property
    def backend(self) -> Backend: ...

    @property
    def io(self) -> ReplIO: ...

    def notices(self) -> None: ...


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
        self.backend: Any = dispatcher.backend
        self.read_key = read_key
        self.plan: PlanProposed | None = None

    def _renderer(self) -> _Tee:
        io = self.d.io
        fold = getattr(self.d, "remember_fold", None) if getattr(io, "interactive", False) else None
        renderer = EventRenderer(io.console, io.progress, markdown=io.markdown, on_fold=fold)

        def remember(event: Any) -> None:
            if isinstance(event, PlanProposed):
                self.plan = event
            renderer(event)

        return _Tee(renderer, remember)

    def _cancellable(self, renderer: Any, work: Callable[[Any], Any]) -> Any:
        return run_guarded(self.d.io, renderer, work)

    def run(self, text: str) -> None:
        renderer = self._renderer()
        draft = self._cancellable(renderer, lambda cancel: self.backend.plan_create(text, renderer, cancel))
        while not isinstance(draft, RunFinished):
            decision, extra = self._review()
            if decision == "cancel":
                say(self.d.io.console, self.backend.plan_cancel(draft).answer, "yellow")
                return
            if decision == "execute":
                renderer = self._renderer()
            draft = self._step(draft, decision, extra, renderer)
        renderer.finish(draft)
        self.d.notices()

    def _step(self, draft: Any, decision: Decision, extra: str, renderer: _Tee) -> Any:
        if decision == "execute":
            return self._cancellable(
                renderer, lambda cancel: self.backend.plan_execute(draft, renderer, cancel)
            )
        return self._cancellable(
            renderer, lambda cancel: self.backend.plan_revise(draft, extra, renderer, cancel)
        )

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


class _Tee:
    """The renderer, plus remembering the newest proposed plan for Ctrl+O."""

    def __init__(self, renderer: EventRenderer, sink: Callable[[Any], None]) -> None:
        self._renderer = renderer
        self._sink = sink

    def __call__(self, event: Any) -> None:
        self._sink(event)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._renderer, name)


def plan_flow(dispatcher: Dispatcher) -> PlanFlow | None:
    """The reviewed flow when both sides support it; else None (the plan then runs without review)."""
    read_key = getattr(dispatcher.io, "read_key", None)
    if callable(read_key) and callable(getattr(dispatcher.backend, "plan_create", None)):
        return PlanFlow(dispatcher, read_key)
    return None


def offer_continuation(dispatcher: Dispatcher) -> None:
    """After /resume or a start with -c / --resume: offer to finish a plan that was interrupted."""
    describe = getattr(dispatcher.backend, "interrupted_plan", None)
    text = describe() if callable(describe) else None
    if not text:
        return
    io = dispatcher.io
    say(io.console, text, "cyan")
    if not is_yes(io.ask(CONTINUE_QUESTION) or ""):
        say(io.console, "好的，未完成的计划保持原样，之后 /resume 仍可继续。", "dim")
        return
    fold = getattr(dispatcher, "remember_fold", None) if getattr(io, "interactive", False) else None
    renderer = EventRenderer(io.console, io.progress, markdown=io.markdown, on_fold=fold)
    backend: Any = dispatcher.backend
    run_rendered(io, renderer, lambda cancel: backend.continue_plan(renderer, cancel))
    dispatcher.notices()
