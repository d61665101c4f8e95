"""`paicli -p --team` end to end against the loopback fake server (real subprocess, real openai client)."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

from paicli.testing.openai_server import FakeOpenAIServer, Reply, Responder
from paicli.testing.proc import (
    killed_at_hang,
    ledger_entries,
    message_text,
    paicli_env,
    run_paicli,
    run_served,
    run_then_stop,
    start_paicli,
)

APPROVE = '{"approved": true, "summary": "可以", "issues": []}'
WAIT = 60.0  # generous: the machine is loaded; nothing here depends on speed


def team_plan(*steps: tuple[str, str, list[str]]) -> str:
    return json.dumps(
        {
            "summary": "团队计划",
            "steps": [
                {"id": i, "description": d, "type": "ANALYSIS", "dependencies": deps} for i, d, deps in steps
            ],
        },
        ensure_ascii=False,
    )


def role_of(body: dict[str, Any]) -> str:
    system = message_text(body["messages"][0])
    for marker, role in (
        ("Team Planner", "planner"),
        ("Team Worker", "worker"),
        ("Team Reviewer", "reviewer"),
    ):
        if f"## Mode: {marker}" in system:
            return role
    return "other"


def by_role(
    planner: str, reviewer: Reply | str | None = None, worker: str | None = None, other: str | None = None
) -> Responder:
    """Answers each request by the role of the member that sent it alone (`other`: a non-team request)."""
    replies = {"planner": planner, "reviewer": reviewer, "worker": worker}
    return lambda body: replies.get(role_of(body), other)


def step_of(body: dict[str, Any]) -> str | None:
    """The step id a worker or reviewer request is about (named in its first user message)."""
    if len(body["messages"]) < 2:
        return None
    for line in message_text(body["messages"][1]).splitlines():
        for prefix in ("当前步骤 [", "步骤 ["):
            if line.startswith(prefix):
                return line.removeprefix(prefix).split("]")[0]
    return None


class BothArrived:
    """Holds each of two requests until the other has arrived too; a run that sends them one after the other
    makes the first wait out the timeout, and then the server's log shows no overlap."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.seen: set[str] = set()
        self.cond = threading.Condition()

    def wait(self, name: str) -> None:
        with self.cond:
            self.seen.add(name)
            self.cond.notify_all()
            self.cond.wait_for(lambda: self.names <= self.seen, timeout=WAIT)


