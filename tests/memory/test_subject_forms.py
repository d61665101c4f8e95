"""Issue 37 (memsubj): a correction that names its subject in another word form. Each rule beside the look-alike
that must stay a truth of its own; subjects and values are mine, not the eval's."""

from __future__ import annotations

from pathlib import Path

from paicli.config.run_values import MemoryValues
from paicli.memory import evolve
from paicli.memory.manager import MemoryManager
from paicli.memory.marked_change import pick
from paicli.memory.relation import relation

from .helpers import CLOCK, env, memory


def _manager(tmp_path: Path) -> MemoryManager:
    root = tmp_path / "repo"
    root.mkdir(parents=True, exist_ok=True)
    return MemoryManager(memory(tmp_path / "mem"), root, MemoryValues.parse(env()), clock=CLOCK)


def _truths(mgr: MemoryManager) -> list[str]:
    return sorted(e.content for e in mgr.list_all() if evolve.is_truth(e))


def _after(tmp_path: Path, *lines: str) -> list[str]:
    mgr = _manager(tmp_path)
    for line in lines:
        mgr.store_fact(line)
    return _truths(mgr)


# ---- 1. a shorter subject is the same one, and the full one after it again -----------------------------------


def test_a_subject_said_without_its_modifier_replaces_the_full_one(tmp_path: Path) -> None:
    assert relation(
        "The public API gateway timeout is 30 seconds.", "The gateway timeout is 60 seconds now."
    ).kind == ("changed")
    assert _after(tmp_path, "容器镜像仓库是 Harbor", "镜像仓库现在换成 ACR 了") == ["镜像仓库现在换成 ACR 了"]


def test_full_short_full_the_full_name_again_replaces_the_short_form_it_was_replaced_by(
    tmp_path: Path,
) -> None:
    truths = _after(
        tmp_path,
        "The product search index lives in Elasticsearch.",
        "The search index lives in OpenSearch now.",
        "The product search index lives in Elasticsearch again.",
    )
    assert truths == ["The product search index lives in Elasticsearch again."]


# ---- 2. another slot of the same subject: a value of another kind ------------------------------------------


def test_a_value_of_another_kind_is_another_slot_of_the_subject(tmp_path: Path) -> None:
    found = relation("构建用 Gradle", "构建现在在凌晨两点跑")
    assert (found.kind, found.apart) == ("none", True)
    assert _after(tmp_path, "The backup job starts at 2 am.", "The backup job writes to S3 now.") == [
        "The backup job starts at 2 am.",
        "The backup job writes to S3 now.",
    ]
    assert _after(tmp_path / "zh", "同步任务在凌晨一点开始", "同步任务现在写到 OSS") == [
        "同步任务在凌晨一点开始",
        "同步任务现在写到 OSS",
    ]


def test_a_value_of_the_same_kind_still_changes_the_slot(tmp_path: Path) -> None:
    assert relation("构建用 Gradle", "构建现在换成 Bazel 了").kind == "changed"
    assert _after(tmp_path, "同步任务在凌晨一点开始", "同步任务现在凌晨三点启动") == [
        "同步任务现在凌晨三点启动"
    ]


# ---- 3. another verb for the same slot: the predicate names no thing ---------------------------------------


def test_another_verb_for_the_same_slot_is_a_change(tmp_path: Path) -> None:
    assert pick(["The backup job starts at 2 am."], "The backup job kicks off at 4 am now.") == 0
    assert pick(["The nightly sync begins at 1 am."], "The nightly sync kicks off at 3 am now.") == 0
    assert pick(["前端 bundle 用 webpack 打包"], "前端 bundle 现在由 esbuild 生成") == 0
    assert _after(tmp_path, "The backup job starts at 2 am.", "The backup job kicks off at 4 am now.") == [
        "The backup job kicks off at 4 am now."
    ]


def test_another_verb_does_not_join_two_different_things(tmp_path: Path) -> None:
    assert pick(["The backup job starts at 2 am."], "The cleanup job kicks off at 4 am now.") is None
    assert pick(["文档用 Sphinx 构建"], "测试现在用 Bazel 构建") is None
    assert pick(["Docs are built with Sphinx."], "Tests are built with Bazel now.") is None
    assert _after(tmp_path, "The backup job starts at 2 am.", "The cleanup job kicks off at 4 am now.") == [
        "The backup job starts at 2 am.",
        "The cleanup job kicks off at 4 am now.",
    ]


