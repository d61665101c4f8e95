"""Pure text for the terminal: one-line tool calls, tool-result summaries, refusals' gist, coloured diffs."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paicli.cli.cells import clip
from paicli.config import knobs
from paicli.termsafe import show_controls, strip_terminal
from paicli.tools.base import CANCELLED_PREFIX, ToolResult

if TYPE_CHECKING:
    from rich.text import Text

_KEY_ARGUMENTS = ("path", "file_path", "command", "pattern", "query", "url", "name", "id", "fact", "content")
_BOUNDARY_OPEN = re.compile(r'\A<tool_result tool="[^"]*" trust="untrusted-data">\n')
_BOUNDARY_CLOSE = "\n</tool_result>"
_OFFLOAD_MARKER = "[工具输出过大，完整内容已卸载到会话文件]"
_READ_TOOLS = {"read_file"}
_CANCELLED_PREFIX = CANCELLED_PREFIX  # the runner's cancelled-call result (spec: blocked results' prefixes)


def shorten(text: str, limit: int) -> str:
    """One line of at most `limit` terminal cells."""
    return clip(" ".join(text.split()), limit)


def preview_line(text: str, limit: int) -> str:
    """One line of a tool's output as it was printed (indentation and column spacing kept), clipped to `limit`
    terminal cells."""
    return clip(text.expandtabs(4).rstrip(), limit)


def key_argument(arguments: str, limit: int = 60) -> str:
    """The argument that says what a call is about (path, command, query…), on one short line."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return shorten(arguments, limit)
    if not isinstance(parsed, dict):
        return shorten(str(parsed), limit)
    for key in _KEY_ARGUMENTS:
        value = parsed.get(key)
        if isinstance(value, str) and value.strip():
            return _argument_text(value, limit)
    for value in parsed.values():
        if isinstance(value, str) and value.strip():
            return _argument_text(value, limit)
    return ""


def _argument_text(value: str, limit: int) -> str:
    """Control characters shown, not obeyed; a command hiding its start behind cursor moves is kept whole
    (the line may run past `limit` rather than drop the part that would have been hidden)."""
    shown = show_controls(value)
    return shorten(shown, limit if shown == value else min(max(limit, len(shown)), 2_000))


def tool_call_line(name: str, arguments: str) -> str:
    return f"⏺ {show_controls(name)}({key_argument(arguments)})"


# Command output is shown as a terminal would show its text (colour codes dropped); any other result (file
# names from list_dir/glob/grep, file text) has its control characters written out.
_STRIPPED_OUTPUT = frozenset({"execute_command"})


def displayed_body(result: ToolResult) -> str:
    body = strip_boundary(result.content)
    return strip_terminal(body) if result.name in _STRIPPED_OUTPUT else show_controls(body)


def strip_boundary(content: str) -> str:
    """Drop the `<tool_result …>` wrapper the runner adds for the model; the user sees the payload."""
    match = _BOUNDARY_OPEN.match(content)
    if match and content.endswith(_BOUNDARY_CLOSE):
        return content[match.end() : -len(_BOUNDARY_CLOSE)]
    return content


@dataclass(frozen=True)
class ResultSummary:
    headline: str
    preview: tuple[str, ...] = ()
    folded_lines: int = 0
    tone: str = "ok"  # ok | error | blocked


def summarize_result(result: ToolResult, preview_lines: int = 3, width: int = 100) -> ResultSummary:
    body = displayed_body(result).rstrip("\n")
    lines = body.splitlines() if body else []
    first = shorten(lines[0], width) if lines else ""
    stopped = stopped_command(result, width)
    if stopped is not None:
        return stopped
    if result.blocked:
        return ResultSummary(blocked_headline(lines[0] if lines else "", width), tone="blocked")
    if result.timed_out:
        return ResultSummary(f"⏱️ 超时: {first or '执行超时'}", tone="error")
    if not result.success:
        first = first.removeprefix("❌").strip()  # many tool errors carry their own mark
        return ResultSummary(
            f"❌ {first or '执行失败'}",
            _preview(lines[1:], preview_lines - 1, width),
            _folded(lines[1:], preview_lines - 1),
            tone="error",
        )
    if body.startswith(_OFFLOAD_MARKER):
        where = next((line.removeprefix("文件: ") for line in lines if line.startswith("文件: ")), "")
        return ResultSummary(f"输出较大，完整内容已存到 {where}".rstrip())
    if not lines:
        return ResultSummary("完成（无输出）")
    if result.name in _READ_TOOLS:
        return ResultSummary(f"读取 {len(lines)} 行")
    if len(lines) == 1:
        return ResultSummary(first)
    if result.name == "grep_code" and lines[0].startswith("grep_code:"):
        return _grep_summary(lines, preview_lines, width)
    return ResultSummary(
        f"{len(lines)} 行", _preview(lines, preview_lines, width), _folded(lines, preview_lines)
    )


