"""Rendering at a model's limits (issue 40): the newest lines of a block being written, and no Ctrl+O offer
for a plan run that never got past its planner."""

from __future__ import annotations

import io

from rich.console import Console

from paicli.agent.events import RunFinished
from paicli.agent.task_events import RunTurn
from paicli.cli.printing import MarkdownBlocks, tail_lines
from paicli.cli.render import EventRenderer


def test_the_tail_of_a_block_being_written_shows_each_lines_newest_end() -> None:
    blocks = MarkdownBlocks()
    assert blocks.feed("第一段完成。\n\n第二段第一行\n第二段的第二行还很长很长很长") == ["第一段完成。"]
    assert blocks.pending() == "第二段第一行\n第二段的第二行还很长很长很长"
    assert tail_lines(blocks.pending(), 20, 3) == ("第二段第一行", "…二行还很长很长很长")  # 19 of 20 cells
    assert tail_lines("a\nb\nc\nd", 20, 2) == ("c", "d")
    assert tail_lines("\x1b[31m红\x1b[0m", 20, 1) == ("红",)  # nothing a terminal would interpret


def turn(tasks: int) -> RunTurn:
    return RunTurn("plan", "plan-1", "目标", "目标", "摘要", "完整结果", "error", tasks)


def test_the_full_results_are_offered_only_for_a_run_that_had_tasks() -> None:
    for tasks, offered in ((0, False), (2, True)):
        progress = io.StringIO()
        folded: list[tuple[str, str]] = []
        renderer = EventRenderer(
            Console(file=io.StringIO()),
            Console(file=progress),
            on_fold=lambda *f, seen=folded: seen.append(f),
        )
        renderer.finish(RunFinished("error", "", "规划失败", turn=turn(tasks)))
        assert ("每个任务的完整结果：Ctrl+O 展开" in progress.getvalue()) is offered
        assert bool(folded) is offered


def test_piped_an_answer_followed_by_a_notice_still_goes_to_stdout() -> None:
    from paicli.agent.events import Notice, TextDelta

    out, progress = io.StringIO(), io.StringIO()
    renderer = EventRenderer(Console(file=out), Console(file=progress), markdown=False)
    renderer(TextDelta("回答的前半"))
    renderer(Notice("⚠️ 回答因长度上限被截断，内容不完整", "warn"))
    renderer.finish(RunFinished("done", "回答的前半", truncated=True))
    assert out.getvalue() == "回答的前半\n"
    assert progress.getvalue() == "⚠️ 回答因长度上限被截断，内容不完整\n"
