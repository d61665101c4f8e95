"""The ledger side of issue 43: the turns `/rewind` can go back to (a rewind and `/clear` take turns away,
nothing is erased), the snapshot before a turn, the view as the model saw it then, the export of the whole
conversation without the program's internal blocks, a session's name, and retention."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from paicli.cli.export_ledger import ledger_markdown
from paicli.llm.messages import Message, ToolCall
from paicli.session.catalog import read_session_info
from paicli.session.flock import release, try_lock
from paicli.session.ledger_keys import REWIND_EVENT
from paicli.session.retention import DAY_MS, RENAME_EVENT, clean_title, delete, expired
from paicli.session.timeline import read_timeline, view_before
from tests.session.helpers import new_ledger

WRAPPED = '<tool_result tool="read_file" trust="untrusted-data">\n文件内容: a.txt\n</tool_result>'
MEMORY = "## 相关长期记忆\n- 用户喜欢简短回答\n\n"


def turn(ledger: object, typed: str, answer: str, *, call: bool = False) -> None:
    ledger.append_message(  # type: ignore[attr-defined]
        "react", "agent", "user_input", Message.user(MEMORY + typed), {"submittedInput": typed}
    )
    if call:
        tool_call = ToolCall(f"call-{typed}", "read_file", '{"path": "a.txt"}')
        ledger.append_message(
            "react", "agent", "llm_response", Message("assistant", "", tool_calls=(tool_call,))
        )  # type: ignore[attr-defined]
        ledger.append_message("react", "agent", "tool_execution", Message.tool(tool_call.id, WRAPPED))  # type: ignore[attr-defined]
    ledger.append_message("react", "agent", "llm_response", Message.assistant(answer))  # type: ignore[attr-defined]


def test_a_rewind_takes_turns_back_and_the_view_is_the_one_before_the_turn(tmp_path: Path) -> None:
    ledger = new_ledger(tmp_path / "home", tmp_path / "project")
    ledger.append_message("react", "agent", "session_attach", Message.system("系统"))
    turn(ledger, "第一问", "第一答")
    start = ledger.next_sequence
    snap = {"snapshot": "c" * 40, "kind": "turn", "unitStart": start, "id": 1}
    turn(ledger, "第二问", "第二答", call=True)
    ledger.append_event("workspace_snapshot", "react", "agent", "snapshot", snap)
    turn(ledger, "第三问", "第三答")
    assert ledger.path is not None
    found = read_timeline(ledger.path)
    assert [t.typed for t in found.turns] == ["第一问", "第二问", "第三问"]
    second = found.turns[1]
    mark = found.snapshot_before(second)
    assert mark is not None and mark.commit == "c" * 40  # taken inside turn 2: the files before it
    assert found.snapshot_before(found.turns[2]) is None  # nothing changed files since turn 3 began
    view = view_before(ledger.path, second.sequence)
    assert [m.role for m in view.messages] == ["user", "assistant"] and "第一答" in (
        view.messages[1].content or ""
    )

    ledger.append_event(
        REWIND_EVENT, "react", "agent", "slash_rewind", {"toSequence": second.sequence, "turn": 2}
    )
    turn(ledger, "换个问法", "新的回答")
    again = read_timeline(ledger.path)
    assert [t.typed for t in again.turns] == ["第一问", "换个问法"]


def test_the_export_keeps_every_turn_and_drops_the_programs_blocks(tmp_path: Path) -> None:
    ledger = new_ledger(tmp_path / "home", tmp_path / "project")
    ledger.append_message("react", "agent", "session_attach", Message.system("系统"))
    turn(ledger, "读一下 a", "读完了", call=True)
    ledger.append_event("compaction", "react", "agent", "manual", {"beforeTokens": 9000, "afterTokens": 900})
    ledger.append_message(
        "react",
        "agent",
        "skill_injection",
        Message.user("[PAICLI_SKILL_INJECTION]\n## 已加载 Skill：review\n正文"),
    )
    ledger.append_message(
        "react",
        "agent",
        "workspace_note",
        Message.user("[PAICLI_WORKSPACE_NOTE] 文件变了\n- a.txt（已删除）"),
    )
    turn(ledger, "再问一次", "好的")
    assert ledger.path is not None
    exported = ledger_markdown(ledger.path, ledger.session_id, "m", datetime(2026, 1, 1))
    text = exported.text
    assert exported.turns == 2 and exported.marks == 1
    assert "读一下 a" in text and "再问一次" in text and "文件内容: a.txt" in text
    assert text.index("读完了") < text.index("此处发生了上下文压缩") < text.index("再问一次")
    assert "9,000 -> 900" in text
    for internal in (
        "相关长期记忆",
        "用户喜欢简短回答",
        "untrusted-data",
        "<tool_result",
        "PAICLI_",
        "正文",
        "文件变了",
    ):
        assert internal not in text, internal
    assert "加载了 Skill：review" in text


def test_the_last_name_wins_and_titles_are_one_clean_line(tmp_path: Path) -> None:
    ledger = new_ledger(tmp_path / "home", tmp_path / "project")
    turn(ledger, "开始", "好")
    ledger.append_event(RENAME_EVENT, "react", "cli", "slash_rename", {"title": "旧名字"})
    ledger.append_event(
        RENAME_EVENT, "react", "cli", "slash_rename", {"title": clean_title("新\x1b[31m名字\n  第二行")}
    )
    assert ledger.path is not None
    info = read_session_info(ledger.path)
    assert info is not None and info.title == "新 [31m名字 第二行" and info.first_input == "开始"
    assert len(clean_title("长" * 200)) == 80


def test_retention_keeps_the_running_a_held_and_a_recent_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    paths = []
    for _ in range(4):
        ledger = new_ledger(home, tmp_path / "project")
        turn(ledger, "问", "答")
        ledger.close()
        assert ledger.path is not None
        paths.append(ledger.path)
    old, held, current, recent = paths
    now_ms = int(recent.stat().st_mtime * 1000)
    for path in (old, held, current):
        stat = path.stat()
        os.utime(path, (stat.st_atime, stat.st_mtime - 10 * DAY_MS / 1000))
    holder = try_lock(held)  # as another paicli holding that session would
    try:
        found = expired(home, 7, now_ms, keep=[current.name.removesuffix(".jsonl")])
        assert [item.path for item in found] == [old]
        count, freed = delete(found)
    finally:
        release(holder)
    assert count == 1 and freed > 0 and not old.exists()
    assert held.exists() and current.exists() and recent.exists()
    sides = [old.with_name(old.name + suffix) for suffix in (".idx", ".list")]
    assert not any(side.exists() for side in sides)  # what was derived from the ledger goes with it


def test_retention_deletes_the_side_files_a_listing_and_a_resume_left(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ledger = new_ledger(home, tmp_path / "project")
    turn(ledger, "问", "答")
    ledger.close()  # writes the turn index
    assert ledger.path is not None and read_session_info(ledger.path) is not None  # writes the listing's
    sides = [ledger.path.with_name(ledger.path.name + suffix) for suffix in (".idx", ".list")]
    assert all(side.exists() for side in sides)
    stat = ledger.path.stat()
    os.utime(ledger.path, (stat.st_atime, stat.st_mtime - 10 * DAY_MS / 1000))
    count, freed = delete(expired(home, 7, int(stat.st_mtime * 1000)))
    assert count == 1 and freed > stat.st_size and not any(side.exists() for side in sides)
