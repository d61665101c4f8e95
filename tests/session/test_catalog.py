"""Session listing per project, lookup by id, newest, and resuming into the same file."""

from __future__ import annotations

import os
from pathlib import Path

from paicli.llm.messages import Message
from paicli.session.catalog import (
    find_session,
    list_sessions,
    newest_session,
    read_session_info,
)
from paicli.session.ledger import ConversationLedger
from paicli.session.opener import LedgerOpener
from paicli.session.resume import load_view

from .helpers import ReactRecorder, counting_clock


def session(
    home: Path, root: Path, inputs: list[str], start: int, model: str = "glm-5.1"
) -> ConversationLedger:
    ledger = ConversationLedger.create(home, root, model, "glm", "0.1.0", counting_clock(start))
    recorder = ReactRecorder(ledger)
    for text in inputs:
        recorder.user(text)
        recorder.answer(f"回答：{text}")
    ledger.close()
    assert ledger.path is not None
    os.utime(ledger.path, ns=(start * 1_000_000, start * 1_000_000))
    return ledger


def test_lists_only_this_projects_sessions_newest_first(tmp_path: Path) -> None:
    home, mine, other = tmp_path / "home", tmp_path / "mine", tmp_path / "other"
    mine.mkdir()
    other.mkdir()
    old = session(home, mine, ["第一个问题\n带换行", "第二个"], 1_000_000_000_000)
    new = session(home, mine, ["新的会话"], 2_000_000_000_000, model="deepseek-v4")
    session(home, other, ["别的项目"], 3_000_000_000_000)
    session(home, mine, [], 4_000_000_000_000)  # started and left without a question
    (home / "history" / "raw" / "notes.jsonl").write_text("not a ledger\n")

    sessions = list_sessions(home, mine)
    assert [s.session_id for s in sessions] == [new.session_id, old.session_id]
    assert (sessions[0].first_input, sessions[0].turns, sessions[0].model) == ("新的会话", 1, "deepseek-v4")
    assert (sessions[1].first_input, sessions[1].turns, sessions[1].provider) == (
        "第一个问题 带换行",
        2,
        "glm",
    )
    assert sessions[1].started_at_ms == 1_000_000_000_001
    assert len(list_sessions(home, mine, include_empty=True)) == 3
    assert [s.session_id for s in list_sessions(home, mine, exclude_session_id=new.session_id)] == [
        old.session_id
    ]
    assert newest_session(home, mine) == sessions[0]
    assert newest_session(home, tmp_path / "nowhere") is None
    assert list_sessions(tmp_path / "empty-home", mine) == []


def test_project_root_matches_through_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    made = session(tmp_path / "home", link, ["经由链接"], 1_700_000_000_000)
    assert [s.session_id for s in list_sessions(tmp_path / "home", real)] == [made.session_id]


