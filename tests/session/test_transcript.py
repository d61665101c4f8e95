"""The transcript a resume shows again: the last turns read from the ledger's raw entries (not the compacted
view), the count of the earlier ones, internal user messages not taken for turns, a /clear ending it."""

from __future__ import annotations

from pathlib import Path

from paicli.llm.messages import Message, ToolCall
from paicli.session.ledger import ConversationLedger
from paicli.session.transcript import lines_backwards, read_transcript


def ledger_in(tmp_path: Path) -> ConversationLedger:
    return ConversationLedger.create(tmp_path / "home", tmp_path, "m", "p", "0")


def write_turn(ledger: ConversationLedger, n: int, mode: str = "react") -> None:
    ledger.append_message(
        mode,
        "agent",
        "user_input",
        Message.user(f"## 相关长期记忆\n- x\n\n问题 {n}"),
        {"submittedInput": f"问题 {n}"},
    )
    call = ToolCall(f"c{n}", "execute_command", '{"command":"ls"}')
    ledger.append_message(mode, "agent", "llm_response", Message("assistant", "", tool_calls=(call,)))
    ledger.append_message(mode, "agent", "tool_execution", Message.tool(f"c{n}", "a\n退出码: 0"))
    ledger.append_message(mode, "agent", "llm_response", Message.assistant(f"回答 {n}"))


def test_the_last_turns_come_back_in_order_with_the_count_of_the_rest(tmp_path: Path) -> None:
    ledger = ledger_in(tmp_path)
    for n in range(1, 16):
        write_turn(ledger, n)
    # a compaction replaces the view, never the ledger's message entries
    ledger.record_view_checkpoint("automatic:full_summary", [Message.user("[已压缩的历史对话摘要]\n摘要")])
    assert ledger.path is not None
    transcript = read_transcript(ledger.path, 10)
    assert [turn.typed for turn in transcript.turns] == [f"问题 {n}" for n in range(6, 16)]
    assert transcript.earlier_turns == 5 and transcript.total_turns == 15
    last = transcript.turns[-1].messages
    assert [m.role for m in last] == ["assistant", "tool", "assistant"] and last[-1].content == "回答 15"


def test_internal_user_messages_and_other_actors_are_not_turns(tmp_path: Path) -> None:
    ledger = ledger_in(tmp_path)
    write_turn(ledger, 1)
    ledger.append_message("react", "agent", "runaway_reminder", Message.user("[runaway guard] 换个办法"))
    ledger.append_message("react", "agent", "skill_injection", Message.user("[PAICLI_SKILL_INJECTION] s"))
    write_turn(ledger, 2, mode="plan")  # a plan task's own conversation is not this one
    write_turn(ledger, 3)
    assert ledger.path is not None
    transcript = read_transcript(ledger.path, 10)
    assert [turn.typed for turn in transcript.turns] == ["问题 1", "问题 3"]
    assert transcript.earlier_turns == 0
    assert any("[runaway guard]" in (m.content or "") for m in transcript.turns[0].messages)
    counted = read_transcript(ledger.path, 1)  # counted from the line heads alone: the same answer
    assert [turn.typed for turn in counted.turns] == ["问题 3"] and counted.earlier_turns == 1
    none_shown = read_transcript(ledger.path, 0)
    assert none_shown.turns == () and none_shown.earlier_turns == 2


def test_a_clear_ends_what_is_shown(tmp_path: Path) -> None:
    ledger = ledger_in(tmp_path)
    write_turn(ledger, 1)
    write_turn(ledger, 2)
    ledger.append_event("history_clear", "react", "agent", "slash_clear", {"discardedViewMessages": 9})
    write_turn(ledger, 3)
    assert ledger.path is not None
    transcript = read_transcript(ledger.path, 10)
    assert [turn.typed for turn in transcript.turns] == ["问题 3"] and transcript.earlier_turns == 0
    write_turn(ledger, 4)
    assert read_transcript(ledger.path, 1).earlier_turns == 1  # the count stops at the /clear too


def test_a_torn_last_line_is_skipped_and_counted(tmp_path: Path) -> None:
    ledger = ledger_in(tmp_path)
    write_turn(ledger, 1)
    assert ledger.path is not None
    with open(ledger.path, "ab") as handle:
        handle.write(
            b'{"schemaVersion":1,"sessionId":"s","sequence":99,"timestamp":1,"event":"assistant","mode":"react","actor":"agent","sou'
        )
    transcript = read_transcript(ledger.path, 10)
    assert [turn.typed for turn in transcript.turns] == ["问题 1"] and transcript.skipped_lines == 1


def test_lines_backwards_crosses_block_boundaries(tmp_path: Path) -> None:
    path = tmp_path / "f"
    lines = [f"line {n} " + "x" * (n * 37 % 500) for n in range(400)]
    path.write_bytes(("\n".join(lines) + "\n").encode())
    with open(path, "rb") as handle:
        # small blocks: many lines straddle two of them
        back = [(o, line.decode()) for o, line in lines_backwards(handle, handle.seek(0, 2), block_size=1000)]
    assert [line for _, line in back] == ["", *reversed(lines)]
    data = path.read_bytes()
    assert all(data[o : o + len(line.encode())] == line.encode() for o, line in back)  # offsets are exact
