"""What a Plan task's or a Team member's own loop shows of its events: one forwarder for both."""

from __future__ import annotations

from paicli.agent.events import (
    AgentEvent,
    EventSink,
    ModelCallStarted,
    Notice,
    ReasoningDelta,
    TextDelta,
    ToolFinished,
    ToolProgress,
    ToolStarted,
    ToolWaiting,
)
from paicli.agent.task_events import TaskActivity, TaskToolCall


def member_events(member_id: str, emit: EventSink, parallel: bool, *, who: str = "") -> EventSink:
    """A member's own text is not streamed (its result is shown when it ends); in parallel, model calls become
    the member's live status and each tool call is shown whole once it has finished (`TaskToolCall`), so
    nothing interleaves. `who` (Team: the step's worker): every model call is the step's status, naming the
    caller only when it is someone else (the reviewer), since the status line already names the worker."""
    started: dict[str, ToolStarted] = {}  # one member runs one call at a time; its sink is its own

    def waiting(actor: str) -> str:
        return "等待模型回复" if not who or actor == who else f"{actor} 等待模型回复"

    def forward(event: AgentEvent) -> None:
        if isinstance(event, (TextDelta, ReasoningDelta)):
            return
        if parallel and isinstance(event, ToolProgress):  # live command output would interleave
            return
        if isinstance(event, ModelCallStarted) and (parallel or who):
            emit(TaskActivity(member_id, waiting(event.actor)))
        elif parallel and isinstance(event, ToolWaiting):
            emit(TaskActivity(member_id, event.what or f"⏺ {event.name}"))
        elif parallel and isinstance(event, ToolStarted):
            started[event.call_id] = event
            emit(TaskActivity(member_id, f"⏺ {event.name}"))
        elif parallel and isinstance(event, ToolFinished):
            result = event.result
            call = started.pop(result.call_id, None) or ToolStarted(result.call_id, result.name, "{}")
            emit(TaskToolCall(member_id, who or member_id, call, result))
            emit(TaskActivity(member_id, f"{'✓' if result.success else '✗'} {result.name}"))
        elif parallel and isinstance(event, Notice) and f"[{member_id}]" not in event.text:
            emit(Notice(f"[{member_id}] {event.text}", event.level))
        else:
            emit(event)

    return forward
