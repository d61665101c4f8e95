"""Waits before a model call (memory lookup, compaction check): drawn once they last 300 ms, each timed on its
own; the model call that follows starts its own clock. A fake clock drives the time."""

from __future__ import annotations

import io

from rich.console import Console

from paicli.agent.events import CompactionStarted, ModelCallStarted, Notice, Preparing, RunFinished, TextDelta
from paicli.agent.react import MEMORY_LOOKUP
from paicli.agent.task_events import TaskStarted
from paicli.cli.render import COMPACTING_LABEL, TYPING_LABEL, EventRenderer
from paicli.cli.spinner import WaitSpinner


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


def test_a_call_waiting_for_the_workspace_snapshot_says_so_then_goes_back_to_its_own_label() -> None:
    from paicli.agent.events import ToolStarted, ToolWaiting

    clock = Clock()
    shown = renderer(clock)
    try:
        shown(ToolStarted("c1", "write_file", '{"path": "a.txt"}'))
        shown(ToolWaiting("c1", "write_file", "等待工作区快照准备完成（已记录 2,000/10,000 个文件）"))
        clock.now += 1.0
        assert shown.waiting().startswith("等待工作区快照准备完成（已记录 2,000/10,000 个文件） · 1s")
        shown(ToolWaiting("c1", "write_file", ""))  # the snapshot is ready: the call's own label again
        clock.now += 1.0
        assert shown.waiting().startswith("运行 write_file · ")
    finally:
        shown.stop_spinner()


def test_text_typed_ahead_is_drawn_while_a_wait_is_still_too_short_to_show() -> None:
    clock = Clock()
    spinner = WaitSpinner(Console(file=io.StringIO(), force_terminal=True, width=60), clock)
    plain = Console(file=io.StringIO(), width=60, color_system=None)
    try:
        spinner.start(MEMORY_LOOKUP, delay=0.3)
        spinner.show_typed("下一个问题")
        with plain.capture() as drawn:
            plain.print(spinner)
        assert drawn.get().splitlines() == ["⌨️ 已输入: 下一个问题"]  # the lookup itself is not drawn yet
        clock.now += 0.5
        with plain.capture() as drawn:
            plain.print(spinner)
        assert drawn.get().splitlines()[1:] == ["⌨️ 已输入: 下一个问题"]
        assert MEMORY_LOOKUP in drawn.get().splitlines()[0]
    finally:
        spinner.stop()


def test_typing_between_two_waits_brings_the_spinner_back_for_the_typed_line() -> None:
    clock = Clock()
    shown = EventRenderer(Console(file=io.StringIO(), force_terminal=True, width=60), clock=clock)
    try:
        shown(ModelCallStarted(1))
        shown(Notice("模型请求失败，正在重试"))  # the notice stops the spinner: nothing is drawn now
        assert shown.waiting() == ""
        shown.show_typed("下一个")
        assert shown.waiting() == f"{TYPING_LABEL} · 0s · Esc 取消"
        shown.pause()  # a question is up: typing does not draw over it
        shown.show_typed("")
        shown.show_typed("下一个问")
        assert shown.waiting() == ""
        shown.resume()
        shown.finish(RunFinished("done", "好的"))
        shown.show_typed("再")  # the run is over: the prompt shows it, no spinner
        assert shown.waiting() == ""
    finally:
        shown.stop_spinner()