# ---- 5. a noun and its verb name one subject -----------------------------------------------------------------


def test_a_noun_and_its_verb_name_one_subject(tmp_path: Path) -> None:
    assert _after(tmp_path, "The deployment target is Heroku.", "We deploy to Fly.io now.") == [
        "We deploy to Fly.io now."
    ]
    assert _after(
        tmp_path / "c", "Response compression uses gzip.", "We compress responses with Brotli now."
    ) == ["We compress responses with Brotli now."]


def test_the_same_verb_on_another_noun_names_another_subject(tmp_path: Path) -> None:
    assert _after(tmp_path, "Response compression uses gzip.", "We compress images with WebP now.") == [
        "Response compression uses gzip.",
        "We compress images with WebP now.",
    ]


def test_an_hour_with_a_name_of_its_own_is_a_time_so_a_tool_then_a_time_are_two_slots(tmp_path: Path) -> None:
    found = relation("The nightly build uses Gradle.", "The nightly build runs at midnight now.")
    assert (found.kind, found.apart) == ("none", True)
    assert (
        relation("The nightly build runs at 2 am.", "The nightly build runs at midnight now.").kind
        == "changed"
    )
    assert _after(tmp_path, "The nightly build uses Gradle.", "The nightly build runs at midnight now.") == [
        "The nightly build runs at midnight now.",
        "The nightly build uses Gradle.",
    ]


# ---- 6. a verb's noun as a modifier (`Deploy approvals`) names a thing ---------------------------------------


def test_a_verb_before_a_noun_at_the_start_qualifies_it_and_another_object_stays_apart(
    tmp_path: Path,
) -> None:
    assert pick(["Deploy approvals are done by Lena."], "Tariq approves expense reports now.") is None
    assert _after(tmp_path, "Deploy approvals are done by Lena.", "Tariq approves expense reports now.") == [
        "Deploy approvals are done by Lena.",
        "Tariq approves expense reports now.",
    ]


def test_the_same_doing_with_the_verb_for_the_noun_is_still_a_change(tmp_path: Path) -> None:
    assert pick(["Deploy approvals are done by Lena."], "Tariq approves deploys now.") == 0
    assert _after(tmp_path, "Deploy approvals are done by Lena.", "Tariq approves deploys now.") == [
        "Tariq approves deploys now."
    ]


# ---- 7. a channel or a handle is a value, whatever word it spells -----------------------------------------


def test_a_channel_is_a_value_so_another_verb_for_where_alerts_go_is_a_change(tmp_path: Path) -> None:
    assert pick(["Alerts are posted to #ops."], "Alerts land in #incidents now.") == 0
    assert _after(tmp_path, "Alerts are posted to #ops.", "Alerts land in #incidents now.") == [
        "Alerts land in #incidents now."
    ]


def test_a_channel_for_another_thing_leaves_the_stored_one(tmp_path: Path) -> None:
    assert pick(["Alerts are posted to #ops."], "Deploy notices land in #releases now.") is None
    assert _after(tmp_path, "Alerts are posted to #ops.", "Deploy notices land in #releases now.") == [
        "Alerts are posted to #ops.",
        "Deploy notices land in #releases now.",
    ]


# ---- 8. a frequency adverb that ends its clause is the value; in front of a noun it names the thing ---------


def test_a_frequency_at_the_end_is_a_value_and_a_noun_and_its_verb_meet(tmp_path: Path) -> None:
    assert pick(["The on-call rotation is weekly."], "On-call rotates every two weeks now.") == 0
    assert _after(tmp_path, "The on-call rotation is weekly.", "On-call rotates every two weeks now.") == [
        "On-call rotates every two weeks now."
    ]


def test_a_frequency_in_front_of_a_noun_names_another_thing(tmp_path: Path) -> None:
    assert pick(["The weekly report is emailed to Nadia."], "The monthly report goes to Felix now.") is None
    assert _after(
        tmp_path, "The weekly report is emailed to Nadia.", "The monthly report goes to Felix now."
    ) == [
        "The monthly report goes to Felix now.",
        "The weekly report is emailed to Nadia.",
    ]


def test_a_verb_after_a_means_counts_only_where_the_clause_names_its_subject() -> None:
    # `由 B 审核` names no thing of its own: its verb still tells the stored fact apart from an owner's denial
    assert pick(["API docs 由 Zhao Lei 编写，由 Zhou Min 审核"], "陈晨 no longer owns docs") is None
