"""Agent events -> rich output: streamed Markdown, compact tool lines, coloured diffs, a spinner."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console

from paicli.agent.events import (
    AgentEvent,
    Compacted,
    CompactionStarted,
    ModelCallStarted,
    Notice,
    Preparing,
    ReasoningDelta,
    RunFinished,
    TextDelta,
    ToolFinished,
    ToolProgress,
    ToolStarted,
    ToolWaiting,
    Waiting,
)
from paicli.agent.task_events import PLAN_EVENTS, TaskActivity, TaskToolCall
from paicli.cli.cells import clip
from paicli.cli.live_output import PREFIX as LIVE_PREFIX
from paicli.cli.live_output import OutputTail
from paicli.cli.printing import MarkdownBlocks, keep_line_breaks, print_markdown, say, tail_lines
from paicli.cli.run_lines import compacted_lines, outcome_line
from paicli.cli.spinner import Clock, WaitSpinner
from paicli.cli.summaries import (
    diff_text,
    fold_lines,
    key_argument,
    shorten,
    strip_boundary,
    summarize_result,
    tool_call_line,
)
from paicli.config.modes import orchestrated
from paicli.termsafe import TerminalStream, show_controls
from paicli.tools.base import ToolResult

if TYPE_CHECKING:
    from paicli.cli.plan_view import PlanLive


SPINNER_DELAY_SECONDS = 0.3  # a wait shorter than this shows nothing
STREAM_TAIL_LINES = 3  # lines of a block still being written, shown live under the spinner
COMPACTING_LABEL = "正在压缩上下文（等待模型写出历史摘要）"
TYPING_LABEL = "任务进行中"  # the spinner brought back only to show type-ahead between two waits
_NOTICE_STYLES = {"info": "cyan", "warn": "yellow", "error": "bold red"}
_TONE_STYLES = {"ok": "dim", "error": "red", "blocked": "yellow"}


class EventRenderer:
    """Renders one run's events. `out` gets the answer; `progress` gets tool lines, notices and the spinner.

    Interactive: the answer is rendered as Markdown block by block while it streams. Piped: the answer is
    plain text on `out`, and text streamed before a tool call counts as progress.
    """

    def __init__(
        self,
        out: Console,
        progress: Console | None = None,
        *,
        markdown: bool = True,
        clock: Clock = time.monotonic,
        on_fold: Callable[[str, str], None] | None = None,
    ) -> None:
        self._on_fold = on_fold  # (title, full text) of a tool output shown folded: Ctrl+O opens it
        self._out = out
        self._progress = progress or out
        self._markdown = markdown
        self._lock = threading.RLock()
        self._blocks = MarkdownBlocks()
        self._stream = TerminalStream()  # a sequence split across deltas is removed whole
        self._clock = clock
        self._spinner = WaitSpinner(self._progress, clock)
        self._reasoning: list[str] = []
        self._plain: list[str] = []
        self._streamed = False
        self._received = 0  # characters of answer text this run, for the live label
        self._writing = False  # the spinner shows the answer being written (not a wait for the model)
        self._open_calls: dict[str, str] = {}
        self._tail = OutputTail()
        self._waiting_before_call = False  # the spinner shows a memory lookup or compaction check
        self.finished: RunFinished | None = None
        self._plan: PlanLive | None = None
        self._group = ""  # the parallel member whose tool calls were printed last (a header names the next)
        self._paused = False  # a question is on screen (pause() until resume())

    def __call__(self, event: AgentEvent) -> None:
        with self._lock:
            try:
                self._dispatch(event)
            except Exception as exc:  # rendering must never kill the agent's worker
                say(self._progress, f"⚠️ 显示事件时出错: {exc}", "yellow")

    def memory_line(self, text: str) -> None:
        """The dim line naming the long-term memories that went into this turn (called from the agent's thread)."""
        with self._lock:
            self._interrupt()
            say(self._progress, text, "dim")

    def _dispatch(self, event: AgentEvent) -> None:
        if isinstance(event, TextDelta):
            self._on_text(event.text)
        elif isinstance(event, ReasoningDelta):
            self._reasoning.append(event.text)
            self._spinner.relabel(f"思考中（{sum(map(len, self._reasoning))} 字）")
        elif isinstance(event, ModelCallStarted):
            label = "等待模型回复" if event.actor == "agent" else f"{event.actor} 等待模型回复"
            self._waiting_before_call = self._writing = False
            self._spinner.restart(label)  # a compaction wait before it had its own clock
        elif isinstance(event, Preparing):
            self._own_wait(event.what)
        elif isinstance(event, CompactionStarted):
            self._own_wait(("" if event.actor == "agent" else f"{event.actor} ") + COMPACTING_LABEL)
        elif isinstance(event, ToolStarted):
            self._on_tool_started(event)
        elif isinstance(event, ToolProgress):
            self._on_tool_progress(event)
        elif isinstance(event, ToolWaiting):
            self._on_tool_waiting(event)
        elif isinstance(event, ToolFinished):
            self._on_tool_finished(event.result)
        elif isinstance(event, Compacted):
            self._on_compacted(event)
        elif isinstance(event, Notice):
            self._interrupt(keep_answer=True)
            say(self._progress, event.text, _NOTICE_STYLES.get(event.level, "cyan"))
            if self._plan is not None:
                self._plan.resume()  # tasks still running keep their live line
        elif isinstance(event, TaskToolCall):
            self._on_task_tool(event)
        elif isinstance(event, PLAN_EVENTS):
            if not isinstance(event, TaskActivity):
                self._interrupt()
            self._plan_live().show(event)

        elif isinstance(event, Waiting):
            self._spinner.start(f"等待{event.what}加载")

    def _own_wait(self, label: str) -> None:
        """A wait before the model call, drawn once it lasts 300 ms, timed on its own; a spinner someone else
        holds (a Plan/Team live line, a running tool) keeps it."""
        if self._spinner.active and not self._waiting_before_call:
            return
        self._waiting_before_call = True
        self._spinner.restart(label, delay=SPINNER_DELAY_SECONDS)

    def _plan_live(self) -> PlanLive:
        from paicli.cli.plan_view import PlanLive

        if self._plan is None:
            self._plan = PlanLive(self._progress, self._spinner, self._clock)
        return self._plan

    def _close_reasoning(self) -> None:
        if not self._reasoning:
            return
        text = "".join(self._reasoning).strip()
        self._reasoning.clear()
        if text:
            tail = f"（思考 {len(text)} 字，已折叠）"
            room = max(20, min(80, self._progress.width - cell_len(tail) - 4))
            say(self._progress, f"💭 {shorten(text, room)}{tail}", "dim italic")

    def _interrupt(self, keep_answer: bool = False) -> None:
        """Before a progress line: stop the spinner, fold reasoning, put out the text streamed so far. Piped, that
        text is progress only when a tool call follows; a notice (an answer cut by the output limit, say) leaves
        it to be the answer on stdout (`keep_answer`)."""
        self._spinner.stop()
        self._waiting_before_call = self._writing = False
        self._group = ""
        self._close_reasoning()
        self._take_stream_rest()
        if self._markdown:
            rest = self._blocks.flush()
            if rest:
                print_markdown(self._out, rest)
        elif self._plain and not keep_answer:
            text = "".join(self._plain).strip()
            self._plain.clear()
            if text:
                say(self._progress, text, "dim")

    def _on_text(self, text: str) -> None:
        self._streamed = True
        text = self._stream.feed(text)
        if not self._markdown:
            self._spinner.stop()
            self._close_reasoning()
            self._plain.append(text)
            return
        self._received += len(text)
        blocks = self._blocks.feed(text)
        if blocks or self._reasoning:
            self._spinner.stop()  # finished blocks are printed above, with no live line in between
            self._close_reasoning()
            for block in blocks:
                print_markdown(self._out, block)
        self._show_writing()

    def _show_writing(self) -> None:
        """While a block is being written: the spinner counts the seconds and the characters, and under it
        the newest lines of the block as plain text, until the whole block is drawn as Markdown."""
        if not self._writing or not self._spinner.active:
            self._writing, self._waiting_before_call = True, False
            self._spinner.restart(lambda: f"正在输出回答（已收到 {self._received:,} 字）")
        width = self._progress.width - cell_len(LIVE_PREFIX) - 2
        self._spinner.show_tail(tail_lines(self._blocks.pending(), width, STREAM_TAIL_LINES))

    def _take_stream_rest(self) -> None:
        rest = self._stream.flush()
        if rest and self._markdown:
            self._blocks.feed(rest)
        elif rest:
            self._plain.append(rest)

    def _on_tool_started(self, event: ToolStarted) -> None:
        self._interrupt()
        self._open_calls[event.call_id] = show_controls(event.name)
        say(self._progress, tool_call_line(event.name, event.arguments), "bold")
        self._spinner.start(f"运行 {self._open_calls[event.call_id]}")

    def _on_tool_waiting(self, event: ToolWaiting) -> None:
        """The call waits for something else first (the workspace snapshot): the spinner names that wait."""
        if event.call_id not in self._open_calls:
            return
        label = event.what or "运行 " + ", ".join(sorted(set(self._open_calls.values())))
        if self._spinner.active:
            self._spinner.relabel(label)
        else:
            self._spinner.start(label)

    def _on_tool_progress(self, event: ToolProgress) -> None:
        if event.call_id not in self._open_calls:
            return
        if not self._spinner.active:  # stopped by a question or a notice meanwhile
            self._spinner.start(f"运行 {event.name}")
        self._tail.add(event.call_id, event.line)
        self._spinner.show_tail(self._tail.lines())

    def _on_tool_finished(self, result: ToolResult) -> None:
        self._spinner.stop()
        self._tail.clear()
        self._open_calls.pop(result.call_id, None)
        self._print_result(result, f"[{result.name}] " if self._open_calls else "")
        if self._open_calls:
            self._spinner.start("运行 " + ", ".join(sorted(set(self._open_calls.values()))))

    def _on_task_tool(self, event: TaskToolCall) -> None:
        """A parallel member's finished call, whole: its line, result and diff, as a sequential step shows
        them, under a header naming the member whenever the previous block was someone else's."""
        group = f"{event.who} [{event.task_id}]" if event.who != event.task_id else f"[{event.task_id}]"
        last = self._group
        self._interrupt()
        if group != last:
            say(self._progress, f"🛠️ {show_controls(group)}", "bold cyan")
        say(self._progress, tool_call_line(event.started.name, event.started.arguments), "bold")
        self._print_result(event.result, "")
        self._group = group
        if self._plan is not None:
            self._plan.resume()

    def _print_result(self, result: ToolResult, tag: str) -> None:
        width = self._progress.width
        summary = summarize_result(result, width=max(40, width - 8))
        style = _TONE_STYLES.get(summary.tone, "dim")
        say(self._progress, clip(f"  ⎿ {tag}{summary.headline}", max(40, width - 1)), style)
        for line in summary.preview:
            say(self._progress, f"    {line}", "dim")
        if summary.folded_lines:
            hint = "，Ctrl+O 展开" if self._on_fold is not None else ""
            say(self._progress, f"    … 还有 {summary.folded_lines} 行（已折叠{hint}）", "dim")
            if self._on_fold is not None:
                self._on_fold(result.name, strip_boundary(result.content))
        if result.display and result.success:
            self._progress.print(diff_text(result.display), end="", soft_wrap=True)

    def _on_compacted(self, event: Compacted) -> None:
        result, lines = event.result, compacted_lines(event.result, event.manual)
        if lines is None:
            return
        self._interrupt()
        for text, style in lines:
            say(self._progress, text, style)
        if result.changed and result.receipt is not None and self._on_fold is not None:
            from paicli.cli.receipt_view import receipt_text

            self._on_fold("上下文压缩回执", receipt_text(result.receipt))
            if result.receipt.summary:  # a clearing's receipt opens too, without a line each time
                say(self._progress, "    摘要与回执：Ctrl+O 展开，或 /compact show", "dim")

    def finish(self, result: RunFinished) -> None:
        """Close the run's output once, with the RunFinished the run returned."""
        with self._lock:
            if self.finished is not None:
                return
            self.finished = result
            self._spinner.stop()
            self._close_reasoning()
            self._put_answer(result)
            self._put_outcome(result)
            self._fold_run(result)

    def _fold_run(self, result: RunFinished) -> None:
        """A Plan or Team run: every task's whole result stays one Ctrl+O away, like a folded tool output (a
        run that failed at the planner has no task results to open)."""
        if result.turn is None or self._on_fold is None or not result.turn.tasks:
            return
        self._on_fold(orchestrated(result.turn.mode).what, result.turn.full)
        say(self._progress, "    每个任务的完整结果：Ctrl+O 展开", "dim")

    def _put_answer(self, result: RunFinished) -> None:
        # A cancelled run's answer is only the loop's "cancelled" line; the outcome line says it once.
        self._take_stream_rest()
        fallback = "" if result.status == "cancelled" else result.answer.strip()
        if self._markdown:
            rest = self._blocks.flush()
            if rest:
                print_markdown(self._out, rest)
            elif not self._streamed and fallback:
                print_markdown(self._out, fallback)
            return
        text = "".join(self._plain).strip()
        self._plain.clear()
        if not text and not self._streamed:
            text = fallback
        if text:
            say(self._out, text)

    def _put_outcome(self, result: RunFinished) -> None:
        line = outcome_line(result)
        if line is not None:
            say(self._progress, *line)

    def pause(self) -> None:
        """Make room for a question: stop the spinner and put out what streamed so far."""
        with self._lock:
            self._paused = True
            self._interrupt()

    def resume(self) -> None:
        """After a question: the calls still open (an approved command now running) get their spinner back."""
        with self._lock:
            self._paused = False
            if self._open_calls and not self._spinner.active:
                self._spinner.start("运行 " + ", ".join(sorted(set(self._open_calls.values()))))

    def waiting(self) -> str:
        """The wait line the spinner draws now ("" when none)."""
        with self._lock:
            return self._spinner.line()

    def stop_spinner(self) -> None:
        with self._lock:
            self._spinner.stop()
            self._spinner.show_typed("")  # the task is over: what was typed is in the prompt now

    def show_typed(self, line: str) -> None:
        """Type-ahead, under the spinner; between two waits the spinner comes back for it (not while a question
        is up, nor once the run is over)."""
        with self._lock:
            self._spinner.show_typed(line)
            if line and not self._paused and self.finished is None and not self._spinner.active:
                self._spinner.start(TYPING_LABEL)


__all__ = [
    "EventRenderer",
    "MarkdownBlocks",
    "WaitSpinner",
    "clip",
    "diff_text",
    "fold_lines",
    "keep_line_breaks",
    "key_argument",
    "print_markdown",
    "say",
    "shorten",
    "strip_boundary",
    "summarize_result",
    "tool_call_line",
]