def test_independent_steps_run_on_both_workers_at_once_and_no_member_sees_another_history(
    tmp_path: Path,
) -> None:
    gate = BothArrived({"s1", "s2"})

    def respond(body: dict[str, Any]) -> Reply | str | None:
        role, step = role_of(body), step_of(body)
        if role == "planner":
            return team_plan(
                ("s1", "统计甲模块", []), ("s2", "统计乙模块", []), ("s3", "汇总甲乙", ["s1", "s2"])
            )
        if role == "reviewer":
            return APPROVE
        if role == "worker" and step in ("s1", "s2"):
            gate.wait(step)
            return f"{step} 的统计结果"
        return f"{step} 完成" if step else None

    done, requests, times = run_served(
        respond, ["-p", "统计甲乙两个模块并汇总", "--team", "--output-format", "stream-json"], tmp_path
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[-1]["type"] == "result" and lines[-1]["is_error"] is False
    assert lines[-1]["result"].startswith("✅ 团队任务完成（3/3 个步骤完成）")
    assert {e["task_id"]: e["worker"] for e in lines if e["type"] == "task_start"} == {
        "s1": "worker-1",
        "s2": "worker-2",
        "s3": "worker-1",
    }

    index = {step_of(body): i for i, body in enumerate(requests) if role_of(body) == "worker"}
    (a_start, a_end), (b_start, b_end) = times[index["s1"]], times[index["s2"]]
    assert a_end is not None and b_end is not None
    assert a_start < b_end and b_start < a_end, "the two independent steps did not run at the same time"

    for body in requests:
        role, text = role_of(body), "\n".join(message_text(m) for m in body["messages"])
        assert role in ("planner", "worker", "reviewer"), text[:200]
        assert ("tools" in body) == (role == "worker"), role  # only workers get tool definitions
        if role == "planner":
            assert [m["role"] for m in body["messages"]] == ["system", "user"]
            assert message_text(body["messages"][1]) == "请为以下任务制定执行计划：\n统计甲乙两个模块并汇总"
            continue
        own = step_of(body)
        assert len(body["messages"]) == 2, (role, own)  # one step per history: everything else was cleared
        others = [s for s in ("s1", "s2", "s3") if s != own]
        assert not any(f"当前步骤 [{other}]" in text or f"\n步骤 [{other}]" in text for other in others), (
            role,
            own,
        )
        assert (
            "团队计划" not in text and '"steps"' not in text
        )  # the planner's history stays with the planner
    s3 = message_text(requests[index["s3"]]["messages"][1])
    assert "已完成的依赖步骤 [s1]: 统计甲模块\n结果：s1 的统计结果" in s3 and "s2 的统计结果" in s3

    entries = ledger_entries(tmp_path)
    actors = {e["actor"] for e in entries if e["mode"] == "team"}
    assert {
        "orchestrator",
        "planner",
        "worker-1",
        "worker-2",
        "reviewer-s1",
        "reviewer-s2",
        "reviewer",
    } <= actors
    inputs = {
        (e["actor"], step)
        for e in entries
        if e["source"] == "task_input" and e["actor"].startswith("worker")
        for step in ("s1", "s2", "s3")
        if f"当前步骤 [{step}]" in (e["message"] or {}).get("content", "")
    }
    assert inputs == {("worker-1", "s1"), ("worker-2", "s2"), ("worker-1", "s3")}
    clears = {e["actor"] for e in entries if e["event"] == "history_clear" and e["source"] == "task_boundary"}
    assert {"planner", "worker-1", "worker-2", "reviewer-s1", "reviewer-s2", "reviewer"} <= clears
    assert any(e["event"] == "run_result" and e["actor"] == "orchestrator" for e in entries)


def test_a_rejected_step_is_retried_with_the_feedback_and_accepted_the_second_time(tmp_path: Path) -> None:
    verdicts = ['```json\n{"approved": false, "issues": ["没有给出最终数字"]}\n```', APPROVE]

    def respond(body: dict[str, Any]) -> Reply | str | None:
        role = role_of(body)
        if role == "planner":
            return team_plan(("s1", "算出总数", []))
        if role == "reviewer":
            return verdicts.pop(0)
        if role == "worker":
            return "大概很多" if len(body["messages"]) == 2 else "总数是 42"
        return None

    done, requests, _ = run_served(respond, ["-p", "算总数", "--team"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert [role_of(body) for body in requests] == ["planner", "worker", "reviewer", "worker", "reviewer"]
    retry = requests[3]["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert "之前的执行结果被审查拒绝，原因：\n- 没有给出最终数字" in message_text(retry[3])
    assert "总数是 42" in message_text(requests[4]["messages"][-1])
    assert (
        "⚠️ 步骤 [s1] 审查未通过，正在重新执行..." in done.stderr and "反馈: - 没有给出最终数字" in done.stderr
    )
    assert "✅ 步骤 [s1] 审查通过" in done.stderr
    assert "- [s1] ✅ 完成：总数是 42" in done.stdout


def test_a_reviewer_error_keeps_the_result(tmp_path: Path) -> None:
    respond = by_role(
        team_plan(("s1", "写一句话", [])),
        reviewer=Reply.error(400, "审查模型拒绝了请求"),
        worker="这是一句话",
    )
    done, requests, _ = run_served(respond, ["-p", "写一句话", "--team", "--output-format", "json"], tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["is_error"] is False
    assert "- [s1] ✅ 完成（审查调用失败，未经审查）：这是一句话" in result["result"]
    assert [role_of(body) for body in requests].count("worker") == 1


def test_an_invalid_team_plan_is_rejected_with_the_raw_output(tmp_path: Path) -> None:
    raw = team_plan(("s1", "甲", ["s2"]), ("s2", "乙", ["s1"]))
    done, requests, _ = run_served(by_role(raw), ["-p", "做点事", "--team"], tmp_path)
    assert done.returncode == 1
    assert "规划失败：无法解析执行计划（任务之间存在循环依赖" in done.stderr
    assert f"原始输出:\n{raw}" in done.stderr
    assert [role_of(body) for body in requests] == ["planner"]


def killed_during_step_2(tmp_path: Path) -> tuple[FakeOpenAIServer, dict[str, str]]:
    """Start a server, run `-p --team` until step s2 reaches the model, SIGKILL it; the server keeps running."""
    hang = threading.Event()
    hang.set()

    def respond(body: dict[str, Any]) -> Reply | str | None:
        role, step = role_of(body), step_of(body)
        if role == "planner":
            return team_plan(("s1", "读取资料", []), ("s2", "写出结论", ["s1"]))
        if role == "reviewer":
            return APPROVE
        if role == "worker" and step == "s2" and hang.is_set():
            return Reply.hang(before_headers=True)
        return f"{step} 完成" if step else None

    return killed_at_hang(
        respond, ["-p", "整理资料", "--team"], tmp_path, hang, WAIT, "step s2 never reached the model"
    )


def test_a_killed_team_run_continues_without_planning_or_redoing_finished_steps(tmp_path: Path) -> None:
    server, env = killed_during_step_2(tmp_path)
    done, later = run_then_stop(server, env, ["-p", "", "--team", "-c"], tmp_path)

    assert done.returncode == 0, done.stderr
    assert [(role_of(body), step_of(body)) for body in later] == [("worker", "s2"), ("reviewer", "s2")]
    assert "已完成的依赖步骤 [s1]: 读取资料\n结果：s1 完成" in message_text(later[0]["messages"][1])
    assert "⏩ 继续未完成的团队任务：跳过 1 个已完成的步骤" in done.stderr
    assert "✅ 团队任务完成（2/2 个步骤完成）" in done.stdout


def test_the_repl_started_with_continue_offers_the_interrupted_team_run(tmp_path: Path) -> None:
    server, env = killed_during_step_2(tmp_path)
    done, later = run_then_stop(server, env, ["-c"], tmp_path, stdin="y\n")

    assert done.returncode == 0, done.stderr
    assert "继续未完成的计划？" in done.stderr
    assert "上次有一个没有执行完的团队任务：整理资料（1/2 个步骤已完成）" in done.stdout
    assert [(role_of(body), step_of(body)) for body in later] == [("worker", "s2"), ("reviewer", "s2")]
    assert "✅ 团队任务完成（2/2 个步骤完成）" in done.stdout


def test_the_repl_runs_slash_team_and_mode_team_inputs_as_team_runs(tmp_path: Path) -> None:
    respond = by_role(
        team_plan(("s1", "回答问题", [])), reviewer=APPROVE, worker="答案是 42", other="普通回答"
    )
    done, requests, _ = run_served(
        respond, [], tmp_path, stdin="/team 问个问题\n/mode team\n再问一个\n/mode auto\n闲聊\n/help\n"
    )
    assert done.returncode == 0, done.stderr
    assert [role_of(body) for body in requests] == ["planner", "worker", "reviewer"] * 2 + ["other"]
    assert done.stdout.count("✅ 团队任务完成（1/1 个步骤完成）") == 2
    assert "已切换到 team" in done.stdout and "普通回答" in done.stdout
    assert "/team [<任务>]" in done.stdout and "还不能用" not in done.stdout + done.stderr


def test_ctrl_c_cancels_both_running_workers_and_the_run_can_be_continued(tmp_path: Path) -> None:
    hang = threading.Event()
    hang.set()

    def respond(body: dict[str, Any]) -> Reply | str | None:
        role, step = role_of(body), step_of(body)
        if role == "planner":
            return team_plan(("s1", "查甲", []), ("s2", "查乙", []))
        if role == "reviewer":
            return APPROVE
        if role == "worker" and hang.is_set():
            return Reply.hang(before_headers=True)
        return f"{step} 完成" if step else None

    server = FakeOpenAIServer(responder=respond)
    server.start()
    try:
        env = paicli_env(tmp_path, server.base_url)
        proc = start_paicli(["-p", "查甲乙", "--team"], env, tmp_path)
        try:
            assert server.wait_for_hang(timeout=WAIT) and server.wait_for_hang(timeout=WAIT), (
                "workers never started"
            )
            proc.send_signal(signal.SIGINT)
            _out, err = proc.communicate(timeout=WAIT)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 130, err
        entries = ledger_entries(tmp_path)
        assert any(e["event"] == "run_cancelled" and e["actor"] == "orchestrator" for e in entries)
        assert not any(e["event"] == "task_state" and e["metadata"]["status"] == "done" for e in entries)
        hang.clear()
        server.release()
        before = len(server.requests)
        done = run_paicli(["-p", "", "--team", "-c"], env, tmp_path)
        later = server.requests[before:]
        server.assert_no_violations()
    finally:
        server.stop()

    assert done.returncode == 0, done.stderr
    assert sorted((role_of(body), step_of(body)) for body in later) == [
        ("reviewer", "s1"),
        ("reviewer", "s2"),
        ("worker", "s1"),
        ("worker", "s2"),
    ]
    assert "✅ 团队任务完成（2/2 个步骤完成）" in done.stdout
