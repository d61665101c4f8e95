"""The fallback note keeps what the user said: every statement verbatim when it fits, else the oldest and the
newest first (by position, never by wording), with counts that carry across folds, attachments named, and an
earlier note's or summary's words folded in."""

from __future__ import annotations

from pathlib import Path

from paicli.cli.mentions import attach_mentions
from paicli.context.fallback import NOTE_PREFIX, NoteBudget, fold_rounds, note_with_listing
from paicli.context.markers import SUMMARY_WORDS_LINE
from paicli.context.summary import ACKNOWLEDGEMENT
from paicli.context.user_words import without_memory
from paicli.llm.messages import Message
from tests.context.helpers import assert_pairs_valid, tool_round

FACTS = [f"第{i}个服务的端口是 {5400 + i}，模块叫 module_{i}" for i in range(1, 13)]
ROUTINE = [f"请运行第{i}个命令看看数据量" for i in range(1, 40)]  # no clause repeats


def history_with(requests: list[str]) -> list[Message]:
    history = [Message.system("sys")]
    for i, text in enumerate(requests, start=1):
        history.append(Message.user(text))
        history += tool_round(i)
        history.append(Message.assistant(f"第{i}轮完成"))
    history.append(Message.user("最新的请求"))
    return history


def listed(note: str, texts: list[str]) -> list[str]:
    return [t for t in texts if f"- {t}\n" in note + "\n"]


def test_every_request_is_kept_verbatim_when_the_budget_allows() -> None:
    history = history_with(FACTS)
    view, listing = fold_rounds(history, len(history) - 1, NoteBudget(2_000))
    note = view[1].content or ""
    assert note.startswith(NOTE_PREFIX) and view[2] == Message.assistant(ACKNOWLEDGEMENT)
    assert listed(note, FACTS) == FACTS  # all, in time order
    assert listing.complete and listing.listed == 12
    assert "read_file×12" in note and "助手回复 12 条" in note
    assert view[-1] == Message.user("最新的请求")
    assert_pairs_valid(view)


def test_a_small_budget_keeps_the_oldest_and_the_newest_and_counts_the_middle() -> None:
    requests = [*FACTS, *ROUTINE]
    budget = 20 * (max(len(r) for r in requests) + 3)
    note = _note([Message.user(r) for r in requests], NoteBudget(budget))
    kept = listed(note, requests)
    assert kept[:8] == requests[:8] and kept[-8:] == requests[-8:]  # both ends
    left_out = len(requests) - len(kept)
    assert left_out > 0 and f"这里还有 {left_out} 条用户请求未列出" in note  # one gap line, in the middle
    assert note.index(kept[7]) < note.index("这里还有") < note.index(kept[-8])


def test_what_survives_does_not_depend_on_rule_words() -> None:
    """Issue 38: a plain statement must not lose to a request worded as a rule, nor win by being one."""
    plain = [*FACTS, *ROUTINE]
    worded = [f"请记住这些约定：{r}" if r in FACTS else r for r in plain]
    rules = [r.replace("请运行命令", "以后每次都必须运行命令") for r in plain]
    budget = 24 * (max(len(r) for r in plain) + 3)

    def survivors(requests: list[str]) -> list[int]:
        note = _note([Message.user(r) for r in requests], NoteBudget(budget))
        return [i for i, r in enumerate(requests) if f"- {r}\n" in note + "\n" or f"{r[-12:]}\n" in note]

    kept = survivors(plain)
    assert 0 < len(kept) < len(plain)
    for other in (survivors(worded), survivors(rules)):
        # the same positions survive: only the count may differ by one, as the texts' lengths differ
        smaller, larger = sorted((set(kept), set(other)), key=len)
        assert smaller <= larger and len(larger) - len(smaller) <= 1


def test_repeated_clauses_go_first_and_lose_nothing() -> None:
    ask = "构建之前请检查一下相关模块，然后告诉我结果。"
    requests = [f"第{i}轮：{fact}。{ask}" for i, fact in enumerate(FACTS, start=1)]
    whole = sum(len(r) + 3 for r in requests)
    note, listing = fold_rounds(history_with(requests), 4 * 12 + 1, NoteBudget(whole - 60))
    text = note[1].content or ""
    assert all(fact in text for fact in FACTS) and text.count("构建之前请检查一下相关模块，") == 1
    assert "第12轮：" + FACTS[-1] + "。…" in text
    assert listing.complete  # a repeat shown once is still there


def test_long_statements_are_shortened_before_any_is_left_out() -> None:
    paste = "日志：" + "ERROR timeout while calling upstream\n" * 40
    requests = [FACTS[0], paste, FACTS[1], paste.replace("ERROR", "WARN"), FACTS[2]]
    note, listing = fold_rounds(history_with(requests), 4 * 5 + 1, NoteBudget(520))
    text = note[1].content or ""
    assert all(fact in text for fact in FACTS[:3])
    assert text.count("…（已截短）") == 2 and listing.shortened == 2 and listing.left_out == 0
    assert not listing.complete


