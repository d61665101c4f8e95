"""`is_plan_event` answers as `isinstance(event, PLAN_EVENTS)` would, from the loaded module (issue 49: a plain
run never loads the Plan and Team events; tests/cli/test_oneshot_imports.py checks that)."""

from __future__ import annotations

from paicli.agent.events import Notice, RunFinished, TextDelta, is_plan_event
from paicli.agent.task_events import PLAN_EVENTS, TaskActivity, TaskFinished, TaskStarted, TaskToolCall
from paicli.tools.base import ToolResult, ToolStarted


def test_the_plan_and_team_events_are_told_apart_from_the_rest() -> None:
    started = ToolStarted("c1", "read_file", "{}")
    plan_events = [
        TaskStarted("t1", "读文件"),
        TaskActivity("t1", "⏺ read_file"),
        TaskToolCall("t1", "worker", started, ToolResult("c1", "read_file", "内容")),
        TaskFinished("t1", "done", "好了"),
    ]
    others = [TextDelta("你好"), Notice("提示"), RunFinished("done", "好"), started, "TaskStarted", None]
    assert [is_plan_event(event) for event in plan_events] == [True] * len(plan_events)
    assert [is_plan_event(event) for event in others] == [False] * len(others)
    assert all(isinstance(event, PLAN_EVENTS) for event in plan_events)
