"""`paicli -p`: run one task, print it as text / json / stream-json, map the outcome to an exit code."""

from __future__ import annotations

import json
import shutil
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any, TextIO

from paicli.agent.events import (
    AgentEvent,
    Compacted,
    CompactionStarted,
    ModelCallFinished,
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
    is_plan_event,
)
from paicli.cancel import CancelToken
from paicli.cli.live_output import ThrottledLines
from paicli.config.modes import RunMode
from paicli.termsafe import show_controls, strip_terminal

if TYPE_CHECKING:
    from paicli.cli.backend import SessionPort

PREVIEW_CHARS = 2000


def event_to_json(event: AgentEvent) -> dict[str, Any]:
    if isinstance(event, TextDelta):
        return {"type": "text_delta", "text": event.text}
    if isinstance(event, ReasoningDelta):
        return {"type": "reasoning_delta", "text": event.text}
    if isinstance(event, ModelCallStarted):
        return {"type": "model_call", "iteration": event.iteration, "actor": event.actor}
    if isinstance(event, ModelCallFinished):
        usage = event.usage
        return {
            "type": "usage",
            "model": event.model,
            "input_tokens": usage.prompt_tokens if usage else 0,
            "output_tokens": usage.completion_tokens if usage else 0,
            "cached_input_tokens": usage.cached_tokens if usage else 0,
        }
    if isinstance(event, ToolStarted):
        return {"type": "tool_start", "id": event.call_id, "name": event.name, "arguments": event.arguments}
    if isinstance(event, ToolFinished):
        r = event.result
        return {
            "type": "tool_end",
            "id": r.call_id,
            "name": r.name,
            "success": r.success,
            "blocked": r.blocked,
            "content": r.content[:PREVIEW_CHARS],
        }
    if isinstance(event, Compacted):
        res = event.result
        line: dict[str, Any] = {
            "type": "compaction",
            "strategy": res.strategy,
            "manual": event.manual,
            "cleared_tool_results": res.cleared_tool_results,
            "before_tokens": res.before_tokens,
            "after_tokens": res.after_tokens,
        }
        if res.receipt is not None:
            line["receipt"] = res.receipt.to_metadata()  # what was kept, summarised, cleared; predicted cost
        return line
    if isinstance(event, Notice):
        return {"type": "notice", "level": event.level, "text": event.text}
    if isinstance(event, Waiting):
        return {"type": "waiting", "what": event.what}
    if is_plan_event(event):
        from paicli.cli.plan_lines import plan_event_json  # loaded with the Plan and Team events themselves

        plan = plan_event_json(event)
        if plan is not None:
            return plan
    assert isinstance(event, RunFinished)
    return {
        "type": "run_finished",
        "status": event.status,
        "error": event.error,
        "truncated": event.truncated,
    }


def describe_event(event: AgentEvent) -> str | None:
    """One stderr line for text mode (progress and tool activity)."""
    if isinstance(event, ToolStarted):
        args = event.arguments if len(event.arguments) <= 120 else event.arguments[:117] + "..."
        return f"⏺ {event.name} {args}"
    if isinstance(event, ToolFinished):
        first = event.result.content.strip().splitlines()
        mark = "✓" if event.result.success and not event.result.blocked else "✗"
        summary = ""
        for line in first:
            if not line.startswith("<tool_result"):
                summary = line[:160]
                break
        return f"  {mark} {summary}"
    if isinstance(event, Compacted):
        res = event.result
        if res.notice:
            return res.notice
        if res.compacted:
            return f"📦 上下文已压缩为摘要：{res.before_tokens:,} -> {res.after_tokens:,} tokens"
        if res.cleared_tool_results:
            return f"🧹 已清理 {res.cleared_tool_results} 条较早的工具结果以节省上下文"
        return None
    if isinstance(event, Notice):
        return event.text
    if is_plan_event(event):
        from paicli.cli.plan_lines import plan_event_line

        return plan_event_line(event)
    return None


def exit_code(status: str) -> int:
    return {"done": 0, "partial": 0, "error": 1, "cancelled": 130}.get(status, 1)