def test_counts_carry_across_folds_instead_of_restarting() -> None:
    first = _note([Message.user(r) for r in ROUTINE[:20]], NoteBudget(6 * 20))
    gap_one = 20 - len(listed(first, ROUTINE[:20]))
    assert gap_one > 0 and f"这里还有 {gap_one} 条" in first
    folded = [
        Message.user(first),
        Message.assistant(ACKNOWLEDGEMENT),
        *[Message.user(r) for r in ROUTINE[20:]],
    ]
    again, listing = fold_rounds(
        [Message.system("s"), *folded, Message.user("最新")], len(folded) + 1, NoteBudget(6 * 20)
    )
    text = again[1].content or ""
    shown = listed(text, ROUTINE)
    assert listing.left_out == len(ROUTINE) - len(shown)  # this fold's and the first fold's
    counts = [int(part.split(" 条")[0]) for part in text.split("这里还有 ")[1:]]
    assert sum(counts) == len(ROUTINE) - len(shown)
    assert text.count(NOTE_PREFIX) == 1


def test_a_note_written_before_counts_carried_keeps_its_count() -> None:
    old = (
        f"{NOTE_PREFIX} 较早的对话已折叠。\n用户说过的话（原文，按时间先后）：\n- 第8个请求\n- 第9个请求\n"
        "（更早的 7 条用户请求因篇幅所限没有列出）\n移出的工具调用 0 次：无；移出的助手回复 0 条。"
    )
    note, listing = fold_rounds(
        [Message.system("s"), Message.user(old), Message.assistant(ACKNOWLEDGEMENT), Message.user("新")], 3
    )
    text = note[1].content or ""
    assert "这里还有 7 条用户请求未列出" in text and "- 第8个请求\n- 第9个请求" in text
    assert listing.left_out == 7 and not listing.complete


def test_an_attached_file_is_named_not_copied(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def handler():\n    return 42\n" * 300, encoding="utf-8")
    content, _ = attach_mentions("请看看 @src/app.py 里的 handler 有什么问题", tmp_path)
    assert "return 42" in content  # what the model got
    note = _note([Message.user(content)], NoteBudget(200))
    assert "- 请看看 @src/app.py 里的 handler 有什么问题\n  （附带的内容未列出：文件 src/app.py）" in note
    assert "return 42" not in note


def test_an_earlier_note_is_folded_in_not_nested_and_its_requests_survive() -> None:
    first = _note([Message.user(f) for f in FACTS[:6]], NoteBudget(2_000))
    again = _note(
        [Message.user(first), Message.assistant(ACKNOWLEDGEMENT), *[Message.user(f) for f in FACTS[6:]]],
        NoteBudget(2_000),
    )
    assert again.count(NOTE_PREFIX) == 1
    assert all(again.count(fact) == 1 for fact in FACTS)


def test_words_a_summary_carried_beside_it_join_the_note() -> None:
    summary = (
        "[已压缩的历史对话摘要]\n## 当前目标与成功条件\n重构\n## 用户要求与已确认决定\n- 端口 5433\n"
        f"## 已完成工作及证据\n改了 a.py\n## 未解决问题与下一步\n跑测试\n\n{SUMMARY_WORDS_LINE}\n- {FACTS[3]}"
    )
    note = _note([Message.user(summary), Message.assistant(ACKNOWLEDGEMENT), Message.user(FACTS[4])])
    assert listed(note, FACTS) == [FACTS[3], FACTS[4]]
    assert "此前记录的用户要求与已确认决定：\n- 端口 5433" in note
    assert SUMMARY_WORDS_LINE not in note


def test_multi_line_requests_round_trip_through_a_folded_note() -> None:
    text = "第一行要求\n\n  缩进的第二行\n最后一行"
    first = _note([Message.user(text)], NoteBudget(2_000))
    again = _note([Message.user(first)], NoteBudget(2_000))
    assert "- 第一行要求\n  \n    缩进的第二行\n  最后一行" in again


def test_decisions_of_an_earlier_summary_are_carried_before_the_rest() -> None:
    summary = (
        "[已压缩的历史对话摘要]\n## 当前目标与成功条件\n重构\n## 用户要求与已确认决定\n- 端口固定 5433\n"
        "## 已完成工作及证据\n改了 a.py\n## 未解决问题与下一步\n跑测试"
    )
    note = _note([Message.user(summary), Message.assistant(ACKNOWLEDGEMENT)], NoteBudget(500, 0))
    assert "此前记录的用户要求与已确认决定：\n- 端口固定 5433" in note
    assert "改了 a.py" not in note  # no room for the rest
    folded = _note([Message.user(note)], NoteBudget(500, 0))
    assert "- 端口固定 5433" in folded  # a note's decisions survive the next fold


def test_the_memory_block_before_the_users_words_is_not_kept() -> None:
    content = "## 相关长期记忆\n\n下面这些记忆只是线索。\n\n- 记忆一\n- 记忆二\n\n\n用户的原话\n\n第二段"
    assert without_memory(content) == "用户的原话\n\n第二段"
    assert without_memory("没有记忆块") == "没有记忆块"
    assert "记忆一" not in _note([Message.user(content)])


def _note(dropped: list[Message], budget: NoteBudget | None = None) -> str:
    return note_with_listing(dropped, budget)[0]
