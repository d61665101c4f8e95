"""A finished Plan or Team run as a turn of the main conversation: the pure summary (agent/plan/turn.py), the
file-write log (agent/plan/writes.py), and the pair the ReAct conversation gets (ReactAgent.record_run)."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.agent.events import RunFinished
from paicli.agent.plan.model import NodeState, Plan, PlanProgress, PlanTask, TaskType
from paicli.agent.plan.turn import ANSWER_TOKENS, RunStart, compact_answer, full_result, run_turn
from paicli.agent.plan.writes import WriteLog, written_path
from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.context.estimate import estimate_tokens
from paicli.llm.messages import ToolCall
from paicli.session.resume import rebuild_view
from paicli.testing.scripted_llm import ScriptedLLM
from paicli.tools.base import ToolResult
from tests.agent.fake_tools import FakeToolRunner, StaticPrompt
from tests.session.helpers import new_ledger, valid_protocol

PLAN = Plan(
    "把配置改成 YAML",
    (
        PlanTask("t1", "读取旧配置", TaskType.FILE_READ),
        PlanTask("t2", "写出新配置", TaskType.FILE_WRITE, ("t1",)),
        PlanTask("t3", "运行检查", TaskType.COMMAND, ("t2",)),
    ),
)


def progress(**states: NodeState) -> PlanProgress:
    return PlanProgress(PLAN, dict(states))


def test_the_summary_names_each_task_its_result_and_the_files_it_wrote() -> None:
    reached = progress(
        t1=NodeState("done", "旧配置有 12 项"),
        t2=NodeState("done", "已写出 config.yaml", files=("config.yaml", "docs/config.md")),
        t3=NodeState("failed", "检查脚本退出码 2"),
    )
    answer = compact_answer("plan", reached, RunFinished("partial", "⚠️ 计划部分完成"))
    lines = answer.splitlines()
    assert lines[0] == "[计划执行记录] 结果：部分完成（2/3 个任务完成）"
    assert "- [t1] ✅ 完成：读取旧配置" in lines and "  结果：旧配置有 12 项" in lines
    assert "  写入的文件：config.yaml、docs/config.md" in lines
    assert "- [t3] ❌ 失败：运行检查" in lines and "  结果：检查脚本退出码 2" in lines
    assert "本次写入的文件：config.yaml、docs/config.md" in lines
    assert any(line.startswith("结论：只有一部分完成") for line in lines)


def test_a_team_run_cancelled_midway_says_so_and_what_was_not_run() -> None:
    reached = progress(t1=NodeState("done", "读完了"), t2=NodeState("running"))
    answer = compact_answer("team", reached, RunFinished("cancelled", "⏹️ 已取消"))
    assert answer.startswith("[团队任务执行记录] 结果：已取消（1/3 个步骤完成）")
    assert "- [t2] ⏸️ 未完成：写出新配置" in answer and "- [t3] ⏳ 未执行：运行检查" in answer
    assert "本次没有写入文件。" in answer and "用户中途取消了执行" in answer


def test_a_run_that_never_got_a_plan_gives_the_reason() -> None:
    failed = RunFinished("error", "", "规划失败：规划者未能生成有效计划")
    answer = compact_answer("plan", None, failed)
    assert answer.startswith("[计划执行记录] 结果：失败（没有形成可执行的任务）")
    assert "执行没有成功：规划失败：规划者未能生成有效计划" in answer


def test_a_huge_run_stays_within_the_budget_and_still_ends_with_its_outcome() -> None:
    tasks = tuple(PlanTask(f"t{n}", f"处理第 {n} 个模块" * 3, TaskType.FILE_WRITE) for n in range(300))
    big = PlanProgress(
        Plan("全部重写", tasks),
        {t.id: NodeState("done", "很长的结果。" * 2000, files=(f"src/m{t.id}.py",)) for t in tasks},
    )
    answer = compact_answer("plan", big, RunFinished("done", "✅"))
    assert estimate_tokens(answer) <= ANSWER_TOKENS
    assert answer.startswith("[计划执行记录] 结果：已完成（300/300 个任务完成）")
    assert "个任务没有列出" in answer and "结论：全部完成。" in answer
    small = compact_answer("plan", big, RunFinished("done", "✅"), budget=400)
    assert estimate_tokens(small) <= 400


def test_the_full_result_keeps_every_task_whole() -> None:
    long_result = "第一行\n" + "细节" * 3000
    reached = progress(t1=NodeState("done", long_result), t2=NodeState("done", "写好了", files=("a.yaml",)))
    full = full_result("plan", reached, RunFinished("done", "✅ 计划执行完成！"))
    assert long_result in full and "写入的文件：a.yaml" in full and full.endswith("✅ 计划执行完成！")
    turn = run_turn("plan", RunStart("p1", "目标全文", "目标"), reached, RunFinished("done", "✅"))
    assert (turn.goal, turn.submitted, turn.run_id, turn.status) == ("目标全文", "目标", "p1", "done")
    assert estimate_tokens(turn.answer) <= ANSWER_TOKENS < estimate_tokens(turn.full)


def call(name: str, path: str, call_id: str = "c1") -> ToolCall:
    return ToolCall(call_id, name, json.dumps({"path": path, "content": "x"}))


def test_only_writes_that_ran_and_succeeded_count_as_files_written() -> None:
    ok = ToolResult("c1", "write_file", "ok")
    assert written_path(call("write_file", "a.txt"), ok) == "a.txt"
    assert written_path(call("edit_file", "b.txt"), ok) == "b.txt"
    assert written_path(call("read_file", "c.txt"), ok) is None
    assert written_path(call("write_file", "d.txt"), ToolResult("c1", "write_file", "no", False)) is None
    denied = ToolResult("c1", "write_file", "🚫", False, blocked=True)
    assert written_path(call("write_file", "e.txt"), denied) is None
    assert written_path(ToolCall("c1", "write_file", "not json"), ok) is None

    runner = FakeToolRunner({"write_file": lambda c, _: "已写入", "edit_file": lambda c, _: "❌ 没找到"})
    log = WriteLog(runner.for_turn("改文件"))
    calls = [
        call("write_file", "x.py", "c1"),
        call("edit_file", "y.py", "c2"),
        call("write_file", "x.py", "c3"),
    ]
    results = log.execute(calls, CancelToken(), lambda _event: None)
    assert [r.success for r in results] == [True, False, True]
    assert log.files() == ("x.py",)
    assert log.verified_urls() == []  # the real turn's extras still answer


def test_a_recorded_run_is_one_plain_pair_in_the_conversation_and_the_ledger_fold_gives_it_back(
    tmp_path: Path,
) -> None:
    ledger = new_ledger(tmp_path / "home", tmp_path)
    agent = ReactAgent(ScriptedLLM(), FakeToolRunner(), StaticPrompt(), ledger=ledger)
    turn = run_turn(
        "team",
        RunStart("r9", "把 README 翻译成英文", "/team 把 README 翻译成英文"),
        progress(t1=NodeState("done", "译好了", files=("README.en.md",))),
        RunFinished("partial", "部分完成"),
    )
    agent.record_run(turn)
    history = agent.history
    assert [m.role for m in history] == ["system", "user", "assistant"]
    assert history[1].content == "把 README 翻译成英文" and history[2].content == turn.answer
    assert not history[2].tool_calls and "README.en.md" in (history[2].content or "")
    assert valid_protocol(history)
    entries = ledger.read_all()
    assert rebuild_view(entries).messages == history[1:]  # a resume folds back the same view
    recorded = [(e.source, dict(e.metadata)) for e in entries if e.event in ("user", "assistant")]
    assert recorded == [
        (
            "orchestrated_input",
            {"runMode": "team", "planId": "r9", "submittedInput": "/team 把 README 翻译成英文"},
        ),
        ("orchestrated_result", {"runMode": "team", "planId": "r9", "status": "partial"}),
    ]
