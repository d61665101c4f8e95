"""What a Plan task's or a Team member's own loop shows of its events: one forwarder for both."""

from __future__ import annotations

from paicli.agent.events import (
    AgentEvent,
    EventSink,
    ModelCallStarted,
    Notice,
    ReasoningDelta,
    TaskActivity,
    TextDelta,
    ToolFinished,
    ToolProgress,
    ToolStarted,
    ToolWaiting,
)


def member_events(member_id: str, emit: EventSink, parallel: bool, *, name_actor: bool = False) -> EventSink:
    """A member's own text is not streamed (its result is shown when it ends); in parallel, tool lines and model
    calls become the member's live status, so nothing interleaves. `name_actor` (Team): every model call is the
    step's status, naming who calls (worker or reviewer)."""

    def forward(event: AgentEvent) -> None:
        if isinstance(event, (TextDelta, ReasoningDelta)):
            return
        if parallel and isinstance(event, ToolProgress):  # live command output would interleave
            return
        if isinstance(event, ModelCallStarted) and (parallel or name_actor):
            emit(TaskActivity(member_id, f"{event.actor} 等待模型回复" if name_actor else "等待模型回复"))
        elif parallel and isinstance(event, ToolWaiting):
            emit(TaskActivity(member_id, event.what or f"⏺ {event.name}"))
        elif parallel and isinstance(event, ToolStarted):
            emit(TaskActivity(member_id, f"⏺ {event.name}"))
        elif parallel and isinstance(event, ToolFinished):
            emit(TaskActivity(member_id, f"{'✓' if event.result.success else '✗'} {event.result.name}"))
        elif parallel and isinstance(event, Notice) and f"[{member_id}]" not in event.text:
            emit(Notice(f"[{member_id}] {event.text}", event.level))
        else:
            emit(event)

    return forward
