"""ConversationLedger: format, modes, append-only bytes, secrets, failures (spec 3.1-3.3)."""

from __future__ import annotations

import json
import os
import re
import stat
import threading
from pathlib import Path

import pytest

from paicli.agent.ports import LedgerPort
from paicli.llm.messages import Message, ToolCall
from paicli.session.ledger import ConversationLedger, event_for
from paicli.session.resume import parse_entries

from .helpers import ReactRecorder, counting_clock, new_ledger

KEYS = [
    "schemaVersion",
    "sessionId",
    "sequence",
    "timestamp",
    "event",
    "mode",
    "actor",
    "source",
    "message",
    "metadata",
]


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_create_makes_private_session_file_with_session_start(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    ledger = new_ledger(home, project)
    assert ledger.enabled and ledger.path is not None
    assert ledger.path.parent == home / "history" / "raw"
    assert re.fullmatch(r"session-\d{13}-[0-9a-f-]{36}\.jsonl", ledger.path.name)
    assert ledger.session_id == ledger.path.name[: -len(".jsonl")]
    assert stat.S_IMODE(ledger.path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(ledger.path.stat().st_mode) == 0o600
    [start] = lines(ledger.path)
    assert list(start) == KEYS
    assert start["event"] == "session_start" and start["sequence"] == 1 and start["message"] is None
    metadata = start["metadata"]
    assert isinstance(metadata, dict)
    assert metadata["projectRoot"] == str(project.resolve())
    assert (metadata["model"], metadata["provider"], metadata["paicliVersion"]) == ("glm-5.1", "glm", "0.1.0")


def test_entries_are_compact_ordered_utf8_lines(tmp_path: Path, project: Path) -> None:
    ledger = new_ledger(tmp_path, project)
    call = ToolCall("call-1", "read_file", '{"path":"README.md"}')
    ledger.append_message(
        "react", "agent", "llm_response", Message.assistant("先读取文件", (call,), reasoning_content="想")
    )
    assert ledger.path is not None
    raw = ledger.path.read_bytes().splitlines()[-1].decode("utf-8")
    assert "先读取文件" in raw and ", " not in raw and '": ' not in raw
    entry = json.loads(raw)
    assert list(entry) == KEYS
    assert (entry["sequence"], entry["event"], entry["mode"], entry["actor"], entry["source"]) == (
        2,
        "tool_call",
        "react",
        "agent",
        "llm_response",
    )
    assert list(entry["message"]) == [
        "role",
        "content",
        "reasoningContent",
        "toolCalls",
        "toolCallId",
        "contentParts",
    ]
    assert entry["message"]["toolCalls"] == [
        {"id": "call-1", "function": {"name": "read_file", "arguments": '{"path":"README.md"}'}}
    ]
    assert entry["metadata"] == {}
    assert (
        entry["timestamp"] == lines(ledger.path)[0]["timestamp"] + 1
    )  # the injected clock ticks once per entry


def test_message_to_event_mapping() -> None:
    call = ToolCall("c", "x", "{}")
    assert event_for(Message.system("s")) == "system"
    assert event_for(Message.user("u")) == "user"
    assert event_for(Message.tool("c", "r")) == "tool_result"
    assert event_for(Message.assistant("a", (call,))) == "tool_call"
    assert event_for(Message.assistant("a")) == "assistant"


def test_ledger_satisfies_the_loop_port(tmp_path: Path, project: Path) -> None:
    port: LedgerPort = new_ledger(tmp_path, project)
    port.append_event("run_cancelled", "plan", "plan-agent", "before_planning", {})
    assert isinstance(port, ConversationLedger) and port.path is not None
    assert lines(port.path)[-1]["event"] == "run_cancelled"


def test_bytes_are_append_only_across_tools_compaction_clearing_and_clear(
    tmp_path: Path, project: Path
) -> None:
    ledger = new_ledger(tmp_path, project)
    assert ledger.path is not None
    recorder = ReactRecorder(ledger)
    snapshots = [ledger.path.read_bytes()]

    def step(action: object) -> None:
        snapshots.append(ledger.path.read_bytes())  # type: ignore[union-attr]
        assert snapshots[-1].startswith(snapshots[-2]) and len(snapshots[-1]) > len(snapshots[-2])

    recorder.user("读一下 README")
    step(None)
    recorder.tool_round("call-1", "read_file", '{"path":"README.md"}', "x" * 3000)
    step(None)
    cleared = [m.with_content("[已清理的旧工具结果]") if m.role == "tool" else m for m in recorder.view]
    recorder.replace_view("automatic:tool_result_clearing", cleared, {"clearedToolResults": 1})
    step(None)
    recorder.answer("README 讲的是安装")
    summary = [Message.user("[已压缩的历史对话摘要]\n## 当前目标与成功条件\n…"), Message.assistant("好的")]
    recorder.replace_view("automatic:full_summary", summary, {"strategy": "full_summary"})
    step(None)
    recorder.clear()
    step(None)
    events = [entry.event for entry in parse_entries(ledger.path.read_bytes().splitlines())[0]]
    assert events.count("view_checkpoint") == 3
    assert "history_clear" in events and events.count("compaction") == 2


def test_view_checkpoint_holds_the_view_without_the_system_prompt(tmp_path: Path, project: Path) -> None:
    ledger = new_ledger(tmp_path, project)
    history = [Message.system("系统"), Message.user("问"), Message.assistant("答")]
    ledger.record_view_checkpoint("manual", history, {"beforeTokens": 900, "afterTokens": 300})
    assert ledger.path is not None
    entry = lines(ledger.path)[-1]
    assert (entry["event"], entry["mode"], entry["actor"], entry["source"]) == (
        "view_checkpoint",
        "react",
        "agent",
        "manual",
    )
    metadata = entry["metadata"]
    assert isinstance(metadata, dict)
    assert list(metadata) == ["beforeTokens", "afterTokens", "messages"]
    assert [Message.from_json(m) for m in metadata["messages"]] == history[1:]


def test_configured_and_key_shaped_secrets_never_reach_the_file(tmp_path: Path, project: Path) -> None:
    secret = "glm-secret-0123456789abcdef"
    ledger = new_ledger(tmp_path, project, secrets=[secret])
    ledger.append_message("react", "agent", "user_input", Message.user(f"我的 key 是 {secret}，别外传"))
    ledger.append_message(
        "react",
        "agent",
        "tool_execution",
        Message.tool(
            "c1", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx\nAuthorization: Bearer abcdef.123456789"
        ),
    )
    ledger.append_event(
        "compaction",
        "react",
        "agent",
        "manual",
        {"api_key": "plain-value-123", "beforeTokens": 1200, "nested": {"password": "hunter2hunter2"}},
    )
    assert ledger.path is not None
    text = ledger.path.read_text(encoding="utf-8")
    for leaked in (
        secret,
        "sk-proj-abcdefghijklmnopqrstuvwx",
        "abcdef.123456789",
        "plain-value-123",
        "hunter2hunter2",
    ):
        assert leaked not in text
    last = lines(ledger.path)[-1]["metadata"]
    assert isinstance(last, dict) and last["beforeTokens"] == 1200
    assert "别外传" in text and "[REDACTED]" in text


def test_reopening_continues_the_sequence_and_keeps_old_bytes(tmp_path: Path, project: Path) -> None:
    first = new_ledger(tmp_path, project)
    for i in range(5):
        first.append_message("react", "agent", "user_input", Message.user(f"第 {i} 句"))
    first.close()
    assert first.path is not None
    before = first.path.read_bytes()
    again = ConversationLedger.open_existing(first.path, clock=counting_clock())
    assert again.session_id == first.session_id and again.next_sequence == 7
    again.mark_resumed({"model": "glm-5.1"})
    again.append_message("react", "agent", "user_input", Message.user("继续"))
    after = first.path.read_bytes()
    assert after.startswith(before)
    assert [e["sequence"] for e in lines(first.path)] == list(range(1, 9))
    assert lines(first.path)[-2]["event"] == "session_resumed"


def test_reopening_after_a_torn_last_line_starts_on_a_fresh_line(tmp_path: Path, project: Path) -> None:
    ledger = new_ledger(tmp_path, project)
    ledger.append_message("react", "agent", "user_input", Message.user("完整的一行"))
    assert ledger.path is not None
    with open(ledger.path, "ab") as handle:
        handle.write(b'{"schemaVersion":1,"sessionId":"x","sequence":3,"timestamp":1,"event":"tool_ca')
    torn = ledger.path.read_bytes()
    again = ConversationLedger.open_existing(ledger.path)
    assert again.next_sequence == 4
    again.append_message("react", "agent", "user_input", Message.user("新的一行"))
    data = ledger.path.read_bytes()
    assert data.startswith(torn)
    entries, notices = parse_entries(data.splitlines())
    assert [e.sequence for e in entries] == [1, 2, 4] and len(notices) == 1


def test_open_in_validates_the_session_id(tmp_path: Path) -> None:
    ledger = ConversationLedger.open_in(tmp_path / "raw", "session-1")
    assert ledger.path == tmp_path / "raw" / "session-1.jsonl" and ledger.next_sequence == 1
    for bad in ("../evil", "a b", "", "x/y"):
        with pytest.raises(ValueError):
            ConversationLedger.open_in(tmp_path / "raw", bad)


def test_concurrent_appends_keep_whole_lines_and_unique_sequences(tmp_path: Path, project: Path) -> None:
    ledger = new_ledger(tmp_path, project)

    def worker(n: int) -> None:
        for i in range(25):
            ledger.append_message(
                "team", f"worker-{n}", "llm_response", Message.assistant(f"{n}-{i} " + "字" * 500)
            )

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ledger.path is not None
    entries, notices = parse_entries(ledger.path.read_bytes().splitlines())
    assert not notices
    assert sorted(e.sequence for e in entries) == list(range(1, 102))


def test_unwritable_home_gives_a_disabled_ledger_and_one_report(tmp_path: Path, project: Path) -> None:
    blocker = tmp_path / "home"
    blocker.write_text("a file where the folder should be")
    reports: list[str] = []
    ledger = new_ledger(blocker, project, on_error=reports.append)
    assert not ledger.enabled and ledger.path is None
    assert len(reports) == 1 and reports[0].startswith("原始会话账本初始化失败")
    ledger.append_message("react", "agent", "user_input", Message.user("不会崩溃"))
    ledger.record_view_checkpoint("manual", [Message.user("x")])
    assert ConversationLedger.disabled().enabled is False


def test_write_failures_are_reported_once_and_never_raise(tmp_path: Path) -> None:
    reports: list[str] = []
    ledger = ConversationLedger(tmp_path / "gone" / "s.jsonl", "s", on_error=reports.append)
    for i in range(3):
        ledger.append_message("react", "agent", "user_input", Message.user(str(i)))
    assert len(reports) == 1 and ledger.last_error is not None


def test_unencodable_metadata_is_written_as_text(tmp_path: Path, project: Path) -> None:
    ledger = new_ledger(tmp_path, project)
    ledger.append_event("compaction", "react", "agent", "manual", {"path": Path("/x/y"), "n": {1, 2} and 3})
    assert ledger.path is not None
    assert lines(ledger.path)[-1]["metadata"] == {"path": "/x/y", "n": 3}


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_existing_folder_permissions_are_tightened(tmp_path: Path, project: Path) -> None:
    raw = tmp_path / "history" / "raw"
    raw.mkdir(parents=True, mode=0o755)
    os.chmod(raw, 0o755)
    new_ledger(tmp_path, project)
    assert stat.S_IMODE(raw.stat().st_mode) == 0o700


def test_read_all_returns_every_entry_in_order(tmp_path: Path, project: Path) -> None:
    ledger = new_ledger(tmp_path, project)
    ledger.append_message("react", "agent", "user_input", Message.user("一"))
    ledger.append_event("history_clear", "react", "agent", "slash_clear", {"discardedViewMessages": 2})
    entries = ledger.read_all()
    assert [(e.sequence, e.event) for e in entries] == [
        (1, "session_start"),
        (2, "user"),
        (3, "history_clear"),
    ]
    assert entries[1].message == Message.user("一")
    assert ConversationLedger.disabled().read_all() == []


def test_lone_surrogates_are_kept_instead_of_dropping_the_entry(tmp_path: Path, project: Path) -> None:
    errors: list[str] = []
    ledger = new_ledger(tmp_path, project, on_error=errors.append)
    broken = Message.assistant("半个表情 \ud83d 和 \udc80 字节")
    ledger.append_message("react", "agent", "llm_response", broken)
    ledger.append_message("react", "agent", "user_input", Message.user("下一条照常写入"))
    assert ledger.path is not None and errors == []
    assert [e.message for e in ledger.read_all()[-2:]] == [broken, Message.user("下一条照常写入")]
    assert "下一条照常写入" in ledger.path.read_text(encoding="utf-8")  # other lines stay readable UTF-8


def test_a_ledger_left_before_anything_was_said_is_deleted(tmp_path: Path, project: Path) -> None:
    """Issue 44 item 9: `paicli --resume` (or /resume at once) leaves no empty ledger behind; one that holds
    an input, or any event besides its start, is kept."""
    home = tmp_path / "home"
    unused = new_ledger(home, project)
    unused.append_message("react", "system", "prompt", Message.system("你是 paicli。"))
    assert unused.path is not None and unused.path.exists()
    assert unused.discard_if_empty() and not unused.path.exists()
    used = new_ledger(home, project)
    used.append_message("react", "user", "input", Message.user("你好"))
    assert not used.discard_if_empty() and used.path is not None and used.path.exists()
    evented = new_ledger(home, project)
    evented.append_event("workspace_snapshot", "react", "cli", "turn", {})
    assert not evented.discard_if_empty() and evented.path is not None and evented.path.exists()
    assert not ConversationLedger.disabled().discard_if_empty()
