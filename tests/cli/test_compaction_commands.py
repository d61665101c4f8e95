"""The /compact sub-commands, /pin rows and the receipt text (issue 38); the flows run end to end in
test_e2e_pins_receipts.py."""

from __future__ import annotations

from paicli.cli.command_table import BUILTIN
from paicli.cli.compaction_controls import compact_subcommand
from paicli.cli.receipt_view import pins_text, receipt_text
from paicli.cli.repl_dispatch import Dispatcher
from paicli.context.receipts import Receipt, ReplacedItem
from paicli.testing.fake_backend import FakeBackend
from tests.cli.test_command_table import ScriptedIO


def test_compact_arguments_pick_show_undo_preview_or_a_focus() -> None:
    assert compact_subcommand("") == ("compact", "")
    assert compact_subcommand("SHOW") == ("show", "")
    assert compact_subcommand("undo") == ("undo", "")
    assert compact_subcommand("--preview") == ("preview", "")
    assert compact_subcommand("--preview 保留 文件名") == ("preview", "保留 文件名")
    assert compact_subcommand("show me the paths") == ("compact", "show me the paths")  # a focus
    assert compact_subcommand("保留错误信息") == ("compact", "保留错误信息")


def test_the_rows_parse_and_compact_waits_for_a_running_task() -> None:
    for line, name in (
        ("/pin last", "pin"),
        ("/pins", "pins"),
        ("/unpin 2", "unpin"),
        ("/compact undo", "compact"),
    ):
        parsed = BUILTIN.parse(line)
        assert (parsed.kind, parsed.name) == ("command", name), line
    assert BUILTIN.parse("/unpin two").kind == "unknown"
    spec = BUILTIN.find("compact")
    assert spec is not None and spec.idle_only


def test_a_session_without_controls_says_so() -> None:
    scripted = ScriptedIO()
    dispatcher = Dispatcher(FakeBackend(), scripted)  # type: ignore[arg-type]
    dispatcher.handle("/pin 发版分支叫 release-7")
    dispatcher.handle("/compact show")
    assert scripted.out.getvalue().count("不支持固定内容和压缩回执") == 2


def test_receipt_text_says_what_was_kept_summarised_cleared_and_what_it_cost() -> None:
    receipt = Receipt(
        strategy="full_summary",
        before_tokens=9_000,
        after_tokens=3_000,
        before_messages=40,
        after_messages=9,
        replaced=(ReplacedItem(id="r31", tool="read_file", chars=4_000),),
        summarised_id="r2-30",
        summarised_messages=31,
        summarised_user_turns=6,
        kept_messages=6,
        kept_id="r33-40",
        summary="[已压缩的历史对话摘要] recall:r2-30\n## 当前目标与成功条件\n\x1b[31m红字\x1b[0m",
        predicted_uncached=2_500,
    )
    text = receipt_text(receipt, pins=2)
    for piece in (
        "自动，历史摘要",
        "9,000 → 3,000",
        "摘要替换了 31 条消息，其中用户消息 6 条（原文 recall:r2-30）",
        "清理了 1 条工具结果：r31 read_file 约 4,000 字符",
        "原样保留 6 条消息（recall:r33-40），以及 2 条固定内容",
        "预计约 2,500 tokens",
        "实际数字在下一次请求的 usage 返回后记录",
        "## 当前目标与成功条件",
    ):
        assert piece in text, piece
    assert "\x1b" not in text  # model text is shown, never obeyed
    observed = receipt_text(receipt.observed(5_000, 2_000), with_summary=False)
    assert "实际 3,000 tokens（共 5,000，缓存命中 2,000）" in observed and "## 当前目标" not in observed


def test_pins_text_lists_numbered_pins() -> None:
    assert "还没有固定内容" in pins_text(())
    text = pins_text(("发版分支叫 release-7", "两行\n内容"))
    assert "固定内容 2 条" in text and "  1. 发版分支叫 release-7" in text and "  2. 两行\n     内容" in text


def test_a_compaction_notice_keeps_its_receipt_for_ctrl_o() -> None:
    import io

    from rich.console import Console

    from paicli.agent.events import Compacted
    from paicli.cli.render import EventRenderer
    from paicli.context.types import CompactionResult, CompactionStep

    folds: list[tuple[str, str]] = []
    progress = io.StringIO()
    renderer = EventRenderer(
        Console(file=io.StringIO()),
        Console(file=progress, width=120),
        on_fold=lambda t, x: folds.append((t, x)),
    )
    receipt = Receipt(
        strategy="full_summary",
        summarised_id="r2-9",
        summarised_messages=8,
        summary="[已压缩的历史对话摘要] recall:r2-9\n摘要",
    )
    step = CompactionStep("full_summary", 12, 4, 9_000, 3_000)
    renderer(Compacted(CompactionResult(True, "full_summary", 0, (step,), receipt=receipt)))
    assert folds and folds[-1][0] == "上下文压缩回执" and "recall:r2-9" in folds[-1][1]
    assert "Ctrl+O 展开" in progress.getvalue()
    clearing = Receipt(
        strategy="tool_result_clearing", replaced=(ReplacedItem(id="r5", tool="grep_code", chars=900),)
    )
    step = CompactionStep("tool_result_clearing", 12, 12, 9_000, 8_000, 1, ("c1",))
    renderer(Compacted(CompactionResult(False, "tool_result_clearing", 1, (step,), receipt=clearing)))
    assert "r5 grep_code" in folds[-1][1] and progress.getvalue().count("Ctrl+O 展开") == 1
