"""Issue 38: a summary is checked against the values the user stated in what it replaces. One repair names what
is missing; what is still missing is carried verbatim beside the summary; a hollow summary (the four headings,
none of the user's values) is not used. The reference profile keeps the article's headings-only check."""

from __future__ import annotations

from paicli.config.compaction_profiles import REFERENCE
from paicli.context.manager import AutoCompactionManager
from paicli.context.markers import SUMMARY_WORDS_LINE
from paicli.context.profile import ContextProfile
from paicli.context.summary import HOLLOW_REASON, ConversationHistoryCompactor
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMError
from paicli.testing.scripted_llm import Request, ScriptedLLM
from tests.context.helpers import STRUCTURED, assert_pairs_valid

COUNTER = TokenCounter("heuristic")
HOLLOW = STRUCTURED.replace("使用 Python", "按用户的说明处理")
FACTS = [
    "staging 数据库的主机是 db-stg-02.orion.internal",
    "发版分支叫 release/2027-q1",
    "the payments service listens on port 8443",
    "产品负责人是李思雨",
]


def session(statements: list[str]) -> list[Message]:
    history = [Message.system("sys")]
    for i, text in enumerate(statements):
        history += [Message.user(text), Message.assistant(f"好的，第{i}件事记下了。" + "细节" * 200)]
    return [*history, Message.user("继续"), Message.assistant("好的"), Message.user("最新的请求")]


def compactor() -> ConversationHistoryCompactor:
    return ConversationHistoryCompactor(COUNTER, 1, words_check=True)


def with_lines(*lines: str) -> str:
    return STRUCTURED.replace("使用 Python", "\n".join(["使用 Python", *lines]))


def prompt(request: Request) -> str:
    return request.messages[-1].content or ""


def test_a_summary_that_keeps_every_value_is_used_as_it_is() -> None:
    llm = ScriptedLLM([with_lines(*FACTS)])
    history = session(FACTS)
    assert compactor().compact(history, 0, True, 2, llm=llm).compacted
    assert llm.calls == 1 and SUMMARY_WORDS_LINE not in (history[1].content or "")


def test_one_repair_names_what_is_missing_and_its_answer_is_used() -> None:
    llm = ScriptedLLM([with_lines(*FACTS[:2]), with_lines(*FACTS)])
    history = session(FACTS)
    assert compactor().compact(history, 0, True, 2, llm=llm).compacted
    repair = prompt(llm.requests[1])
    assert "=== 需要补全的摘要 ===" in repair and "8443、李思雨" in repair and FACTS[2] in repair
    assert "release/2027-q1" not in repair.split("=== 需要补全的摘要 ===")[0]  # only what is missing
    content = history[1].content or ""
    assert all(fact in content for fact in FACTS) and SUMMARY_WORDS_LINE not in content


def test_what_the_repair_still_misses_is_carried_verbatim_beside_the_summary() -> None:
    llm = ScriptedLLM([with_lines(*FACTS[:3]), with_lines(*FACTS[:3])])
    history = session(FACTS)
    assert compactor().compact(history, 0, True, 2, llm=llm).compacted
    content = history[1].content or ""
    assert content.endswith(f"{SUMMARY_WORDS_LINE}\n- {FACTS[3]}")
    assert llm.calls == 2
    assert_pairs_valid(history)


def test_a_failed_repair_still_carries_the_missing_statements() -> None:
    llm = ScriptedLLM([with_lines(*FACTS[1:]), LLMError("summary model down", 500, True)])
    history = session(FACTS)
    assert compactor().compact(history, 0, True, 2, llm=llm).compacted
    assert (history[1].content or "").endswith(f"{SUMMARY_WORDS_LINE}\n- {FACTS[0]}")


def test_a_hollow_summary_is_not_used_after_one_repair() -> None:
    llm = ScriptedLLM([HOLLOW, HOLLOW])
    history = session(FACTS)
    before = list(history)
    outcome = compactor().compact(history, 0, True, 2, llm=llm)
    assert not outcome.compacted and outcome.error == HOLLOW_REASON
    assert history == before and llm.calls == 2


def test_values_carried_by_an_earlier_summary_are_checked_in_the_next_one() -> None:
    llm = ScriptedLLM([with_lines(*FACTS[:3]), with_lines(*FACTS[:3])])
    history = session(FACTS)
    full = compactor()
    assert full.compact(history, 0, True, 2, llm=llm).compacted
    history += [Message.assistant("好的"), Message.user("再下一个请求")]
    llm.push(HOLLOW, HOLLOW)  # forgets everything: hollow against the carried words and decisions
    assert not full.compact(history, 0, True, 1, llm=llm).compacted
    llm.push(with_lines("8443"), with_lines("8443"))  # keeps one: the rest is carried again
    assert full.compact(history, 0, True, 1, llm=llm).compacted
    content = history[1].content or ""
    assert all(fact in content for fact in (FACTS[0], FACTS[1], FACTS[3]))


def test_attachment_bodies_are_not_demanded_from_a_summary() -> None:
    attached = (
        "请看看 @src/app.py\n\n用户通过 @ 引用的文件内容：\n"
        + '<file path="src/app.py">\nHOST = "x1.lan"\n</file>'
    )
    llm = ScriptedLLM([with_lines("src/app.py")])
    history = session([attached])
    assert compactor().compact(history, 0, True, 1, llm=llm).compacted and llm.calls == 1


def test_the_reference_profile_checks_the_headings_only() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = session(FACTS)
    mgr = AutoCompactionManager(COUNTER, ContextProfile.from_window(128_000), policy=REFERENCE)
    assert mgr.compact_now(history, llm=llm).compacted and llm.calls == 1
    assert not any(fact in (history[1].content or "") for fact in FACTS)