def test_resumed_sessions_count_as_recent(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "p"
    root.mkdir()
    old = session(home, root, ["老会话"], 1_000_000_000_000)
    session(home, root, ["新会话"], 2_000_000_000_000)
    assert old.path is not None
    ledger, _ = LedgerOpener((), clock=counting_clock(3_000_000_000_000)).resume(old.path)
    ledger.append_message("react", "agent", "user_input", Message.user("接着聊"))
    os.utime(old.path, ns=(3_000_000_000_000 * 1_000_000,) * 2)
    newest = newest_session(home, root)
    assert newest is not None and newest.session_id == old.session_id and newest.turns == 2


def test_find_session_by_id_or_unique_prefix(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "p"
    root.mkdir()
    a = session(home, root, ["a"], 1_111_000_000_000)
    b = session(home, root, ["b"], 1_222_000_000_000)
    found = find_session(home, a.session_id)
    assert found is not None and found.path == a.path
    found_b = find_session(home, "session-1222")
    assert found_b is not None and found_b.session_id == b.session_id
    assert find_session(home, "session-1") is None  # ambiguous
    assert find_session(home, "../../etc/passwd") is None
    assert find_session(home, "session-9") is None


def test_resume_appends_to_the_same_file_and_resuming_again_gets_the_latest_state(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "p"
    root.mkdir()
    first = ConversationLedger.create(home, root, "glm-5.1", "glm", "0.1.0", counting_clock())
    recorder = ReactRecorder(first)
    recorder.user("第一轮")
    recorder.answer("好")
    first.close()
    assert first.path is not None
    before = first.path.read_bytes()

    ledger, result = LedgerOpener(()).resume(first.path, model="kimi-k2.6", provider="kimi", version="0.1.0")
    assert result.messages == recorder.view and ledger.session_id == first.session_id
    assert ledger.next_sequence == result.last_sequence + 2  # the session_resumed event took one number
    second = ReactRecorder.__new__(ReactRecorder)
    second.ledger, second.history = ledger, [Message.system("新系统提示"), *result.messages]
    second.user("第二轮")
    second.answer("也好")

    data = first.path.read_bytes()
    assert data.startswith(before)
    assert load_view(first.path).messages == second.view
    info = read_session_info(first.path)
    assert info is not None and info.turns == 2 and info.model == "glm-5.1"
    _, again = LedgerOpener(()).resume(first.path)
    assert again.messages == second.view


def test_first_input_prefers_the_submitted_text_and_skips_a_memory_block(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "p"
    root.mkdir()
    with_memory = ConversationLedger.create(home, root, "m", "p", "0.1.0", counting_clock(1_000))
    block = "## 相关长期记忆\n\n下面这些记忆只是线索。\n\n- 用户偏好中文"
    with_memory.append_message("react", "agent", "user_input", Message.user(f"{block}\n\n帮我修复测试"))
    expanded = ConversationLedger.create(home, root, "m", "p", "0.1.0", counting_clock(2_000))
    expanded.append_message(
        "react",
        "agent",
        "user_input",
        Message.user("看看 <file path='a.py'>…</file>"),
        {"submittedInput": "看看 @a.py"},
    )
    inputs = {s.session_id: s.first_input for s in list_sessions(home, root)}
    assert inputs == {with_memory.session_id: "帮我修复测试", expanded.session_id: "看看 @a.py"}


def test_a_renamed_ledger_that_could_not_be_reopened_is_not_offered(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "root"
    root.mkdir()
    kept = session(home, root, ["正常的会话"], 1_000_000_000_000)
    renamed = session(home, root, ["改过名字的会话"], 2_000_000_000_000)
    assert renamed.path is not None
    renamed.path.rename(renamed.path.with_name("my copy.jsonl"))
    assert [s.session_id for s in list_sessions(home, root)] == [kept.session_id]
    found = newest_session(home, root)
    assert found is not None
    ConversationLedger.open_existing(found.path).close()  # what `paicli -c` does next: must not raise


def test_throwaway_sessions_are_hidden_unless_asked(tmp_path: Path) -> None:
    from paicli.session.catalog import relative_time

    home, mine = tmp_path / "home", tmp_path / "mine"
    mine.mkdir()
    kept = session(home, mine, ["修登录页"], 1_000_000_000_000)
    failed = ConversationLedger.create(
        home, mine, "glm-5.1", "glm", "0.1.0", counting_clock(2_000_000_000_000)
    )
    ReactRecorder(failed).user("一次失败的 -p 运行")  # no answer: the model call failed
    failed.close()
    longer = session(home, mine, ["重构 parser", "再补测试"], 3_000_000_000_000)

    shown = list_sessions(home, mine, include_throwaway=False)
    assert {s.session_id for s in shown} == {kept.session_id, longer.session_id}
    everything = list_sessions(home, mine)
    assert failed.session_id in {s.session_id for s in everything}
    assert [s.throwaway for s in everything if s.session_id == failed.session_id] == [True]
    assert relative_time(0, 30_000) == "刚刚" and relative_time(0, 5 * 60_000) == "5 分钟前"
    assert relative_time(0, 3 * 3_600_000) == "3 小时前" and relative_time(0, 2 * 86_400_000) == "2 天前"


def test_a_listing_reads_on_from_where_the_last_one_stopped(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "mine"
    root.mkdir()
    ledger = session(home, root, [f"问题 {n}" for n in range(6)], 1_000_000_000_000)
    assert ledger.path is not None
    listed = ledger.path.with_name(ledger.path.name + ".list")
    info = read_session_info(ledger.path, cap=1)  # closing the ledger counted it: nothing left to read
    assert info is not None and info.turns == 6 and listed.exists()
    listed.unlink()  # as a ledger from before these side files
    size = ledger.path.stat().st_size
    counts = []
    for _ in range(8):  # at most a sixth of the ledger per listing: a lower bound until it is all read
        info = read_session_info(ledger.path, cap=size // 6)
        assert info is not None and info.first_input == "问题 0"
        counts.append(info.turns)
    assert counts == sorted(counts) and counts[0] < 6 and counts[-1] == 6
    assert len(set(counts)) > 2  # every listing went further than the one before

    recorder = ReactRecorder(
        ConversationLedger.open_existing(ledger.path, clock=counting_clock(2_000_000_000_000))
    )
    recorder.user("追加的问题")
    recorder.answer("追加的回答")
    recorder.ledger.close()
    info = read_session_info(ledger.path, cap=10_000_000)
    assert info is not None and info.turns == 7 and info.first_input == "问题 0"


def test_a_listing_does_not_trust_its_side_file_for_another_ledger(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "mine"
    root.mkdir()
    ledger = session(home, root, ["一", "二", "三"], 1_000_000_000_000)
    assert ledger.path is not None
    info = read_session_info(ledger.path)
    assert info is not None and info.turns == 3
    lines = ledger.path.read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b'"content":"\\u4e8c"' in line or "二".encode() in line)
    ledger.path.write_bytes(b"".join(lines[:cut]))  # truncated (a crash, a copy): one input left
    info = read_session_info(ledger.path)
    assert info is not None and info.turns == 1 and info.first_input == "一"


def test_a_line_still_being_written_is_counted_once_whole(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "mine"
    root.mkdir()
    ledger = session(home, root, ["一"], 1_000_000_000_000)
    assert ledger.path is not None
    whole = ledger.path.read_bytes()
    recorder = ReactRecorder(
        ConversationLedger.open_existing(ledger.path, clock=counting_clock(2_000_000_000_000))
    )
    recorder.user("二")
    recorder.ledger.close()
    appended = ledger.path.read_bytes()[len(whole) :]
    ledger.path.write_bytes(whole + appended[: len(appended) // 2])  # half of the new line is on disk
    info = read_session_info(ledger.path)
    assert info is not None and info.turns == 1
    ledger.path.write_bytes(whole + appended)
    info = read_session_info(ledger.path)
    assert info is not None and info.turns == 2
