"""SessionResume: the rebuilt view is the view the model last saw, whatever happened to the file."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.llm.messages import Message, ToolCall
from paicli.session.ledger import ConversationLedger
from paicli.session.resume import (
    INTERRUPTED_RESULT,
    LedgerEntry,
    load_view,
    parse_entries,
    rebuild_view,
    repair_tool_pairs,
)

from .helpers import ReactRecorder, new_ledger, valid_protocol


def recorded(tmp_path: Path, project: Path) -> tuple[ConversationLedger, ReactRecorder, Path]:
    ledger = new_ledger(tmp_path, project)
    assert ledger.path is not None
    return ledger, ReactRecorder(ledger), ledger.path


def both_ways(path: Path) -> list[Message]:
    """load_view (from the end) and the pure fold over every line must agree."""
    from_end = load_view(path)
    entries, _ = parse_entries(path.read_bytes().splitlines())
    assert from_end.messages == rebuild_view(entries).messages
    return from_end.messages


def test_replay_without_checkpoint_rebuilds_the_view(tmp_path: Path, project: Path) -> None:
    _, recorder, path = recorded(tmp_path, project)
    recorder.user("列出文件")
    recorder.tool_round("call-1", "list_dir", '{"path":"."}', "a.txt\nb.txt")
    recorder.refresh_system("新的系统提示，带记忆")
    recorder.answer("有两个文件", reasoning="很长的推理")
    result = load_view(path)
    assert result.messages == recorder.view
    assert result.checkpoint_sequence is None and result.notices == []
    assert (
        result.messages[-1].reasoning_content is None
    )  # the final answer's reasoning stays in the ledger only
    assert result.messages[1].reasoning_content == "想一想"  # a tool-call message keeps it, as in the view
    assert result.last_sequence == 7


def test_view_after_each_compaction_level_and_clear(tmp_path: Path, project: Path) -> None:
    _, recorder, path = recorded(tmp_path, project)
    for i in range(3):
        recorder.user(f"问题 {i}")
        recorder.tool_round(f"call-{i}", "read_file", f'{{"path":"f{i}"}}', "内容" * 300)
        recorder.answer(f"回答 {i}")
    assert both_ways(path) == recorder.view

    cleared = [
        m.with_content("[已清理的旧工具结果] read_file") if m.role == "tool" else m for m in recorder.view
    ]
    recorder.replace_view("automatic:tool_result_clearing", cleared, {"clearedToolResults": 3})
    assert both_ways(path) == recorder.view
    recorder.user("再来")
    recorder.tool_round("call-9", "grep", '{"pattern":"x"}', "hit")
    assert both_ways(path) == recorder.view

    summary = [
        Message.user("[已压缩的历史对话摘要]\n## 当前目标与成功条件\n读文件"),
        Message.assistant("好的，继续"),
    ]
    recorder.replace_view(
        "automatic:full_summary", [*summary, *recorder.view[-3:]], {"strategy": "full_summary"}
    )
    assert both_ways(path) == recorder.view
    recorder.answer("完成了")
    assert both_ways(path) == recorder.view

    recorder.replace_view(
        "automatic:session_memory", [Message.user("会话记忆摘要")], {"strategy": "session_memory"}
    )
    recorder.user("然后呢")
    assert both_ways(path) == recorder.view

    recorder.clear()
    assert both_ways(path) == [] == recorder.view
    recorder.user("清空后的第一句")
    result = load_view(path)
    assert result.messages == recorder.view and valid_protocol(result.messages)


def test_torn_last_line_is_skipped_with_a_notice(tmp_path: Path, project: Path) -> None:
    _, recorder, path = recorded(tmp_path, project)
    recorder.user("你好")
    recorder.answer("你好！")
    full = path.read_bytes()
    entry = json.dumps(
        {"schemaVersion": 1, "sequence": 99, "event": "user", "mode": "react", "actor": "agent"}
    )
    path.write_bytes(full + entry.encode()[:40])
    result = load_view(path)
    assert result.messages == recorder.view
    assert len(result.notices) == 1 and "已跳过" in result.notices[0]


def test_truncated_file_resumes_into_a_valid_view(tmp_path: Path, project: Path) -> None:
    _, recorder, path = recorded(tmp_path, project)
    recorder.user("任务")
    for i in range(4):
        recorder.tool_round(f"c{i}", "read_file", f'{{"path":"{i}"}}', "结果" * 50)
    full = path.read_bytes()
    for cut in range(len(full) // 3, len(full), max(1, len(full) // 17)):
        path.write_bytes(full[:cut])
        result = load_view(path)
        assert valid_protocol(result.messages)
        assert result.messages == recorder.view[: len(result.messages)] or result.repaired


def test_torn_checkpoint_falls_back_to_the_previous_one(tmp_path: Path, project: Path) -> None:
    _, recorder, path = recorded(tmp_path, project)
    recorder.user("一")
    recorder.replace_view("manual", [Message.user("摘要一")], {})
    recorder.user("二")
    expected = list(recorder.view)
    before = path.read_bytes()
    recorder.replace_view("manual", [Message.user("摘要二")], {})
    after = path.read_bytes()
    path.write_bytes(after[: len(after) - 20])  # the newest checkpoint line lost its end
    result = load_view(path)
    assert result.messages == expected
    assert result.checkpoint_sequence is not None and len(result.notices) == 1
    assert before in path.read_bytes()


def test_unknown_events_and_other_actors_are_ignored(tmp_path: Path, project: Path) -> None:
    ledger, recorder, path = recorded(tmp_path, project)
    recorder.user("做计划")
    ledger.append_event("brand_new_event", "react", "agent", "future", {"x": 1})
    ledger.append_message("plan", "task:task_1", "llm_response", Message.assistant("任务内部的回答"))
    ledger.append_event("view_image_prune", "react", "agent", "image", {"messages": 1, "images": 2})
    ledger._append("summary_request", "react", "agent", "future", Message.user("不在视图里").to_json(), {})
    with path.open("a", encoding="utf-8") as handle:
        handle.write(
            '{"schemaVersion":2,"sequence":50,"event":"user","mode":"react","actor":"agent",'
            '"message":{"role":"robot","content":"?"}}\n'
        )
        handle.write("[1,2,3]\n\n")
    recorder.answer("好的")
    result = load_view(path)
    assert result.messages == recorder.view
    assert len(result.notices) == 2  # the unknown role and the non-object line


def test_checkpoint_after_many_invalid_lines_is_read_from_the_end(tmp_path: Path, project: Path) -> None:
    _, recorder, path = recorded(tmp_path, project)
    with path.open("ab") as handle:
        handle.write(b"garbage that would produce notices\n" * 20000)
    recorder.user("问")
    recorder.replace_view("manual", [Message.user("摘要")], {})
    recorder.answer("答")
    result = load_view(path)
    assert result.messages == recorder.view
    assert result.notices == []  # nothing before the checkpoint was parsed


def test_dangling_tool_calls_get_an_interrupted_result(tmp_path: Path, project: Path) -> None:
    _, recorder, path = recorded(tmp_path, project)
    recorder.user("跑两个命令")
    calls = (
        ToolCall("a", "execute_command", '{"command":"ls"}'),
        ToolCall("b", "execute_command", '{"command":"pwd"}'),
    )
    recorder.add("llm_response", Message.assistant(None, calls))
    recorder.add("tool_execution", Message.tool("a", "file.txt"))
    result = load_view(path)
    assert valid_protocol(result.messages)
    assert result.messages[-1] == Message.tool("b", INTERRUPTED_RESULT)
    assert result.messages[:-1] == recorder.view
    assert result.repaired == 1 and any("中断" in n for n in result.notices)


def test_repair_drops_strays_and_duplicates_and_keeps_valid_views() -> None:
    call = ToolCall("x", "read_file", "{}")
    messy = [
        Message.tool("orphan", "stray"),
        Message.user("u"),
        Message.assistant(None, (call,)),
        Message.tool("x", "r1"),
        Message.tool("x", "dup"),
        Message.tool("y", "wrong id"),
        Message.user("next"),
        Message.assistant(None, (ToolCall("z", "grep", "{}"),)),
        Message.user("died mid-tool, then went on"),
    ]
    fixed, fixes = repair_tool_pairs(messy)
    assert valid_protocol(fixed) and fixes == 4
    assert [m.content for m in fixed] == [
        "u",
        None,
        "r1",
        "next",
        None,
        INTERRUPTED_RESULT,
        "died mid-tool, then went on",
    ]
    clean = fixed
    assert repair_tool_pairs(clean) == (clean, 0)


def test_plan_state_is_passed_through_untouched(tmp_path: Path, project: Path) -> None:
    ledger, recorder, path = recorded(tmp_path, project)
    recorder.user("计划")
    state = {
        "nodes": [
            {"id": "task_1", "type": "FILE_READ", "status": "COMPLETED", "result": "ok", "dependencies": []}
        ]
    }
    ledger.record_view_checkpoint("plan_progress", recorder.history, {"planState": state, "strategy": "x"})
    result = load_view(path)
    assert result.plan_state == state and result.extra == {"strategy": "x"}
    assert result.messages == recorder.view


def test_parse_entries_reports_line_numbers() -> None:
    good = json.dumps(
        {
            "schemaVersion": 1,
            "sequence": 1,
            "event": "user",
            "mode": "react",
            "actor": "agent",
            "source": "user_input",
            "message": {"role": "user", "content": "hi"},
            "metadata": {},
        }
    )
    entries, notices = parse_entries([good, "{broken", "", good.replace('"sequence": 1', '"sequence": "x"')])
    assert [type(e) for e in entries] == [LedgerEntry]
    assert len(notices) == 2 and "第 2 行" in notices[0] and "第 4 行" in notices[1]
