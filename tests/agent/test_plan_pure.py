"""The pure parts of Plan-and-Execute: parsing/validation, batching, progress and decisions, resume fold, results."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from paicli.agent.plan.checkpoint import fold_interrupted
from paicli.agent.plan.graph import (
    FailureAction,
    batches,
    dependents,
    find_cycle,
    on_failure,
    progress,
    ready_batch,
    topological_order,
)
from paicli.agent.plan.model import NodeState, Plan, PlanProgress, PlanTask, TaskType
from paicli.agent.plan.parse import PlanParseError, parse_plan
from paicli.agent.plan.result import STUCK, plan_result


def task(task_id: str, *deps: str, kind: str = "ANALYSIS") -> dict[str, Any]:
    return {"id": task_id, "description": f"做 {task_id}", "type": kind, "dependencies": list(deps)}


def reply(*tasks: dict[str, Any]) -> str:
    return json.dumps({"summary": "s", "tasks": list(tasks)}, ensure_ascii=False)


def make_plan(*tasks: dict[str, Any]) -> Plan:
    return parse_plan(reply(*tasks), "目标")


# ---- parsing ----------------------------------------------------------------------------------------


def test_a_fenced_plan_parses_into_typed_tasks() -> None:
    text = "```json\n" + reply(task("a", kind="file_read"), task("b", "a", kind="VERIFICATION")) + "\n```"
    plan = parse_plan(text, "目标")
    assert plan.goal == "目标" and plan.summary == "s"
    assert plan.tasks == (
        PlanTask("a", "做 a", TaskType.FILE_READ),
        PlanTask("b", "做 b", TaskType.VERIFICATION, ("a",)),
    )


def test_a_single_task_plan_is_fine() -> None:
    assert make_plan(task("only")).ids == ["only"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "为空"),
        ("好的，我来规划", "不是合法的 JSON"),
        ("```json\n{}\n```\n```json\n{}\n```", "多个代码块"),
        ("[1, 2]", "必须是一个 JSON 对象"),
        ('{"summary": "x"}', "tasks"),
        ('{"tasks": []}', "没有任何任务"),
        (reply({"id": "a", "type": "ANALYSIS"}), "description"),
        (reply(task("a"), task("a")), "id 重复：a"),
        (reply(task("a", kind="DEPLOY")), "类型 'DEPLOY' 未知"),
        (reply(task("a", "zz")), "不存在的任务：zz"),
        (reply(task("a", "a")), "依赖了自己"),
        (reply(task("a", "c"), task("b", "a"), task("c", "b")), "循环依赖"),
    ],
)
def test_every_rejection_has_a_reason(text: str, reason: str) -> None:
    with pytest.raises(PlanParseError) as caught:
        parse_plan(text, "目标")
    assert reason in str(caught.value)


def test_a_replan_may_depend_on_kept_tasks_but_not_reuse_their_ids() -> None:
    plan = parse_plan(reply(task("n1", "done1")), "目标", existing_ids=["done1"])
    assert plan.tasks[0].dependencies == ("done1",)
    with pytest.raises(PlanParseError, match="id 重复：done1"):
        parse_plan(reply(task("done1")), "目标", existing_ids=["done1"])


# ---- graph ------------------------------------------------------------------------------------------


def test_cycles_are_reported_as_a_path() -> None:
    tasks = [PlanTask("a", "", TaskType.ANALYSIS, ("b",)), PlanTask("b", "", TaskType.ANALYSIS, ("a",))]
    assert find_cycle(tasks) == ["a", "b", "a"]
    assert find_cycle(tasks[:1]) == []


def test_batches_follow_dependencies_and_keep_plan_order() -> None:
    plan = make_plan(task("d", "b", "c"), task("b", "a"), task("a"), task("c"), task("e"))
    assert [t.id for t in topological_order(plan)] == ["a", "c", "e", "b", "d"]
    assert batches(plan) == [["a", "c", "e"], ["b"], ["d"]]


def test_ready_batch_needs_every_dependency_done() -> None:
    plan = make_plan(task("a"), task("b"), task("c", "a", "b"))
    states = {"a": NodeState("done", "x"), "b": NodeState("failed", "boom")}
    assert ready_batch(plan, states) == []
    states["b"] = NodeState("done", "y")
    assert [t.id for t in ready_batch(plan, states)] == ["c"]


def test_progress_and_the_replan_or_skip_decision() -> None:
    plan = make_plan(task("a"), task("b"), task("c"), task("d"))
    assert progress(plan, {"a": NodeState("done")}) == 0.25
    assert on_failure(0.25, 0, 2) is FailureAction.REPLAN
    assert on_failure(0.25, 2, 2) is FailureAction.STOP
    assert on_failure(0.0, 0, 0) is FailureAction.STOP
    assert on_failure(0.5, 0, 2) is FailureAction.SKIP_DEPENDENTS
    assert on_failure(0.75, 2, 2) is FailureAction.SKIP_DEPENDENTS


def test_dependents_are_transitive() -> None:
    plan = make_plan(task("a"), task("b", "a"), task("c", "b"), task("d"))
    assert dependents(plan, "a") == ["b", "c"]
    assert dependents(plan, "d") == []


# ---- resume fold ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    event: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    mode: str = "plan"
    source: str = ""


def created(plan_id: str, plan: Plan, revision: int = 0) -> Entry:
    return Entry("plan_created", {"planId": plan_id, "revision": revision, "plan": plan.to_json()})


def state(plan_id: str, task_id: str, status: str, result: str = "") -> Entry:
    return Entry("task_state", {"planId": plan_id, "taskId": task_id, "status": status, "result": result})


def test_the_fold_keeps_done_nodes_and_restarts_the_rest() -> None:
    plan = make_plan(
        task("a", kind="FILE_READ"), task("b", "a", kind="FILE_WRITE"), task("c", "b"), task("d", "c")
    )
    entries = [
        Entry("user", {}, "react"),
        created("p1", plan),
        state("p1", "a", "running"),
        state("p1", "a", "done", "读到了"),
        state("p1", "b", "running"),
        state("p1", "b", "done", "写好了"),
        state("p1", "c", "running"),
        state("p1", "d", "skipped", "x"),
    ]
    found = fold_interrupted(entries)
    assert found is not None and found.plan_id == "p1"
    assert found.completed == ["a", "b"] and found.completed_writes == ["b"]
    assert found.progress.state("a") == NodeState("done", "读到了")
    assert found.progress.state("c") == NodeState() and found.progress.state("d") == NodeState()


def test_an_ended_plan_is_not_offered_and_the_newest_plan_wins() -> None:
    plan = make_plan(task("a"), task("b", "a"))
    ended = [created("p1", plan), state("p1", "a", "done", "r"), Entry("run_result", {"planId": "p1"})]
    assert fold_interrupted(ended) is None
    newer = [*ended, created("p2", plan), state("p2", "a", "failed", "boom")]
    found = fold_interrupted(newer)
    assert found is not None and found.plan_id == "p2" and found.completed == []


def test_a_plan_turned_down_at_review_is_not_offered_but_one_cancelled_while_running_is() -> None:
    plan = make_plan(task("a"), task("b", "a"))
    declined = [created("p1", plan), Entry("run_cancelled", {"planId": "p1"}, source="review_cancel")]
    assert fold_interrupted(declined) is None
    stopped = [
        created("p1", plan),
        state("p1", "a", "done", "r"),
        Entry("run_cancelled", {"planId": "p1"}, source="user_cancel"),
    ]
    found = fold_interrupted(stopped)
    assert found is not None and found.completed == ["a"]


def test_a_replanned_revision_replaces_the_task_list_and_keeps_done_states() -> None:
    first = make_plan(task("a"), task("b", "a"))
    second = Plan("目标", (*first.tasks[:1], PlanTask("n1", "新任务", TaskType.ANALYSIS, ("a",))))
    entries = [
        created("p1", first),
        state("p1", "a", "done", "ok"),
        state("p1", "b", "failed", "boom"),
        created("p1", second, 1),
    ]
    found = fold_interrupted(entries)
    assert found is not None and found.revision == 1
    assert found.progress.plan.ids == ["a", "n1"] and found.progress.state("a").status == "done"
    assert "b" not in found.progress.states


def test_damaged_entries_are_skipped() -> None:
    plan = make_plan(task("a"))
    entries = [Entry("plan_created", {"planId": "p1", "plan": {"tasks": [{"id": "x"}]}}), created("p2", plan)]
    found = fold_interrupted(entries)
    assert found is not None and found.plan_id == "p2"


# ---- result text ------------------------------------------------------------------------------------


def test_results_name_leaves_failures_and_stuck_plans() -> None:
    plan = make_plan(task("a"), task("b", "a"), task("c"))
    all_done = PlanProgress(plan, {t: NodeState("done", f"{t} 结果") for t in ("a", "b", "c")})
    finished = plan_result(all_done)
    assert finished.status == "done"
    assert finished.answer.splitlines() == ["✅ 计划执行完成！", "[b] b 结果", "[c] c 结果"]
    partial = PlanProgress(
        plan,
        {
            "a": NodeState("done", "a 结果"),
            "b": NodeState("failed", "坏了"),
            "c": NodeState("skipped", "依赖的任务 b 失败"),
        },
    )
    text = plan_result(partial).answer
    assert (
        text.startswith("⚠️ 计划部分完成，有任务失败。")
        and "[a] a 结果" in text
        and "❌ 失败 [b]: 坏了" in text
    )
    assert plan_result(PlanProgress(plan, {"a": NodeState("done")})).answer == STUCK
