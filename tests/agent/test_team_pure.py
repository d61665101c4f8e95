"""Team mode's pure parts: the strict plan parser, the verdict parser, retry/keep decisions, round-robin
workers, batching, skip reasons, the final result and the checkpoint fold of team runs."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from paicli.agent.plan.checkpoint import fold_interrupted
from paicli.agent.plan.model import NodeState, Plan, PlanProgress, PlanTask, TaskType
from paicli.agent.plan.parse import PlanParseError
from paicli.agent.team.parse import parse_team_plan
from paicli.agent.team.result import team_result
from paicli.agent.team.review import (
    NO_REASON,
    UNPARSABLE,
    ReviewAction,
    Verdict,
    WorkerAction,
    after_review,
    after_worker_failure,
    parse_verdict,
)
from paicli.agent.team.schedule import Rotation, StepQueue, next_batch, reviewer_name, skip_reasons


def step(
    step_id: str, *deps: str, description: str | None = None, kind: str | None = "ANALYSIS"
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": step_id,
        "description": description or f"做{step_id}",
        "dependencies": list(deps),
    }
    if kind is not None:
        item["type"] = kind
    return item


def reply(*steps: dict[str, Any], summary: str = "概括") -> str:
    return json.dumps({"summary": summary, "steps": list(steps)}, ensure_ascii=False)


# ---- team plan parser -------------------------------------------------------------------------------


def test_a_valid_plan_keeps_order_types_and_dependencies() -> None:
    plan = parse_team_plan(reply(step("s1"), step("s2", kind="FILE_READ"), step("s3", "s1", "s2")), "目标")
    assert plan.goal == "目标" and plan.summary == "概括"
    assert [(t.id, t.type, t.dependencies) for t in plan.tasks] == [
        ("s1", TaskType.ANALYSIS, ()),
        ("s2", TaskType.FILE_READ, ()),
        ("s3", TaskType.ANALYSIS, ("s1", "s2")),
    ]


def test_a_fenced_plan_is_accepted_and_a_missing_type_means_analysis() -> None:
    plan = parse_team_plan(f"计划如下：\n```json\n{reply(step('s1', kind=None))}\n```\n", "目标")
    assert plan.tasks == (PlanTask("s1", "做s1", TaskType.ANALYSIS, ()),)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "规划回复为空"),
        ("先读文件，再总结。", "不是合法的 JSON"),
        (f"```json\n{reply(step('a'))}\n```\n```json\n{reply(step('b'))}\n```", "多个代码块"),
        ("[1, 2]", "必须是一个 JSON 对象"),
        (json.dumps({"tasks": [step("s1")]}), r"steps"),
        (reply(), "没有任何任务"),
        (reply({"id": "s1", "dependencies": []}), r"steps\.0\.description"),
        (reply({"id": "", "description": "x"}), r"steps\.0\.id"),
        (reply(step("s1"), step("s1")), "id 重复：s1"),
        (reply(step("s1", kind="DEPLOY")), "类型 'DEPLOY' 未知"),
        (reply(step("s1", "s1")), "依赖了自己"),
        (reply(step("s1", "s9")), "依赖了不存在的任务：s9"),
        (reply(step("s1", "s3"), step("s2", "s1"), step("s3", "s2")), "循环依赖：s1 -> s3 -> s2 -> s1"),
    ],
)
def test_every_violation_rejects_the_whole_plan(text: str, reason: str) -> None:
    with pytest.raises(PlanParseError, match=reason):
        parse_team_plan(text, "目标")


# ---- verdicts and decisions -------------------------------------------------------------------------


def test_verdicts_bare_and_fenced() -> None:
    assert parse_verdict('{"approved": true, "summary": "好", "issues": []}') == Verdict(True, "")
    fenced = '审查结论：\n```json\n{"approved": false, "issues": ["缺少单元测试", "命名不一致"]}\n```'
    assert parse_verdict(fenced) == Verdict(False, "- 缺少单元测试\n- 命名不一致")
    assert parse_verdict('{"approved": false, "issues": "数字算错了"}') == Verdict(False, "数字算错了")


def test_a_rejection_without_issues_falls_back_to_the_summary_then_a_default() -> None:
    assert parse_verdict('{"approved": false, "summary": "结论不对", "issues": []}') == Verdict(
        False, "结论不对"
    )
    assert parse_verdict('{"approved": false}') == Verdict(False, NO_REASON)


@pytest.mark.parametrize(
    "text",
    [
        "看起来不错，通过。",
        '{"approved": "true"}',
        '{"approved": 1}',
        '{"summary": "好"}',
        '[{"approved": true}]',
        '{"approved": true',
    ],
)
def test_anything_but_a_boolean_approved_is_a_rejection_with_the_raw_text(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.approved is False
    assert verdict.issues == UNPARSABLE + text.strip()


def test_an_empty_review_is_a_rejection_without_reason() -> None:
    assert parse_verdict("   ") == Verdict(False, NO_REASON)


def test_retry_then_keep_decisions() -> None:
    rejected = Verdict(False, "不对")
    assert after_review(Verdict(True), 0) is ReviewAction.ACCEPT
    assert after_review(Verdict(True), 2) is ReviewAction.ACCEPT
    assert after_review(rejected, 0) is ReviewAction.RETRY
    assert after_review(rejected, 1) is ReviewAction.RETRY
    assert after_review(rejected, 2) is ReviewAction.KEEP_AFTER_RETRIES
    assert after_review(rejected, 0, max_retries=0) is ReviewAction.KEEP_AFTER_RETRIES
    assert after_review(None, 0) is ReviewAction.KEEP_AFTER_REVIEW_ERROR
    assert after_worker_failure(None) is WorkerAction.FAIL
    assert after_worker_failure("  ") is WorkerAction.FAIL
    assert after_worker_failure("上一次的结果") is WorkerAction.KEEP_PREVIOUS


# ---- round-robin and batching -----------------------------------------------------------------------


def test_round_robin_continues_where_the_last_step_went() -> None:
    rotation = Rotation()
    one, rotation = rotation.lanes(1)
    assert one == [0]
    two, rotation = rotation.lanes(1)
    assert two == [1]
    pair, rotation = rotation.lanes(2)
    assert pair == [0, 1]
    three, rotation = rotation.lanes(3)
    assert three == [0, 1]  # a pool of two: the third step waits for whichever worker is free first
    after, rotation = rotation.lanes(1)
    assert after == [1]
    assert rotation.lanes(1)[0] == [0]


def test_a_parallel_batch_is_taken_in_plan_order_until_it_is_empty() -> None:
    queue = StepQueue(["a", "b", "c"])
    assert [queue.take(), queue.take(), queue.take(), queue.take()] == ["a", "b", "c", None]


def make_plan(*tasks: PlanTask) -> Plan:
    return Plan("目标", tasks)


def task(task_id: str, *deps: str) -> PlanTask:
    return PlanTask(task_id, f"做{task_id}", TaskType.ANALYSIS, deps)


def test_batches_are_the_ready_steps_and_reviewers_are_per_step_only_in_parallel() -> None:
    plan = make_plan(task("a"), task("b"), task("c", "a", "b"), task("d", "c"))
    assert [t.id for t in next_batch(plan, {})] == ["a", "b"]
    states = {"a": NodeState("done", "x"), "b": NodeState("done", "y")}
    assert [t.id for t in next_batch(plan, states)] == ["c"]
    assert next_batch(plan, {**states, "c": NodeState("failed", "boom")}) == []
    assert reviewer_name("a", True) == "reviewer-a"
    assert reviewer_name("c", False) == "reviewer"


def test_skip_reasons_name_the_failed_step_in_plan_order() -> None:
    plan = make_plan(task("a"), task("b", "a"), task("c"), task("d", "b", "c"))
    states = {"a": NodeState("failed", "boom"), "c": NodeState("done", "ok")}
    assert skip_reasons(plan, states) == {
        "b": "因前置步骤失败被跳过（a 未完成）",
        "d": "因前置步骤失败被跳过（a 未完成）",
    }
    assert skip_reasons(plan, {t.id: NodeState("done") for t in plan.tasks}) == {}


# ---- final result -----------------------------------------------------------------------------------


def test_the_result_lists_every_step_with_a_preview_and_the_leaf_results() -> None:
    plan = make_plan(task("a"), task("b", "a"))
    long_text = "结果" * 100
    done = PlanProgress(plan, {"a": NodeState("done", long_text), "b": NodeState("done", "最终答案")})
    finished = team_result(done, {"b": "审查未通过，保留最后一次结果"})
    assert finished.status == "done"
    lines = finished.answer.splitlines()
    assert lines[0] == "✅ 团队任务完成（2/2 个步骤完成）"
    assert lines[1].startswith("- [a] ✅ 完成：结果结果") and lines[1].endswith("…") and len(lines[1]) < 140
    assert lines[2] == "- [b] ✅ 完成（审查未通过，保留最后一次结果）：最终答案"
    assert lines[-2:] == ["最终结果：", "[b] 最终答案"]


def test_a_partial_and_a_failed_result() -> None:
    plan = make_plan(task("a"), task("b", "a"), task("c"))
    partial = team_result(
        PlanProgress(
            plan,
            {
                "a": NodeState("failed", "模型出错"),
                "b": NodeState("skipped", "跳过"),
                "c": NodeState("done", "c 的结果"),
            },
        )
    )
    assert partial.status == "partial"
    assert "⚠️ 团队任务部分完成（1/3 个步骤完成）" in partial.answer
    assert "- [a] ❌ 失败：模型出错" in partial.answer and "- [b] ⏭️ 跳过：跳过" in partial.answer
    failed = team_result(PlanProgress(plan, {"a": NodeState("failed", "x")}))
    assert failed.status == "error" and failed.error


# ---- checkpoints ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    event: str
    metadata: dict[str, Any] = field(default_factory=dict)
    mode: str = "team"


def test_the_fold_finds_an_interrupted_team_run_only_when_asked_for_team_runs() -> None:
    plan = make_plan(task("a"), task("b", "a"))
    entries = [
        Entry("plan_created", {"planId": "r1", "revision": 0, "plan": plan.to_json()}),
        Entry("task_state", {"planId": "r1", "taskId": "a", "status": "done", "result": "A"}),
        Entry("task_state", {"planId": "r1", "taskId": "b", "status": "running", "result": ""}),
    ]
    assert fold_interrupted(entries) is None  # plan runs only
    found = fold_interrupted(entries, ("plan", "team"))
    assert found is not None and found.mode == "team" and found.completed == ["a"]
    assert found.progress.state("b") == NodeState()
    ended = [*entries, Entry("run_result", {"planId": "r1", "status": "done"})]
    assert fold_interrupted(ended, ("team",)) is None
