"""What the person reads when a run or a compaction ends, as (text, style) lines: pure, so the renderer only
decides where and when they go."""

from __future__ import annotations

from paicli.agent.events import RunFinished
from paicli.cli.summaries import compaction_lines
from paicli.context.types import CompactionResult

Line = tuple[str, str]  # (text, rich style)


def outcome_line(result: RunFinished) -> Line | None:
    """The closing line of a run that did not simply succeed (None: it did)."""
    if result.status == "partial":
        detail = f"：{result.error}" if result.error else ""
        return f"⚠️ 任务没有全部完成，以上是目前的结果{detail}", "yellow"
    if result.status == "cancelled":
        return "⏹️ 任务已取消", "yellow"
    if result.status == "error":
        error = (result.error or "未知错误").removeprefix("❌").strip()
        return (f"❌ {error}" if error.startswith("任务出错") else f"❌ 任务未完成: {error}"), "bold red"
    return None


def compacted_lines(result: CompactionResult, manual: bool) -> list[Line] | None:
    """The lines an automatic compaction gets (a manual one is reported by its command); None: nothing is
    said, not even a break in the streamed output."""
    if manual or not result.changed:
        if result.error and not manual:
            return [(f"⚠️ 自动压缩未完成: {result.error}", "yellow")]
        return None
    lines = [
        (line, "cyan")
        for line in compaction_lines(
            result.cleared_tool_results, result.compacted, result.before_tokens, result.after_tokens
        )
    ]
    if result.notice:
        lines.append((result.notice, "yellow"))
    return lines
