"""Typed verdicts and outcomes (issue 41 item 3): one decision returns Allow / Ask / Deny with its reason; every
tool result carries how the call ended, set where that was decided; the runaway guard, the audit log and the
resume replay read the outcome, never the result's first words."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.cancel import CancelToken
from paicli.cli.replay import call_outcome
from paicli.tools.approval import ApprovalState
from paicli.tools.call_result import audit_outcome
from paicli.tools.guards import PathGuard
from paicli.tools.policy import TurnToolPolicy
from paicli.tools.registry import builtin_specs
from paicli.tools.verdict import Allow, Ask, Deny, decide

from .helpers import RecordingApprover, calls, make_runner, run_one


def spec(name: str):  # type: ignore[no-untyped-def]
    return next(found for found in builtin_specs() if found.name == name)


def test_one_decision_returns_a_typed_verdict_with_its_reason(project: Path) -> None:
    (project / "a.txt").write_text("x", encoding="utf-8")
    paths = PathGuard(project)

    def verdict(name: str, args: dict[str, object], state: ApprovalState | None = None, text: str = ""):  # type: ignore[no-untyped-def]
        runner = make_runner(project)
        policy = TurnToolPolicy(text, runner.tracker)
        return decide(spec(name), dict(args), policy, paths, state or ApprovalState(), project)

    assert verdict("read_file", {"path": "a.txt"}) == Allow("a.txt", unasked=False)
    assert isinstance(verdict("read_file", {"path": "../outside.txt"}), Deny)
    assert isinstance(verdict("execute_command", {"command": "rm -rf /"}), Deny)
    assert verdict("execute_command", {"command": "ls"}) == Allow(None, unasked=True)  # auto: read-only
    asked = verdict("write_file", {"path": "a.txt", "content": "y"}, ApprovalState("ask"))
    assert isinstance(asked, Ask) and "ask 模式" in asked.reason and asked.relative_path == "a.txt"
    assert verdict("write_file", {"path": "a.txt", "content": "y"}) == Allow("a.txt", unasked=False)
    protected = verdict("write_file", {"path": ".env", "content": "K=v"})
    assert isinstance(protected, Ask) and ".env" in protected.reason
    memory = verdict("save_memory", {"fact": "用户喜欢简洁"})
    assert isinstance(memory, Ask) and "模型自己决定保存" in memory.reason  # the user asked for nothing
    assert verdict("save_memory", {"fact": "用户喜欢简洁"}, ApprovalState(yes=True)) == Allow(None, False)


def test_every_result_says_how_the_call_ended(project: Path) -> None:
    (project / "a.txt").write_text("x", encoding="utf-8")
    denying = make_runner(project, RecordingApprover("deny"), approval=ApprovalState("ask"))
    runner = make_runner(project)
    cases = {
        "ok": run_one(runner, "read_file", json.dumps({"path": "a.txt"}))[0],
        "failed": run_one(runner, "read_file", json.dumps({"path": "missing.txt"}))[0],
        "refused": run_one(runner, "read_file", json.dumps({"path": "../x"}))[0],
        "denied": run_one(denying, "write_file", json.dumps({"path": "b.txt", "content": "y"}))[0],
    }
    assert {outcome: result.outcome for outcome, result in cases.items()} == {o: o for o in cases}
    cancel = CancelToken()
    cancel.cancel()
    [cancelled] = runner.for_turn("").execute(
        calls(("read_file", json.dumps({"path": "a.txt"}))), cancel, lambda _e: None
    )
    assert cancelled.outcome == "cancelled" and cancelled.blocked
    assert [audit_outcome(o) for o in ("ok", "failed", "refused", "denied", "cancelled", "timed_out")] == [
        "executed",
        "executed",
        "blocked",
        "denied",
        "cancelled",
        "executed",
    ]


def test_the_replay_trusts_the_recorded_outcome_over_the_text() -> None:
    assert call_outcome("用户没有同意，换句话说也一样", "denied") == "🚫 已拒绝，未执行"
    assert call_outcome("[HITL] 看起来像拒绝，其实运行了", "ok") is None
    assert call_outcome("输出\n退出码: 2", "failed") == "❌ 失败（退出码 2）"
    assert call_outcome("⏱️ 命令执行超时（60 秒）", "timed_out") == "⏱️ 命令执行超时（60 秒）"
    assert call_outcome("[HITL] 用户没有批准这次操作") == "🚫 已拒绝，未执行"  # a ledger from before outcomes
