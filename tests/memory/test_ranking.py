"""Issue 37's specificity rule: a memory whose subject carries an owner the question does not name (another
component, another project: `X 的 S`, `X 那边 S`, `X's S`, `S of X`, `for X, S`) ranks after the memories about
what the question asks, even when it shares more of the question's words."""

from __future__ import annotations

from datetime import timedelta, timezone
from pathlib import Path

import pytest

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.entry import MemoryEntry
from paicli.memory.ranking import named, normalized_query, qualifier
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.store import LongTermMemory
from tests.memory.helpers import NOW, entry
from tests.retrieval.fakes import ListStore

PROJECT = "/repo"


def _retriever(entries: list[MemoryEntry], vector: bool = True) -> MemoryRetriever:
    env = EnvLookup(environ={"PAICLI_MEMORY_VECTOR": "on" if vector else "off"})
    return MemoryRetriever(ListStore(entries), MemoryValues.parse(env), clock=lambda: NOW, zone=timezone.utc)


def _fact(text: str, entry_id: str, project: str | None = PROJECT) -> MemoryEntry:
    scope = "project" if project else "global"
    return entry(text, scope, project, entry_id=entry_id, when=NOW - timedelta(days=3))


@pytest.mark.parametrize(
    ("text", "owner"),
    [
        ("支付服务的发布审批人是李娜", "支付服务"),
        ("支付服务那边的发布审批人是李娜", "支付服务"),
        ("Orion-37 项目 那边 release approver 是 李娜", "orion-37"),
        ("The reviewer of the mobile app is Li Na.", "mobileapp"),
        ("the payment service's timeout is 30 s", "paymentservice"),
        ("For the Vega-3 project, the build tool is Bazel.", "vega-3"),
        ("The build tool for the backend is Gradle", "backend"),
    ],
)
def test_the_owner_a_subject_is_qualified_by(text: str, owner: str) -> None:
    assert qualifier(text)[0] == owner


@pytest.mark.parametrize(
    "text",
    [
        "审批人是王强",
        "数据库连接池大小是 32",  # a longer subject is no owner: nothing attaches it
        "我们团队的发布审批人是周敏",  # the speaker's own team or project is not another owner
        "本项目的 JDK 是 21",
        "our team's release approver is Li Na",
        "我们用的是 Gradle",  # 的 after a verb nominalises
        "测试用的数据库是 PostgreSQL",
        "默认分支是我们的 main",  # 的 after the copula belongs to the value
        "We use pytest for tests",  # `for` after the verb belongs to the value
        "The approver got updated to Wang Qiang.",
    ],
)
def test_no_owner_where_the_subject_names_none(text: str) -> None:
    assert qualifier(text)[0] == ""


def test_a_question_names_an_owner_in_any_spacing() -> None:
    assert named("paymentservice", normalized_query("What is the Payment Service timeout?"))
    assert named("支付服务", normalized_query("支付服务 的审批人是谁"))
    assert not named("支付服务", normalized_query("发布审批人是谁"))
    assert named("", normalized_query("anything"))


def _ids(entries: list[MemoryEntry], query: str, vector: bool = True) -> list[str]:
    return [r.entry.id for r in _retriever(entries, vector).rank(query, entries, NOW, PROJECT)]


def test_this_projects_fact_beats_other_owners_sharing_more_words() -> None:
    entries = [
        _fact("支付服务的发布审批人是李娜", "component"),
        _fact("Apollo 项目的发布审批人是周敏", "other-project", None),
        _fact("审批人是王强", "ours"),
    ]
    ranked = _retriever(entries).rank("发布审批人是谁？", entries, NOW, PROJECT)
    assert ranked[0].entry.id == "ours"
    by_id = {r.entry.id: r.keyword_score for r in ranked}
    assert by_id["ours"] < by_id["component"]  # it wins on what it is about, not on shared words


def test_english_owners_lose_to_the_plain_subject() -> None:
    entries = [
        _fact("The release approver of the mobile app is Li Na.", "of"),
        _fact("For the Apollo project, the release approver is Zhou Min.", "for", None),
        _fact("the data team's release approver is Wang Qiang", "possessive", None),
        _fact("The approver is now Zhao Lei.", "ours"),
    ]
    ranked = _ids(entries, "Who is the release approver?")
    assert ranked[0] == "ours" and set(ranked[1:]) == {"of", "for", "possessive"}


def test_a_question_that_names_the_owner_gets_its_fact_first() -> None:
    entries = [
        _fact("支付服务的发布审批人是李娜", "payment"),
        _fact("网关的发布审批人是周敏", "gateway"),
        _fact("发布审批人是王强", "ours"),
    ]
    ranked = _ids(entries, "支付服务的发布审批人是谁？")
    assert ranked[0] == "payment" and ranked.index("ours") < ranked.index("gateway")


def test_only_this_projects_memory_takes_the_place() -> None:
    # another project's global fact with no owner is no better an answer here than this project's component
    entries = [_fact("发布审批人是赵六", "global", None), _fact("支付服务的发布审批人是李娜", "component")]
    assert _ids(entries, "发布审批人是谁？") == ["component", "global"]


def test_the_owned_memory_stays_before_memories_on_other_subjects() -> None:
    entries = [
        # shares 审批人 but is another project's global fact on another subject (上线 would be 发布's concept)
        _fact("采购审批人是孙七", "elsewhere-subject", None),
        _fact("支付服务的发布审批人是李娜", "component"),
        _fact("审批人是王强", "ours"),
        _fact("回滚要先通知值班人", "unrelated"),
    ]
    ranked = _ids(entries, "发布审批人是谁？")
    assert ranked[:2] == ["ours", "component"]
    assert "unrelated" not in ranked  # it shares no term: not a match at all


def test_the_reference_order_stays_without_the_local_vector() -> None:
    entries = [_fact("审批人是王强", "ours"), _fact("支付服务的发布审批人是李娜", "component")]
    assert _ids(entries, "发布审批人是谁？", vector=False) == [
        "component",
        "ours",
    ]  # spec 6.1: share of terms


def test_the_store_path_applies_the_owner_rule(tmp_path: Path) -> None:
    project = str(tmp_path)
    store = LongTermMemory(tmp_path, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW)
    for item in (
        _fact("支付服务那边的发布审批人是李娜", "fact-component", project),
        _fact("For the Apollo project, the release approver is Zhou Min.", "fact-apollo", None),
        _fact("审批人是王强", "fact-ours", project),
    ):
        assert store.write(item, allow_conflict=True).written
    retriever = MemoryRetriever(
        store, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW, zone=timezone.utc
    )
    top = [r.entry.id for r in retriever.top("发布审批人是谁", project)]
    assert top[0] == "fact-ours" and "fact-component" in top
