"""Issue 37 (memreturn): a return to an earlier value supersedes the current truth, not the first one; a correction
that names only the new value of a labelled slot, or a count in number words, supersedes the truth on that slot.
Each rule sits beside the look-alike that must leave every truth standing. Subjects and values are my own, not
the eval's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.memory import evolve, returns
from paicli.memory.change_values import values
from paicli.memory.change_words import returns as says_return
from paicli.memory.judge import parse_request
from paicli.memory.manager import MemoryManager
from paicli.memory.marked_change import score
from paicli.memory.results import WriteStatus
from paicli.testing.scripted_llm import Request, ScriptedLLM

from .helpers import repo_manager

_manager = repo_manager


def _truths(mgr: MemoryManager) -> list[str]:
    return sorted(e.content for e in mgr.list_all() if evolve.is_truth(e))


def _saved(tmp_path: Path, *lines: str) -> MemoryManager:
    mgr = _manager(tmp_path)
    for line in lines:
        mgr.store_fact(line)
    return mgr


# ---- 1. a return supersedes the current truth, read through the value's history ----------------------------


@pytest.mark.parametrize(
    ("lines", "last"),
    [
        # the return names the value and a word of return; its subject is said otherwise than in B's line
        (("Our wheels are uploaded to Devpi.", "Wheels go to Gemfury now."), "We upload to Devpi again."),
        (
            ("Feature flags are served by Flagsmith.", "Flags moved to GrowthBook."),
            "We're back on Flagsmith for flags.",
        ),
        # the return names B as the one leaving
        (
            ("Schema reviews are approved by Odile.", "Rafael approves schema reviews now."),
            "Rafael left the team; Odile approves schema reviews again.",
        ),
        # Chinese and mixed words of return
        (("接口文档由钱多多维护", "接口文档现在交给邵明维护"), "邵明请假了，接口文档还是钱多多来维护"),
        (("对象存储用 MinIO", "对象存储换成 Ceph 了"), "存储还是改回 MinIO 吧"),
        (("lint 规则由 Biome 检查", "lint 现在换成 oxlint 了"), "lint 又换回 Biome 了"),
    ],
)
def test_a_return_supersedes_the_current_truth(tmp_path: Path, lines: tuple[str, str], last: str) -> None:
    mgr = _saved(tmp_path, *lines)
    assert _truths(mgr) == [lines[1]]  # the chain so far: B replaced A
    result = mgr.store_fact(last)
    assert result.status is WriteStatus.SUPERSEDED
    assert _truths(mgr) == [last]


@pytest.mark.parametrize(
    "last",
    [
        "Devpi sends the weekly digest again.",  # the old value, another subject
        "The data team is back on Devpi.",  # another owner's return
        "A nightly upload to Devpi failed again.",  # `again`: a repetition, not a return
        "Should we upload to Devpi again?",  # a question
        "We might go back to Devpi next quarter.",  # a plan
    ],
)
def test_the_old_value_said_of_another_thing_or_asked_about_is_no_return(tmp_path: Path, last: str) -> None:
    mgr = _saved(tmp_path, "Our wheels are uploaded to Devpi.", "Wheels go to Gemfury now.")
    mgr.store_fact(last)
    assert _truths(mgr) == sorted(["Wheels go to Gemfury now.", last])


def test_a_chinese_return_about_another_machine_is_no_return(tmp_path: Path) -> None:
    mgr = _saved(tmp_path, "渲染节点有 6 核", "渲染节点升到 12 核了")
    mgr.store_fact("压测节点还是 6 核")  # 还是 with the old value, but of another machine
    assert _truths(mgr) == sorted(["渲染节点升到 12 核了", "压测节点还是 6 核"])
    mgr.store_fact("渲染节点还是 6 核")
    assert _truths(mgr) == sorted(["压测节点还是 6 核", "渲染节点还是 6 核"])


def test_one_shared_chinese_character_ties_no_return() -> None:
    earlier, current = "跳板机有 6 核", "跳板机升到 12 核了"
    assert returns.score(earlier, current, "测试机还是 6 核") == 0  # only `机` is shared
    assert returns.score(earlier, current, "跳板机还是 6 核") > 0


def test_a_return_after_three_values_supersedes_the_third_not_the_first(tmp_path: Path) -> None:
    lines = ("Shadow traffic is 2%.", "Shadow traffic was raised to 8%.", "Shadow traffic is now 15%.")
    mgr = _saved(tmp_path, *lines)
    assert _truths(mgr) == [lines[2]]
    mgr.store_fact("Shadow traffic is back to 2%.")
    assert _truths(mgr) == ["Shadow traffic is back to 2%."]
    chain = [e.content for e in evolve.history({e.id: e for e in mgr.list_all()}, mgr.list_all()[-1].id)]
    assert chain[-2:] == [lines[2], "Shadow traffic is back to 2%."]


def test_two_truths_returned_from_equally_well_are_left_alone() -> None:
    histories = [
        ("The iOS build runs on Bitrise.", "The iOS build moved to Codemagic.", "t1"),
        ("The Android build runs on Bitrise.", "The Android build moved to Codemagic.", "t2"),
    ]
    assert returns.pick(histories, "The build runs on Bitrise again.") is None
    assert returns.pick(histories[:1], "The iOS build runs on Bitrise again.") == "t1"


def test_a_return_needs_the_value_its_chain_moved_away_from() -> None:
    earlier, current = "Queues are drained by Faktory.", "Queue draining moved to Oban."
    assert returns.score(earlier, current, "Faktory drains the queues again.") > 0
    # the current value again is no return from it; a value nobody held is a plain change, not a return
    assert returns.score(earlier, current, "Oban drains the queues again.") == 0
    assert returns.score(earlier, current, "Asynq drains the queues again.") == 0


def test_words_of_return() -> None:
    assert says_return(["we", "are", "back", "on", "x"])
    assert says_return(["x", "again"])
    assert says_return(["队列", "还是", "改", "回"])
    assert says_return(["又", "换回"])
    assert says_return(["we", "reverted", "to", "x"])
    assert not says_return(["the", "back", "end", "uses", "x"])  # `back` with no preposition after it
    assert not says_return(["回复", "邮件"])
    assert not says_return(["回调", "地址"])  # 回 opening a word that is no return


# ---- 2. a correction that names only the new value of a labelled slot ----------------------------------------


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("The kiosk app supports Firefox 115 and newer.", "Minimum Firefox version is now 128."),
        ("网关服务用 Go 1.20", "升级到 Go 1.23 了"),
        ("The crawler runs on Python 3.9.", "We're on Python 3.12 now."),
    ],
)
def test_a_new_value_named_by_its_label_supersedes_the_slot(
    tmp_path: Path, stored: str, incoming: str
) -> None:
    assert score(stored, incoming) > 0
    mgr = _saved(tmp_path, stored)
    assert mgr.store_fact(incoming).status is WriteStatus.SUPERSEDED
    assert _truths(mgr) == [incoming]


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        # the same kind of label, another product
        ("The kiosk app supports Firefox 115 and newer.", "Minimum Edge version is now 126."),
        # the same label, another slot: another thing that carries it
        ("The deploy scripts use Gradle 7.4.", "The plugin samples use Gradle 8.7 now."),
        ("CI 的 Node 版本是 16", "官网的 Node 版本现在是 22"),
        # another product for another part
        ("网关服务用 Go 1.20", "运维脚本升级到 Python 3.12 了"),
    ],
)
def test_the_same_label_on_another_slot_supersedes_nothing(
    tmp_path: Path, stored: str, incoming: str
) -> None:
    assert score(stored, incoming) == 0
    mgr = _saved(tmp_path, stored)
    mgr.store_fact(incoming)
    assert _truths(mgr) == sorted([stored, incoming])


def test_a_product_before_a_version_is_a_name_and_a_sentence_opening_kind_word_is_not() -> None:
    assert ("name", "go") in values("网关服务用 Go 1.20").slots
    assert ("name", "python") in values("Python 3.12 it is").slots
    assert ("name", "go") not in values("We go to Lisbon twice a year").slots  # no version after it
    found = values("Minimum Firefox version is now 128.").slots
    assert ("name", "firefox") in found and not any("minimum" in v for _, v in found)
    assert ("name", "google drive") in values("Google Drive holds the exports").slots  # a run still merges


# ---- 3. counts in number words -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("合并需要三个人审批", "现在两个人审批就行"),
        ("The on-call rotation has five engineers.", "We're down to four engineers on call now."),
        ("Every data migration needs three reviewers.", "Data migrations need only two reviewers now."),
    ],
)
def test_a_count_in_number_words_supersedes_the_count(tmp_path: Path, stored: str, incoming: str) -> None:
    assert score(stored, incoming) > 0
    mgr = _saved(tmp_path, stored)
    assert mgr.store_fact(incoming).status is WriteStatus.SUPERSEDED
    assert _truths(mgr) == [incoming]


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("合并需要三个人审批", "值班现在是两个人"),  # a count of another duty
        ("The on-call rotation has five engineers.", "The design review now has four engineers."),
    ],
)
def test_a_count_of_another_thing_supersedes_nothing(tmp_path: Path, stored: str, incoming: str) -> None:
    assert score(stored, incoming) == 0
    mgr = _saved(tmp_path, stored)
    mgr.store_fact(incoming)
    assert _truths(mgr) == sorted([stored, incoming])


# ---- 4. the relation judge: a verified verdict overrules a return; a silent judge leaves it ----------------


def _judge(relation: str | None) -> ScriptedLLM:
    def reply(request: Request) -> str:
        parsed = parse_request(request.messages[-1].text)
        assert parsed is not None
        if relation is None:
            return "好的。"  # a judge that does not answer in the protocol
        return json.dumps({"relations": [{"id": label, "relation": relation} for label, _ in parsed[1]]})

    llm = ScriptedLLM()
    llm.default_reply = reply
    return llm


CHAIN = ("Schema reviews are approved by Odile.", "Rafael approves schema reviews now.")
RETURN = "Rafael left the team; Odile approves schema reviews again."  # the parser cannot place it


def test_a_judge_that_calls_a_return_unrelated_undoes_it(tmp_path: Path) -> None:
    llm = _judge("unrelated")
    mgr = _manager(tmp_path, llm)
    for line in CHAIN:
        mgr.store_fact(line)
        assert mgr.wait_background(30)
    assert mgr.store_fact(RETURN).status is WriteStatus.SUPERSEDED  # the local rule at once
    assert mgr.wait_background(30)
    assert _truths(mgr) == sorted([CHAIN[1], RETURN])


def test_a_silent_judge_leaves_the_return_standing(tmp_path: Path) -> None:
    llm = _judge(None)
    mgr = _manager(tmp_path, llm)
    for line in CHAIN:
        mgr.store_fact(line)
        assert mgr.wait_background(30)
    mgr.store_fact(RETURN)
    assert mgr.wait_background(30)
    assert llm.calls >= 1
    assert _truths(mgr) == [RETURN]
