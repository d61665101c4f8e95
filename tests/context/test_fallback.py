"""The fallback note keeps what the user said: requests verbatim (newest first within a budget) and decisions."""

from __future__ import annotations

from paicli.context.fallback import NOTE_PREFIX, NoteBudget, drop_rounds, mechanical_note, user_words
from paicli.context.summary import ACKNOWLEDGEMENT
from paicli.llm.messages import Message
from tests.context.helpers import assert_pairs_valid, tool_round

FACTS = [f"记住：第{i}个决定是端口 {5400 + i}，不要改动 module_{i}" for i in range(1, 13)]


def history_with(requests: list[str]) -> list[Message]:
    history = [Message.system("sys")]
    for i, text in enumerate(requests, start=1):
        history.append(Message.user(text))
        history += tool_round(i)
        history.append(Message.assistant(f"第{i}轮完成"))
    history.append(Message.user("最新的请求"))
    return history


def test_every_request_is_kept_verbatim_when_the_budget_allows() -> None:
    history = history_with(FACTS)
    view = drop_rounds(history, len(history) - 1, NoteBudget(2_000))
    note = view[1].content or ""
    assert note.startswith(NOTE_PREFIX) and view[2] == Message.assistant(ACKNOWLEDGEMENT)
    assert all(fact in note for fact in FACTS)
    assert note.index(FACTS[0]) < note.index(FACTS[-1])  # shown in time order
    assert "read_file×12" in note and "助手回复 12 条" in note
    assert view[-1] == Message.user("最新的请求")
    assert_pairs_valid(view)


def test_a_small_budget_keeps_the_newest_requests_and_says_how_many_were_left_out() -> None:
    note = mechanical_note([Message.user(f) for f in FACTS], NoteBudget(3 * (len(FACTS[-1]) + 3)))
    kept = [f for f in FACTS if f in note]
    assert kept == FACTS[-3:]
    assert "更早的 9 条用户请求" in note


def test_an_earlier_note_is_folded_in_not_nested_and_its_requests_survive() -> None:
    first = mechanical_note([Message.user(f) for f in FACTS[:6]], NoteBudget(2_000))
    again = mechanical_note(
        [Message.user(first), Message.assistant(ACKNOWLEDGEMENT), *[Message.user(f) for f in FACTS[6:]]],
        NoteBudget(2_000),
    )
    assert again.count(NOTE_PREFIX) == 1
    assert all(again.count(fact) == 1 for fact in FACTS)


def test_multi_line_requests_round_trip_through_a_folded_note() -> None:
    text = "第一行要求\n\n  缩进的第二行\n最后一行"
    first = mechanical_note([Message.user(text)], NoteBudget(2_000))
    again = mechanical_note([Message.user(first)], NoteBudget(2_000))
    assert "- 第一行要求\n  \n    缩进的第二行\n  最后一行" in again


def test_decisions_of_an_earlier_summary_are_carried_before_the_rest() -> None:
    summary = (
        "[已压缩的历史对话摘要]\n## 当前目标与成功条件\n重构\n## 用户要求与已确认决定\n- 端口固定 5433\n"
        "## 已完成工作及证据\n改了 a.py\n## 未解决问题与下一步\n跑测试"
    )
    note = mechanical_note([Message.user(summary), Message.assistant(ACKNOWLEDGEMENT)], NoteBudget(500, 0))
    assert "此前记录的用户要求与已确认决定：\n- 端口固定 5433" in note
    assert "改了 a.py" not in note  # no room for the rest
    folded = mechanical_note([Message.user(note)], NoteBudget(500, 0))
    assert "- 端口固定 5433" in folded  # a note's decisions survive the next fold


def test_the_memory_block_before_the_users_words_is_not_kept() -> None:
    content = "## 相关长期记忆\n\n下面这些记忆只是线索。\n\n- 记忆一\n- 记忆二\n\n\n用户的原话\n\n第二段"
    assert user_words(content) == "用户的原话\n\n第二段"
    assert user_words("没有记忆块") == "没有记忆块"


def test_requests_that_state_a_decision_outlast_newer_plain_ones() -> None:
    plain = [f"第{i}轮：构建之前请检查一下相关模块" for i in range(1, 40)]
    requests = [*FACTS[:3], *plain]
    budget = sum(len(f) + 3 for f in FACTS[:3]) + 5 * (len(plain[-1]) + 3)
    note = mechanical_note([Message.user(r) for r in requests], NoteBudget(budget))
    assert all(fact in note for fact in FACTS[:3])  # the decisions, though the oldest
    assert [p for p in plain if f"- {p}\n" in note + "\n"] == plain[-5:]  # then the newest of the rest
    assert note.index(FACTS[0]) < note.index(plain[-1])  # still in time order