class _SigintCanceller:
    """First Ctrl+C (or SIGTERM) cancels the run cleanly; a second one exits at once.

    SIGTERM is handled like Ctrl+C so that `timeout` or a CI runner stopping paicli does not leave a
    command's process group (started in its own session) running as an orphan.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, cancel: CancelToken) -> None:
        self.cancel = cancel
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> _SigintCanceller:
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.cancel.cancelled:
            raise SystemExit(130)
        self.cancel.cancel()

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self.previous.items():
            signal.signal(sig, previous)


def run_oneshot(
    backend: SessionPort,
    task: str,
    mode: RunMode,
    output_format: str,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    finished = run_turn(backend, task, mode, output_format, out, err)
    return finish_turn(backend, finished, output_format, out, err)


def run_turn(
    backend: SessionPort, task: str, mode: RunMode, output_format: str, out: TextIO, err: TextIO
) -> RunFinished:
    """One task, its events shown as `output_format` says; Ctrl+C / SIGTERM cancel it."""
    cancel = CancelToken()
    emit = _emitter(output_format, out, err)
    with _SigintCanceller(cancel):
        return backend.run(task, mode, emit, cancel)


def finish_turn(
    backend: SessionPort,
    finished: RunFinished,
    output_format: str,
    out: TextIO,
    err: TextIO,
    *,
    close: bool = True,
    extra: dict[str, Any] | None = None,
) -> int:
    """The turn's answer (or result record, with `extra`'s fields) and the notices so far; `close`: the
    session is closed first (its background work waited for), the last turn of a process."""
    if close:
        backend.close(timeout=10.0)
    for line in backend.drain_notices():
        if output_format == "stream-json":
            write_json(out, {"type": "notice", "level": "info", "text": line})
        else:
            err.write(show_controls(line) + "\n")
    if output_format == "text":
        if finished.status == "error":
            err.write(f"❌ {show_controls(finished.error or '')}\n")
        elif finished.status == "cancelled":
            err.write(f"{show_controls(finished.answer)}\n")
        else:
            out.write(strip_terminal(finished.answer).rstrip("\n") + "\n")
    else:
        write_json(out, {**result_record(backend, finished), **(extra or {})})
    out.flush()
    return exit_code(finished.status)


def result_record(backend: SessionPort, finished: RunFinished) -> dict[str, Any]:
    """The closing JSON record. Built only for the JSON formats: the banner information it reads the session id
    from probes the command sandbox (a child process), which a text run has no use for."""
    status = backend.status()
    return {
        "type": "result",
        "is_error": finished.status in ("error", "cancelled"),
        "result": finished.answer if finished.status != "error" else (finished.error or ""),
        "session_id": backend.info().session_id,
        "num_turns": status.model_calls,
        "usage": {
            "input_tokens": status.input_tokens,
            "output_tokens": status.output_tokens,
            "cached_input_tokens": status.cached_tokens,
        },
        "cost": status.spend.as_json(),  # {"CNY": 0.0123}; null when a call could not be priced
        "truncated": finished.truncated,  # the answer was cut by the output limit and stays incomplete
        "files_changed": list(finished.files_changed),  # by tools and commands (from the workspace snapshots)
    }


def write_json(out: TextIO, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def _emitter(output_format: str, out: TextIO, err: TextIO) -> Callable[[AgentEvent], None]:
    lock = threading.Lock()
    live = ThrottledLines(_writer(err), _terminal_width, lock)

    def emit(event: AgentEvent) -> None:
        with lock:
            if isinstance(event, ToolProgress):  # live output: text mode only, on stderr
                if output_format == "text":
                    live.add(event.line)
                return
            if isinstance(
                event, CompactionStarted | Preparing | ToolWaiting
            ):  # display only: a terminal's wait, not an outcome
                return
            if output_format == "stream-json":
                if not isinstance(event, RunFinished):
                    write_json(out, event_to_json(event))
                return
            if output_format == "text":
                live.flush()
                line = describe_event(event)
                if line:
                    err.write(show_controls(line) + "\n")
                    err.flush()

    return emit


def _writer(stream: TextIO) -> Callable[[str], None]:
    def write(text: str) -> None:
        stream.write(text)
        stream.flush()

    return write


def _terminal_width() -> int:
    return shutil.get_terminal_size((120, 24)).columns
