"""Waits before a model call (memory lookup, compaction check): drawn once they last 300 ms, each timed on its
own; the model call that follows starts its own clock. A fake clock drives the time."""

from __future__ import annotations

import io

from rich.console import Console

from paicli.agent.events import CompactionStarted, ModelCallStarted, Preparing, TaskStarted, TextDelta
from paicli.agent.react import MEMORY_LOOKUP
from paicli.cli.render import COMPACTING_LABEL, EventRenderer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def renderer(clock: Clock) -> EventRenderer:
    terminal = Console(file=io.StringIO(), force_terminal=True, width=100)
    return EventRenderer(terminal, clock=clock)


def test_a_wait_before_the_model_call_is_drawn_after_300_ms_with_its_own_time() -> None:
    clock = Clock()
    shown = renderer(clock)
    try:
        shown(Preparing(MEMORY_LOOKUP))
        assert shown.waiting() == ""  # an instant lookup draws nothing
        clock.now += 0.5
        assert shown.waiting() == f"{MEMORY_LOOKUP} · 0s · Esc 取消"
        shown(CompactionStarted())
        clock.now += 0.2
        assert shown.waiting() == ""  # a new wait, not yet 300 ms old
        clock.now += 4.0
        assert shown.waiting() == f"{COMPACTING_LABEL} · 4s · Esc 取消"
        shown(ModelCallStarted(1))
        clock.now += 2.0
        assert shown.waiting() == "等待模型回复 · 2s · Esc 取消"  # not 6 s: its own clock
        shown(TextDelta("好的\n\n"))  # the answer being written has a clock of its own too (issue 40)
        clock.now += 3.0
        assert shown.waiting() == "正在输出回答（已收到 4 字） · 3s · Esc 取消"
    finally:
        shown.stop_spinner()


def test_a_sub_agents_compaction_is_named_and_a_plan_live_line_keeps_the_spinner() -> None:
    clock = Clock()
    shown = renderer(clock)
    try:
        shown(CompactionStarted("reviewer"))
        clock.now += 1.0
        assert shown.waiting().startswith(f"reviewer {COMPACTING_LABEL} · 1s")
        shown.stop_spinner()
        shown(TaskStarted("t1", "并行任务", parallel=True))
        before = shown.waiting()
        shown(CompactionStarted("t1"))  # a parallel task's check: the live line of the tasks stays
        clock.now += 1.0
        assert before.startswith("t1: 启动中") and shown.waiting().startswith("t1: 启动中")
    finally:
        shown.stop_spinner()
