"""`paicli -p --plan` end to end against the loopback fake server (real subprocess, real openai client)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import killed_at_hang, ledger_entries, message_text, run_served, run_then_stop

PLANNER_MARK = "Plan Builder"


def plan_json(*tasks: tuple[str, str, str, list[str]]) -> str:
    return json.dumps(
        {
            "summary": "测试计划",
            "tasks": [
                {"id": i, "description": d, "type": t, "dependencies": deps} for i, d, t, deps in tasks
            ],
        },
        ensure_ascii=False,
    )


def is_planner(body: dict[str, Any]) -> bool:
    return PLANNER_MARK in message_text(body["messages"][0])


def task_of(body: dict[str, Any]) -> str | None:
    """The description of the task a request belongs to (its first user message names it)."""
    if is_planner(body) or len(body["messages"]) < 2:
        return None
    first_user = message_text(body["messages"][1])
    for line in first_user.splitlines():
        if line.startswith("当前任务："):
            return line.removeprefix("当前任务：").strip()
    return None


FOUR_TASKS = plan_json(
    ("t1", "读取甲文件", "FILE_READ", []),
    ("t2", "分析乙模块", "ANALYSIS", []),
    ("t3", "汇总甲乙", "ANALYSIS", ["t1", "t2"]),
    ("t4", "核对汇总", "VERIFICATION", ["t3"]),
)


def test_independent_tasks_overlap_and_each_task_sees_only_its_own_history(tmp_path: Path) -> None:
    def respond(body: dict[str, Any]) -> Reply | str | None:
        if is_planner(body):
            return f"```json\n{FOUR_TASKS}\n```"
        task = task_of(body)
        if task in ("读取甲文件", "分析乙模块"):
            return Reply.text(f"{task}的结果", delay=1.0)
        return Reply.text(f"{task}完成") if task else None

    done, requests, times = run_served(
        respond, ["-p", "检查甲乙两部分并汇总", "--plan", "--output-format", "stream-json"], tmp_path
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[-1]["type"] == "result" and lines[-1]["is_error"] is False
    assert "✅ 计划执行完成！" in lines[-1]["result"] and "[t4] 核对汇总完成" in lines[-1]["result"]
    assert [e["tasks"][0]["id"] for e in lines if e["type"] == "plan"] == ["t1"]
    assert [e["task_id"] for e in lines if e["type"] == "task_end"] == ["t1", "t2", "t3", "t4"]

    index = {task_of(body): i for i, body in enumerate(requests)}
    (a_start, a_end), (b_start, b_end) = times[index["读取甲文件"]], times[index["分析乙模块"]]
    assert a_end is not None and b_end is not None
    assert a_start < b_end and b_start < a_end, "the two independent tasks did not run at the same time"

    by_task = {task_of(body): body for body in requests if task_of(body)}
    assert len(by_task["读取甲文件"]["messages"]) == 2  # a fresh [system, user] history
    for name, body in by_task.items():
        others = [o for o in by_task if o != name]
        text = "\n".join(message_text(m) for m in body["messages"])
        assert not any(f"当前任务：{other}" in text for other in others), name
    summary_input = message_text(by_task["汇总甲乙"]["messages"][1])
    assert "读取甲文件的结果" in summary_input and "分析乙模块的结果" in summary_input

    actors = {(e["mode"], e["actor"]) for e in ledger_entries(tmp_path)}
    assert {("plan", "plan-agent"), ("plan", "planner"), ("plan", "task:t1"), ("plan", "task:t4")} <= actors


def test_a_failing_task_below_half_progress_triggers_a_replan(tmp_path: Path) -> None:
    first = plan_json(
        ("t1", "读取配置", "FILE_READ", []),
        ("t2", "改写配置", "FILE_WRITE", ["t1"]),
        ("t3", "运行检查", "COMMAND", ["t2"]),
    )
    second = plan_json(("r1", "换个办法读取配置", "FILE_READ", []), ("r2", "给出结论", "ANALYSIS", ["r1"]))
    planner_replies = [first, second]

    def respond(body: dict[str, Any]) -> Reply | str | None:
        if is_planner(body):
            return planner_replies.pop(0)
        task = task_of(body)
        if task == "读取配置":
            return Reply.error(400, "模型拒绝了这个任务")
        return Reply.text(f"{task}完成") if task else None

    done, requests, _ = run_served(respond, ["-p", "整理配置", "--plan"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "🔄 尝试重新规划（第 1/2 次）" in done.stderr
    assert "✅ 计划执行完成！" in done.stdout and "[r2] 给出结论完成" in done.stdout
    planner_requests = [body for body in requests if is_planner(body)]
    assert len(planner_requests) == 2
    replan_request = message_text(planner_requests[1]["messages"][-1])
    assert "读取配置" in replan_request  # the replan request names the failure
    assert not any(task_of(body) == "改写配置" for body in requests)


REPORT_PLAN = plan_json(
    ("t1", "读取甲", "FILE_READ", []),
    ("t2", "分析甲", "ANALYSIS", ["t1"]),
    ("t3", "写出报告", "FILE_WRITE", ["t2"]),
    ("t4", "核对报告", "VERIFICATION", ["t3"]),
)


def killed_during_task_3(tmp_path: Path) -> tuple[FakeOpenAIServer, dict[str, str]]:
    """Start a server, run `-p --plan` until task 3 reaches the model, SIGKILL it; the server keeps running."""
    hang_task3 = threading.Event()
    hang_task3.set()

    def respond(body: dict[str, Any]) -> Reply | str | None:
        if is_planner(body):
            return REPORT_PLAN
        task = task_of(body)
        if task == "写出报告" and hang_task3.is_set():
            return Reply.hang(before_headers=True)
        return Reply.text(f"{task}完成") if task else None

    return killed_at_hang(
        respond, ["-p", "写报告", "--plan"], tmp_path, hang_task3, 60, "task 3 never reached the model"
    )


def test_sigkill_during_task_3_then_continue_runs_only_what_is_left(tmp_path: Path) -> None:
    server, env = killed_during_task_3(tmp_path)
    done, later = run_then_stop(server, env, ["-p", "", "--plan", "-c"], tmp_path)

    assert done.returncode == 0, done.stderr
    assert [task_of(body) for body in later] == ["写出报告", "核对报告"]
    assert not any(is_planner(body) for body in later)
    assert "分析甲完成" in message_text(later[0]["messages"][1])  # the stored result of task 2 feeds task 3
    assert "[t4] 核对报告完成" in done.stdout


def test_the_repl_started_with_continue_offers_the_interrupted_plan(tmp_path: Path) -> None:
    server, env = killed_during_task_3(tmp_path)
    done, later = run_then_stop(server, env, ["-c"], tmp_path, stdin="y\n")

    assert done.returncode == 0, done.stderr
    assert "继续未完成的计划？" in done.stderr and "（2/4 个任务已完成）" in done.stdout
    assert [task_of(body) for body in later] == ["写出报告", "核对报告"]
    assert "[t4] 核对报告完成" in done.stdout


def test_repl_plan_mode_plans_plain_input_without_review_when_piped(tmp_path: Path) -> None:
    def respond(body: dict[str, Any]) -> Reply | str | None:
        if is_planner(body):
            return plan_json(("only", "回答问题", "ANALYSIS", []))
        return Reply.text("答案是 42") if task_of(body) else "普通回答"

    done, requests, _ = run_served(respond, [], tmp_path, stdin="/mode plan\n问个问题\n")
    assert done.returncode == 0, done.stderr
    assert [is_planner(body) for body in requests] == [True, False]
    assert "✅ 计划执行完成！" in done.stdout and "[only] 答案是 42" in done.stdout
    assert '"tasks"' not in done.stdout + done.stderr  # the planner's raw JSON is not shown