# A timed-out or cancelled execute_command result (tools/shell.py): a status line, the command, then this
# header and whatever the command had printed.
PARTIAL_OUTPUT_HEADER = "\n已有输出:\n"
NO_OUTPUT = "(无输出)"
KEPT_OUTPUT_LINES = 5
TIMEOUT_SETTING = knobs.COMMAND_TIMEOUT_SECONDS.key


def stopped_command(result: ToolResult, width: int, keep: int = KEPT_OUTPUT_LINES) -> ResultSummary | None:
    """A command stopped by its time limit or by the user: the limit named and its last output lines, so what
    it printed before it stopped stays on screen (the model gets all of it)."""
    if result.name != "execute_command" or not (result.timed_out or result.blocked):
        return None
    _, found, output = displayed_body(result).partition(PARTIAL_OUTPUT_HEADER)
    if not found:
        return None
    lines = [line for line in output.rstrip("\n").splitlines() if line.strip()]
    lines = [] if lines == [NO_OUTPUT] else lines
    limit = result.metadata.get("limit_seconds")
    timed = isinstance(limit, int | float) and result.timed_out
    if not result.timed_out:
        headline = "⏹️ 已取消并终止了命令"
    else:
        headline = f"⏱️ 超时（{limit:g} 秒上限）已终止" if timed else "⏱️ 超时，已终止"
    kept = lines[-keep:]
    if not kept:
        headline += "，没有输出"
    elif len(lines) > len(kept):
        headline += f"，共 {len(lines)} 行，最后 {len(kept)} 行："
    else:
        headline += "，它的输出："
    preview = [preview_line(line, width) for line in kept]
    if result.timed_out:
        preview.append(f"（时间上限由 {TIMEOUT_SETTING} 设置）")
    return ResultSummary(headline, tuple(preview), tone="error")


_GREP_MATCH = re.compile(r"^.+?:\d+:")


def _grep_summary(lines: list[str], preview_lines: int, width: int) -> ResultSummary:
    """The matching lines first (`path:12:text`), not the context lines around them (`path-11-text`)."""
    matches = [line for line in lines[1:] if _GREP_MATCH.match(line)]
    headline = lines[0].removeprefix("grep_code:").strip()
    return ResultSummary(headline, _preview(matches, preview_lines, width), _folded(lines[1:], preview_lines))


_MODEL_TAGS = ("[HITL]", "[AUTO]")


def blocked_headline(first_line: str, width: int) -> str:
    """The user-facing gist of a refusal: its first sentence, without the tag and advice meant for the model."""
    text = first_line.strip()
    for tag in _MODEL_TAGS:
        text = text.removeprefix(tag).strip()
    sentence = text.split("。", 1)[0].strip()
    if not sentence:
        return "⛔ 未执行: 被策略拦截"
    if sentence.startswith(_CANCELLED_PREFIX):
        return shorten(f"⏹️ {sentence}", width)
    if "未执行" in sentence or sentence.startswith("🛡️"):
        return shorten(f"⛔ {sentence}", width)
    return shorten(f"⛔ 未执行: {sentence}", width)


def _preview(lines: list[str], count: int, width: int) -> tuple[str, ...]:
    return tuple(preview_line(line, width) for line in lines[: max(0, count)])


def _folded(lines: list[str], shown: int) -> int:
    return max(0, len(lines) - max(0, shown))


def fold_lines(text: str, keep: int) -> tuple[list[str], int]:
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= keep:
        return lines, 0
    return lines[:keep], len(lines) - keep


def compaction_lines(cleared: int, summarised: bool, before: int, after: int) -> list[str]:
    lines: list[str] = []
    if cleared:
        lines.append(f"🧹 已清理 {cleared} 条旧工具结果")
    if summarised:
        lines.append(f"📦 已压缩历史上下文: {before:,} → {after:,} tokens")
    return lines


def diff_text(diff: str, keep: int = 60) -> Text:
    """A unified diff with + lines green and - lines red, folded after `keep` lines."""
    from rich.text import Text

    lines, folded = fold_lines(diff, keep)
    text = Text()
    for line in lines:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = "dim"
        text.append("    " + show_controls(line) + "\n", style=style)
    if folded:
        text.append(f"    … 还有 {folded} 行改动未显示\n", style="dim")
    return text
