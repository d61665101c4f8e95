"""The relation judge (issue 37): its request, the verification of its spans, and every way it can fail."""

from __future__ import annotations

import json

import pytest

from paicli.llm.protocol import LLMError
from paicli.memory.judge import RelationJudge, Verdict, output_cap, parse_request, request, verify
from paicli.testing.scripted_llm import Request, ScriptedLLM

from .helpers import entry

OLD = "发布审批人是李娜"
NEW = "发布审批的事李娜不干了，周敏顶上"
CANDIDATES = [("m1", OLD), ("m2", "移动端的发布审批人是王强")]


def answer(*relations: dict[str, str]) -> str:
    return json.dumps({"relations": list(relations)}, ensure_ascii=False)


def test_the_request_carries_the_new_fact_and_labelled_candidates_on_one_line_each() -> None:
    messages = request("新的\n事实", [("m1", "旧的\n记忆"), ("m2", "另一条")])
    assert messages[0].role == "system" and "JSON" in messages[0].text
    assert parse_request(messages[1].text) == ("新的 事实", [("m1", "旧的 记忆"), ("m2", "另一条")])
    assert parse_request("随便一句话") is None


def test_verified_spans_become_verdicts() -> None:
    raw = answer(
        {"id": "m1", "relation": "updates", "old": "李娜", "new": "周敏"},
        {"id": "m2", "relation": "unrelated"},
    )
    assert verify(raw, NEW, CANDIDATES) == {
        "m1": Verdict("updates", "李娜", "周敏"),
        "m2": Verdict("unrelated"),
    }


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ({"relation": "updates", "old": "张三", "new": "周敏"}, "old span not in the old text"),
        ({"relation": "updates", "old": "李娜", "new": "王五"}, "new span not in the new text"),
        ({"relation": "updates", "old": "发布审批人是李娜", "new": "周敏"}, "the whole old fact as a span"),
        ({"relation": "updates", "old": "李娜", "new": "李娜"}, "an update with the same value"),
        ({"relation": "duplicate", "old": "李娜", "new": "周敏"}, "a duplicate with different values"),
        ({"relation": "updates", "old": "发布", "new": "周敏"}, "a subject word quoted as the old value"),
        ({"relation": "updates", "old": "李娜"}, "a span missing"),
        ({"relation": "updates", "old": 3, "new": "周敏"}, "a span that is not text"),
        ({"relation": "replaces", "old": "李娜", "new": "周敏"}, "an unknown relation"),
    ],
)
def test_a_lying_or_malformed_item_yields_no_verdict(item: dict[str, object], why: str) -> None:
    assert (
        verify(json.dumps({"relations": [{"id": "m1", **item}]}, ensure_ascii=False), NEW, CANDIDATES) == {}
    ), why


def test_spans_must_leave_a_shared_subject() -> None:
    raw = answer({"id": "m1", "relation": "updates", "old": "李娜", "new": "30 天"})
    assert verify(raw, "日志保留天数调成 30 天", [("m1", OLD)]) == {}


@pytest.mark.parametrize(
    "raw", ["好的。", "", "[]", '{"facts": []}', '{"relations": "m1 updates"}', "```json\nnot json\n```"]
)
def test_a_malformed_answer_yields_nothing(raw: str) -> None:
    assert verify(raw, NEW, CANDIDATES) == {}


def test_unknown_labels_and_repeats_are_ignored() -> None:
    raw = answer(
        {"id": "m9", "relation": "updates", "old": "李娜", "new": "周敏"},
        {"id": "m1", "relation": "unrelated"},
        {"id": "m1", "relation": "updates", "old": "李娜", "new": "周敏"},
    )
    assert verify(raw, NEW, CANDIDATES) == {"m1": Verdict("unrelated")}


def test_the_judge_asks_once_with_an_output_cap_and_maps_labels_back_to_ids() -> None:
    old = entry(OLD, "project", "/repo")
    other = entry("移动端的发布审批人是王强", "project", "/repo")
    llm = ScriptedLLM([answer({"id": "m1", "relation": "updates", "old": "李娜", "new": "周敏"})])
    verdicts = RelationJudge(llm).judge(NEW, [old, other])
    assert verdicts == {old.id: Verdict("updates", "李娜", "周敏")}
    [sent] = llm.requests
    assert sent.tools is None and sent.max_tokens == output_cap(2)
    assert parse_request(sent.messages[-1].text) == (NEW, [("m1", OLD), ("m2", other.content)])


def test_no_candidate_no_request() -> None:
    llm = ScriptedLLM()
    assert RelationJudge(llm).judge(NEW, []) == {} and llm.calls == 0


@pytest.mark.parametrize("reply", ["好的，我看看。", LLMError("model down", 503)])
def test_a_silent_or_failing_judge_gives_no_verdict(reply: object) -> None:
    def scripted(_: Request) -> object:
        return reply

    assert RelationJudge(ScriptedLLM([scripted])).judge(NEW, [entry(OLD, "project", "/repo")]) == {}


def test_the_output_cap_grows_with_the_candidates_and_stays_small() -> None:
    assert output_cap(1) < output_cap(4) <= 320
