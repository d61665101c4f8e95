"""The fallback's notice tells the truth about the user's words (issue 38): 'verbatim' only when every statement
is in the note whole; otherwise how many were kept, shortened and left out."""

from __future__ import annotations

from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMError
from paicli.testing.scripted_llm import ScriptedLLM
from tests.context.helpers import assert_pairs_valid, tool_round

MODEL = "scripted-model"  # ScriptedLLM's model: the calibration key

VERBATIM = "你说过的话按原文保留"


def crowded(requests: list[str]) -> list[Message]:
    """A history over an 8K window: each request followed by tool rounds and an answer no clearing shrinks."""
    history = [Message.system("sys")]
    for t, text in enumerate(requests):
        history.append(Message.user(text))
        for r in range(3):
            history += tool_round(t * 10 + r, body="数据" * 400)
        history.append(Message.assistant(f"第{t}轮完成：" + "结论" * 500))
    return [*history, Message.user("最新的任务")]


def fold(requests: list[str]) -> tuple[str, str]:
    llm = ScriptedLLM(default_reply=LLMError("summary model down", 500, True))
    mgr = AutoCompactionManager(TokenCounter("exact"), ContextProfile.from_window(8_000))
    history = crowded(requests)
    result = mgr.before_call(history, None, llm=llm)
    assert result.strategy == "dropped_rounds" and result.notice is not None
    assert mgr.measure(history, MODEL) <= 8_000 - mgr.profile.buffer_reserve
    assert_pairs_valid(history)
    return result.notice, history[1].content or ""


def test_the_notice_says_verbatim_when_every_statement_is_in_the_note() -> None:
    requests = [f"服务 {i} 跑在 svc-{i}.lan" for i in range(8)]
    notice, note = fold(requests)
    assert VERBATIM in notice
    assert all(f"- {r}\n" in note for r in requests[:-1])


def test_the_notice_counts_what_was_left_out_instead_of_claiming_verbatim() -> None:
    requests = [
        f"第{i}个需求：服务 svc-{i}.lan 的说明如下" + "".join(f"，条目{i}-{k}" for k in range(40))
        for i in range(24)
    ]
    notice, note = fold(requests)
    assert VERBATIM not in notice
    assert "条因篇幅没有列出" in notice or "条只保留开头" in notice
    assert "这里还有" in note or "…（已截短）" in note
