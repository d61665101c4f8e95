from __future__ import annotations

import io
import json

from rich.cells import cell_len
from rich.console import Console

from paicli.agent.events import (
    Compacted,
    ModelCallStarted,
    Notice,
    ReasoningDelta,
    RunFinished,
    TextDelta,
    ToolFinished,
    ToolStarted,
    Waiting,
)
from paicli.cli.render import (
    EventRenderer,
    MarkdownBlocks,
    diff_text,
    key_argument,
    shorten,
    strip_boundary,
    summarize_result,
    tool_call_line,
)
from paicli.context.types import CompactionResult, CompactionStep
from paicli.termsafe import strip_terminal
from paicli.tools.base import ToolResult


def consoles(terminal: bool = False) -> tuple[Console, io.StringIO, Console, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return (
        Console(file=out, force_terminal=terminal, width=100),
        out,
        Console(file=err, force_terminal=terminal, width=100),
        err,
    )


def test_markdown_blocks_cut_at_blank_lines_outside_fences() -> None:
    blocks = MarkdownBlocks()
    assert blocks.feed("# 标题\n\n第一段") == ["# 标题"]
    assert blocks.feed("继续\n\n```py\nx = 1\n\ny = 2\n") == ["第一段继续"]
    assert blocks.feed("```\n\n尾巴") == ["```py\nx = 1\n\ny = 2\n```"]
    assert blocks.flush() == "尾巴"
    assert blocks.flush() == ""


def test_key_argument_prefers_the_meaningful_field() -> None:
    assert key_argument(json.dumps({"limit": 5, "path": "src/app.py"})) == "src/app.py"
    assert key_argument(json.dumps({"command": "pytest -q\n  --lf"})) == "pytest -q --lf"
    assert key_argument(json.dumps({"other": "x"})) == "x"
    assert key_argument("not json") == "not json"
    assert key_argument("") == ""
    assert len(key_argument(json.dumps({"query": "q" * 500}), limit=30)) == 30
    assert tool_call_line("read_file", '{"path": "src/app.py"}') == "⏺ read_file(src/app.py)"


def test_strip_boundary_shows_the_payload_only() -> None:
    wrapped = '<tool_result tool="read_file" trust="untrusted-data">\nline\n</tool_result>'
    assert strip_boundary(wrapped) == "line"
    assert strip_boundary("plain") == "plain"


def test_result_summaries() -> None:
    read = ToolResult("1", "read_file", "\n".join(f"l{i}" for i in range(120)))
    assert summarize_result(read).headline == "读取 120 行"
    many = summarize_result(ToolResult("2", "execute_command", "\n".join(f"out {i}" for i in range(10))))
    assert many.headline == "10 行" and many.preview == ("out 0", "out 1", "out 2") and many.folded_lines == 7
    failed = summarize_result(ToolResult("3", "execute_command", "boom\ntrace", success=False))
    assert failed.tone == "error" and failed.headline == "❌ boom"
    marked = summarize_result(
        ToolResult("3", "read_file", "❌ 参数错误（read_file）: 不是合法的 JSON", success=False)
    )
    assert marked.headline == "❌ 参数错误（read_file）: 不是合法的 JSON"
    blocked = summarize_result(ToolResult("4", "write_file", "用户拒绝", success=False, blocked=True))
    assert blocked.tone == "blocked" and "用户拒绝" in blocked.headline
    offloaded = ToolResult(
        "5",
        "grep_code",
        "[工具输出过大，完整内容已卸载到会话文件]\ntool: grep_code\n"
        "文件: .paicli/tool-outputs/s/001-grep_code.txt",
    )
    assert summarize_result(offloaded).headline.endswith(".paicli/tool-outputs/s/001-grep_code.txt")
    assert summarize_result(ToolResult("6", "x", "")).headline == "完成（无输出）"


def test_refusals_show_their_gist_not_the_advice_for_the_model() -> None:
    def headline(content: str) -> str:
        return summarize_result(ToolResult("1", "edit_file", content, success=False, blocked=True)).headline

    denied = (
        "[HITL] 用户没有批准这次操作，未执行: 编辑文件: a.py。不要换个方式绕过；如确有必要，"
        "请向用户说明原因并等待指示"
    )
    assert headline(denied) == "⛔ 用户没有批准这次操作，未执行: 编辑文件: a.py"
    assert (
        headline("用户取消了命令执行，已终止整个进程组。\n命令: sleep 30")
        == "⏹️ 用户取消了命令执行，已终止整个进程组"
    )
    assert headline("🛡️ 策略拒绝: 路径在项目外") == "⛔ 🛡️ 策略拒绝: 路径在项目外"
    assert headline("路径在项目外") == "⛔ 未执行: 路径在项目外"
    assert headline("") == "⛔ 未执行: 被策略拦截"


def test_diff_lines_are_coloured_and_folded() -> None:
    diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n" + "".join(f"+{i}\n" for i in range(100))
    text = diff_text(diff, keep=10)
    styles = {span.style for span in text.spans}
    assert {"green", "red", "cyan", "bold"} <= styles
    assert "还有 95 行" in text.plain


def test_piped_renderer_puts_answer_on_out_and_progress_on_err() -> None:
    out_console, out, err_console, err = consoles()
    renderer = EventRenderer(out_console, err_console, markdown=False)
    renderer(ModelCallStarted(1))
    renderer(TextDelta("先看看文件。"))
    renderer(ToolStarted("c1", "read_file", '{"path": "a.py"}'))
    renderer(ToolFinished(ToolResult("c1", "read_file", "x\ny")))
    renderer(ReasoningDelta("想一想"))
    renderer(TextDelta("答案是 "))
    renderer(TextDelta("42"))
    renderer.finish(RunFinished("done", "答案是 42"))
    renderer.finish(RunFinished("done", "答案是 42"))  # closed once
    assert out.getvalue() == "答案是 42\n"
    progress = err.getvalue()
    assert "先看看文件。" in progress and "⏺ read_file(a.py)" in progress and "⎿ 读取 2 行" in progress
    assert "想一想" in progress
    assert "\x1b[" not in out.getvalue() + progress


def test_answer_without_deltas_comes_from_the_result() -> None:
    out_console, out, err_console, _ = consoles()
    EventRenderer(out_console, err_console, markdown=False).finish(RunFinished("done", "直接的答案"))
    assert out.getvalue() == "直接的答案\n"


def test_markdown_renderer_streams_blocks_and_colours_diffs() -> None:
    out_console, out, err_console, err = consoles(terminal=True)
    renderer = EventRenderer(out_console, err_console, markdown=True)
    renderer(TextDelta("**粗体**段落\n\n"))
    assert "粗体" in out.getvalue() and "**" not in out.getvalue()
    renderer(ToolStarted("c1", "edit_file", '{"path": "a.py"}'))
    renderer(ToolFinished(ToolResult("c1", "edit_file", "ok", display="-old\n+new\n")))
    renderer(TextDelta("- 项目一\n- 项目二"))
    renderer.finish(RunFinished("done", ""))
    assert "项目二" in out.getvalue()
    assert "\x1b[32m" in err.getvalue() and "+new" in err.getvalue()  # green addition
    assert "\x1b[31m" in err.getvalue() and "-old" in err.getvalue()  # red removal


def test_outcomes_compaction_and_notices() -> None:
    out_console, _, err_console, err = consoles()
    renderer = EventRenderer(out_console, err_console, markdown=False)
    step = CompactionStep("full_summary", 40, 6, 90_000, 12_000)
    clear = CompactionStep("tool_result_clearing", 40, 40, 100_000, 90_000, cleared_tool_results=7)
    renderer(Compacted(CompactionResult(True, "full_summary", 7, (clear, step))))
    renderer(Compacted(CompactionResult(True, "full_summary", 0, (step,)), manual=True))
    renderer(Notice("小心", "warn"))
    renderer.finish(RunFinished("error", "", "网络断开"))
    text = err.getvalue()
    assert "🧹 已清理 7 条旧工具结果" in text
    assert text.count("📦 已压缩历史上下文: 100,000 → 12,000 tokens") == 1
    assert "小心" in text and "❌ 任务未完成: 网络断开" in text


def test_partial_and_cancelled_runs_say_so() -> None:
    for status, expected in (("partial", "没有全部完成"), ("cancelled", "⏹️ 任务已取消")):
        out_console, _, err_console, err = consoles()
        EventRenderer(out_console, err_console, markdown=False).finish(RunFinished(status, "部分"))  # type: ignore[arg-type]
        assert expected in err.getvalue()


def test_a_cancelled_run_says_so_once_and_keeps_what_streamed() -> None:
    for markdown in (False, True):
        out_console, out, err_console, err = consoles()
        EventRenderer(out_console, err_console, markdown=markdown).finish(
            RunFinished("cancelled", "⏹️ 任务已取消。")
        )
        assert out.getvalue() == ""
        assert (out.getvalue() + err.getvalue()).count("任务已取消") == 1
        out_console, out, err_console, err = consoles()
        renderer = EventRenderer(out_console, err_console, markdown=markdown)
        renderer(TextDelta("写到一半的"))
        renderer.finish(RunFinished("cancelled", "⏹️ 任务已取消。"))
        assert "写到一半的" in out.getvalue() and "任务已取消" in err.getvalue()


def test_chinese_progress_lines_fit_the_terminal_width() -> None:
    out_console, _, err_console, err = consoles()  # 100 columns
    renderer = EventRenderer(out_console, err_console, markdown=False)
    renderer(ReasoningDelta("让我想想这个问题。" * 40))
    renderer(ToolStarted("c1", "execute_command", '{"command": "echo 你好"}'))
    denial = "🛡️ 策略拒绝: " + "这条命令会改动项目外的文件" * 12
    renderer(ToolFinished(ToolResult("c1", "execute_command", denial, success=False, blocked=True)))
    renderer(ToolStarted("c2", "execute_command", '{"command": "cat 说明.txt"}'))
    renderer(ToolFinished(ToolResult("c2", "execute_command", "\n".join(["中文输出很长很长" * 20] * 5))))
    lines = err.getvalue().splitlines()
    assert len(lines) == 9  # reasoning, 2 x (call, headline), 3 preview lines, the fold line
    assert all(cell_len(line) <= 100 for line in lines)
    assert lines[0].startswith("💭 让我想想") and lines[0].endswith("（思考 360 字，已折叠）")
    assert "…" in lines[2] and lines[2].startswith("  ⎿ ⛔ 🛡️ 策略拒绝: 这条命令")
    assert shorten("中文" * 10, 9) == "中文中文…" and shorten("a  b\nc", 10) == "a b c"


def test_a_long_streamed_code_block_stays_one_block() -> None:
    code = "```python\n" + "".join(f"x{i} = {i}\n\n" for i in range(2000)) + "```\n"
    blocks = MarkdownBlocks()
    emitted = [block for start in range(0, len(code), 7) for block in blocks.feed(code[start : start + 7])]
    emitted += blocks.feed("\n")
    assert emitted == [code.strip("\n")]
    assert blocks.flush() == ""


def test_an_error_that_already_says_failed_is_not_doubled() -> None:
    out_console, _, err_console, err = consoles()
    EventRenderer(out_console, err_console, markdown=False).finish(RunFinished("error", "", "任务出错: 超时"))
    assert err.getvalue().strip() == "❌ 任务出错: 超时"


def test_single_line_breaks_the_model_wrote_are_kept() -> None:
    import io as _io

    from rich.console import Console as _Console

    from paicli.cli.render import keep_line_breaks, print_markdown

    assert keep_line_breaks("第一行\n第二行") == "第一行\\\n第二行"
    fenced = "```\ncode\nmore\n```"
    assert keep_line_breaks(fenced) == fenced  # code blocks are left alone
    assert keep_line_breaks("- a\n- b") == "- a\n- b"  # list items already are lines
    buffer = _io.StringIO()
    print_markdown(_Console(file=buffer, width=60), "结论如下：\n第一项 完成\n第二项 待办")
    shown = [line.strip() for line in buffer.getvalue().splitlines() if line.strip()]
    assert shown == ["结论如下：", "第一项 完成", "第二项 待办"]


def test_a_run_waiting_for_the_warmup_shows_what_it_waits_for_in_the_spinner() -> None:
    out, out_text, err, err_text = consoles(terminal=True)
    renderer = EventRenderer(out, err)
    renderer(Waiting("分词词典"))
    renderer.stop_spinner()  # the spinner's final frame stays in the captured stream
    assert "等待分词词典加载" in err_text.getvalue()
    assert out_text.getvalue() == ""


def test_the_folded_output_preview_keeps_the_spacing_it_was_printed_with() -> None:
    """Issue 44 item 9: columns and indentation of a command's output survive in the preview lines."""
    table = "NAME      SIZE\nmain.py    120\n    nested  4\n\tx\ttab\nmore\nrest"
    summary = summarize_result(ToolResult("1", "execute_command", table))
    assert summary.preview == ("NAME      SIZE", "main.py    120", "    nested  4")
    assert summary.folded_lines == 3
    out_console, _, err_console, err = consoles(terminal=True)
    renderer = EventRenderer(out_console, err_console, markdown=False)
    renderer(ToolStarted("c1", "execute_command", '{"command": "ls -l"}'))
    renderer(ToolFinished(ToolResult("c1", "execute_command", table)))
    renderer.stop_spinner()
    shown = [line.rstrip() for line in strip_terminal(err.getvalue()).splitlines()]
    assert "    NAME      SIZE" in shown and "        nested  4" in shown
    tabbed = summarize_result(ToolResult("2", "execute_command", "\tx\ttab\nb"))
    assert tabbed.preview[0] == "    x   tab"
