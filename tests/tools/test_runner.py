"""ToolRunner: batching, ordering, events, approvals, cancellation, offload and failure containment."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from paicli.agent.events import AgentEvent, ToolFinished, ToolStarted
from paicli.cancel import CancelToken
from paicli.config.tool_values import ToolValues
from paicli.tools.approval import ApprovalState, AutoApprover, DenyingApprover, policy_report
from paicli.tools.base import ApprovalRequest
from paicli.tools.context import ToolContext
from paicli.tools.registry import Tool
from paicli.tools.runner import ToolRunner
from paicli.tools.schema import Args, Param, ToolOutput, ToolSpec

from .helpers import FakeOffloader, RecordingApprover, calls, env, make_runner, run, unwrap


class Probe:
    """Custom tools that record which thread ran them and how many ran at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.peak = 0
        self.order: list[str] = []
        self.threads: dict[str, int] = {}
        self.release = threading.Event()

    def handler(self, args: Args, ctx: ToolContext) -> ToolOutput:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.order.append(args["tag"])
            self.threads[args["tag"]] = threading.get_ident()
            if self.active == 4:
                self.release.set()  # the most the runner allows at once are all inside: let them finish
        self.release.wait(timeout=60)
        with self.lock:
            self.active -= 1
        return ToolOutput(f"done {args['tag']}")

    def register(self, runner: ToolRunner) -> None:
        param = (Param("tag", "string", "tag", required=True),)
        runner.register(Tool(ToolSpec("probe_read", "r", param, read_only=True), self.handler))
        runner.register(Tool(ToolSpec("probe_write", "w", param), self.handler))


def tag(name: str, value: str) -> tuple[str, str]:
    return (name, json.dumps({"tag": value}))


def test_read_only_calls_run_concurrently_at_most_four(project: Path) -> None:
    runner = make_runner(project)
    probe = Probe()
    probe.register(runner)
    results = run(runner, *[tag("probe_read", str(i)) for i in range(6)])
    assert [unwrap(r) for r in results] == [f"done {i}" for i in range(6)]
    assert probe.peak == 4
    assert threading.get_ident() not in probe.threads.values()


def test_side_effecting_calls_run_in_order_on_the_callers_thread(project: Path) -> None:
    runner = make_runner(project)
    probe = Probe()
    probe.release.set()
    probe.register(runner)
    specs = [
        tag("probe_write", "w1"),
        tag("probe_read", "r1"),
        tag("probe_read", "r2"),
        tag("probe_write", "w2"),
    ]
    results = run(runner, *specs)
    assert [r.call_id for r in results] == ["call-1", "call-2", "call-3", "call-4"]
    assert probe.order[0] == "w1" and probe.order[-1] == "w2" and set(probe.order[1:3]) == {"r1", "r2"}
    assert probe.threads["w1"] == probe.threads["w2"] == threading.get_ident()


def test_events_wrap_every_call_in_call_order(project: Path) -> None:
    events: list[AgentEvent] = []
    run(make_runner(project), ("list_dir", "{}"), ("list_dir", "{}"), ("nope", "{}"), events=events)
    kinds = [
        (type(e).__name__, e.call_id if isinstance(e, ToolStarted) else e.result.call_id)
        for e in events
        if isinstance(e, (ToolStarted, ToolFinished))
    ]
    assert kinds == [
        ("ToolStarted", "call-1"),
        ("ToolStarted", "call-2"),
        ("ToolFinished", "call-1"),
        ("ToolFinished", "call-2"),
        ("ToolStarted", "call-3"),
        ("ToolFinished", "call-3"),
    ]


def test_a_crashing_handler_becomes_a_failed_result(project: Path) -> None:
    runner = make_runner(project)

    def boom(args: Args, ctx: ToolContext) -> ToolOutput:
        raise RuntimeError("kaputt")

    runner.register(Tool(ToolSpec("boom", "b"), boom))
    [result] = run(runner, ("boom", "{}"))
    assert not result.success and unwrap(result) == "❌ 工具执行失败: RuntimeError: kaputt"


def test_emit_failures_do_not_lose_results(project: Path) -> None:
    def broken(_event: AgentEvent) -> None:
        raise ValueError("renderer down")

    results = make_runner(project).for_turn("").execute(calls(("list_dir", "{}")), CancelToken(), broken)
    assert len(results) == 1 and results[0].success


def test_cancelled_before_start_every_call_gets_a_cancel_result(project: Path) -> None:
    cancel = CancelToken()
    cancel.cancel()
    (project / "x.txt").write_text("keep", encoding="utf-8")
    results = run(
        make_runner(project),
        ("write_file", '{"path":"x.txt","content":"gone"}'),
        ("list_dir", "{}"),
        ("list_dir", "{}"),
        cancel=cancel,
    )
    assert len(results) == 3
    assert all(r.blocked and unwrap(r).startswith("用户取消了") for r in results)
    assert (project / "x.txt").read_text(encoding="utf-8") == "keep"


def test_other_tools_go_through_offload_if_oversized(project: Path) -> None:
    (project / "big.txt").write_text("z" * 100 + "\n", encoding="utf-8")
    offloader = FakeOffloader(threshold=50)
    [result] = run(make_runner(project, offloader=offloader), ("read_file", '{"path":"big.txt"}'))
    assert offloader.checked == [("read_file", '{"path":"big.txt"}')]
    assert unwrap(result).startswith("[offloaded read_file")


def test_auto_mode_edits_in_project_and_read_only_commands_run_unasked(project: Path) -> None:
    approver = RecordingApprover("deny")
    runner = make_runner(project, approver)
    results = run(
        runner,
        ("write_file", '{"path":"a.txt","content":"x"}'),
        ("edit_file", '{"path":"a.txt","old_text":"x","new_text":"y"}'),
        ("execute_command", '{"command":"ls -la > listing.txt && git status 2>/dev/null || true"}'),
        ("execute_command", '{"command":"cat a.txt | wc -c"}'),
    )
    assert [r.success for r in results[:2]] == [True, True]
    assert [q.tool for q in approver.requests] == ["execute_command"]
    assert results[2].blocked  # a redirection into a file is not read-only, so a human is asked and said no
    assert unwrap(results[2]).startswith("[HITL]")
    assert results[3].success


def test_auto_mode_asks_before_writing_git_or_paicli_config(project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (project / "gitdir").symlink_to(project / ".git")
    approver = RecordingApprover("deny")
    runner = make_runner(project, approver)
    results = run(
        runner,
        (
            "edit_file",
            '{"path":".git/config","old_text":"[core]","new_text":"[core]\\nfsmonitor = touch pwned"}',
        ),
        ("write_file", '{"path":"gitdir/hooks/pre-commit","content":"touch pwned"}'),
        ("write_file", '{"path":"./.paicli/prompts/base.md","content":"obey the file"}'),
        ("write_file", '{"path":"src/.gitkeep","content":""}'),
    )
    assert [q.tool for q in approver.requests] == ["edit_file", "write_file", "write_file"]
    assert all(r.blocked and unwrap(r).startswith("[HITL]") for r in results[:3])
    assert (project / ".git" / "config").read_text(encoding="utf-8") == "[core]\n"
    assert not (project / ".git" / "hooks").exists() and not (project / ".paicli").exists()
    assert results[3].success


def test_protected_path_rule() -> None:
    from paicli.tools.protected import is_protected_path

    assert is_protected_path(".git/config") and is_protected_path(".GIT/hooks/pre-commit")
    assert is_protected_path(".paicli/prompts/base.md") and is_protected_path(".git")
    assert not is_protected_path("src/.git_helpers.py") and not is_protected_path(".github/workflows/ci.yml")
    assert not is_protected_path(None) and not is_protected_path("")


def test_ask_mode_and_hitl_on_ask_for_every_dangerous_call(project: Path) -> None:
    for index, state in enumerate((ApprovalState(mode="ask"), ApprovalState(hitl=True))):
        approver = RecordingApprover("approve")
        runner = make_runner(project, approver, approval=state)
        results = run(
            runner,
            ("write_file", json.dumps({"path": "b.txt", "content": f"x{index}\n"})),
            ("execute_command", '{"command":"ls"}'),
            ("read_file", '{"path":"b.txt"}'),
        )
        assert all(r.success for r in results)
        assert [q.tool for q in approver.requests] == ["write_file", "execute_command"]
        assert approver.requests[1].preview == "ls" and approver.requests[1].summary == "执行命令: ls"
        assert f"+x{index}" in (approver.requests[0].preview or "")


def test_edit_approval_shows_the_planned_diff_without_writing(project: Path) -> None:
    (project / "c.py").write_text("a = 1\nb = 2\n", encoding="utf-8")
    approver = RecordingApprover("deny")
    runner = make_runner(project, approver, approval=ApprovalState(mode="ask"))
    args = json.dumps({"path": "c.py", "old_text": "b = 2", "new_text": "b = 3"})
    [result] = run(runner, ("edit_file", args))
    assert result.blocked
    preview = approver.requests[0].preview or ""
    assert "--- a/c.py" in preview and "-b = 2" in preview and "+b = 3" in preview
    assert (project / "c.py").read_text(encoding="utf-8") == "a = 1\nb = 2\n"


def test_an_edit_that_cannot_apply_fails_at_once_without_asking(project: Path) -> None:
    (project / "c.py").write_text("a = 1\nb = 2\nb = 2\n", encoding="utf-8")
    approver = RecordingApprover("approve")
    runner = make_runner(project, approver, approval=ApprovalState(mode="ask"))
    absent = json.dumps({"path": "c.py", "old_text": "c = 9", "new_text": "c = 3"})
    twice = json.dumps({"path": "c.py", "old_text": "b = 2", "new_text": "b = 3"})
    missing = json.dumps({"path": "nope.py", "old_text": "x", "new_text": "y"})
    into_dir = json.dumps({"path": ".", "content": "x"})
    results = run(runner, ("edit_file", absent), ("edit_file", twice), ("edit_file", missing))
    [directory] = run(runner, ("write_file", into_dir))
    assert approver.requests == []  # nobody was asked to approve what could not apply
    assert [r.outcome for r in [*results, directory]] == ["failed"] * 4
    assert "在 c.py 中找不到 old_text" in unwrap(results[0])
    assert "old_text 在文件中出现了 2 次" in unwrap(results[1])
    assert "文件不存在: nope.py" in unwrap(results[2])
    assert "是目录，不能写入" in unwrap(directory)
    assert (project / "c.py").read_text(encoding="utf-8") == "a = 1\nb = 2\nb = 2\n"
    fine = json.dumps({"path": "c.py", "old_text": "a = 1", "new_text": "a = 5"})
    [applied] = run(runner, ("edit_file", fine))
    assert len(approver.requests) == 1 and "+a = 5" in (approver.requests[0].preview or "")
    assert applied.success and (project / "c.py").read_text(encoding="utf-8").startswith("a = 5\n")


def test_approve_all_covers_the_rest_of_the_session_until_clear(project: Path) -> None:
    approver = RecordingApprover("approve_all")
    state = ApprovalState(mode="ask")
    runner = make_runner(project, approver, approval=state)
    run(runner, ("execute_command", '{"command":"true"}'), ("execute_command", '{"command":"true"}'))
    run(runner, ("execute_command", '{"command":"true"}'))
    assert len(approver.requests) == 1
    runner.reset_session()
    run(runner, ("execute_command", '{"command":"true"}'))
    assert len(approver.requests) == 2


def test_yes_approves_everything_without_asking(project: Path) -> None:
    approver = RecordingApprover("deny")
    runner = make_runner(project, approver, approval=ApprovalState(mode="ask", yes=True))
    [result] = run(runner, ("execute_command", '{"command":"touch made.txt"}'))
    assert result.success and approver.requests == [] and (project / "made.txt").exists()


def test_no_human_refuses_with_a_hitl_result_and_mentions_yes(project: Path) -> None:
    runner = make_runner(project, DenyingApprover())
    results = run(runner, ("execute_command", '{"command":"touch made.txt"}'), ("list_dir", "{}"))
    text = unwrap(results[0])
    assert results[0].blocked and text.startswith("[HITL]") and "--yes" in text
    assert not (project / "made.txt").exists()
    assert results[1].success  # the run goes on


def test_guards_refuse_before_asking(project: Path) -> None:
    approver = RecordingApprover("approve")
    [result] = run(make_runner(project, approver), ("execute_command", '{"command":"sudo rm -rf build"}'))
    assert result.blocked and unwrap(result).startswith("🛡️ 策略拒绝")
    assert approver.requests == []


def test_mode_hitl_texts_and_policy_report(project: Path) -> None:
    state = ApprovalState()
    assert "auto" in state.set_mode("")
    assert "ask" in state.set_mode("ask") and state.mode == "ask"
    assert "未知模式" in state.set_mode("turbo") and state.mode == "ask"
    assert "开启" in state.set_hitl("on") and state.hitl and state.label() == "ask · hitl"
    assert state.set_hitl("default") and not state.hitl
    assert "用法" in state.set_hitl("off") and not state.hitl
    report = policy_report(project, state)
    assert report.startswith("🛡️ 当前的安全策略：")
    for fragment in (
        str(project),
        "write_file",
        "单个文件最大写入: 5MB",
        "命令执行上限: 60 秒",
        "sudo",
        "审计目录",
    ):
        assert fragment in report
    runner = make_runner(project, values={"PAICLI_COMMAND_TIMEOUT_SECONDS": "5"})
    own = runner.policy_report()
    assert "命令执行上限: 5 秒，输出 8KB（截断）" in own and str(runner.audit.directory) in own


def test_runner_defaults_are_real_and_safe(project: Path) -> None:
    runner = ToolRunner(project, values=ToolValues.parse(env()))
    assert runner.approval.mode == "auto"
    [result] = run(runner, ("execute_command", '{"command":"touch x"}'))
    assert result.blocked  # the default approver is the no-human one
    assert "save_memory" not in {d["function"]["name"] for d in runner.definitions()}
    request = ApprovalRequest("execute_command", {"command": "x"}, "执行命令: x", "test")
    assert AutoApprover().approve(request) == "approve"
    assert DenyingApprover().approve(request) == "deny"


# ---- issue 17: a lone read-only call that ignores its cancel token still returns promptly ---------------


def _stuck_tool(release: threading.Event, started: threading.Event) -> Tool:
    from paicli.tools.schema import ToolOutput, ToolSpec

    def stuck(args: object, ctx: object) -> ToolOutput:
        started.set()
        release.wait(120)  # blocked in I/O that never looks at the cancel token
        return ToolOutput("late")

    return Tool(ToolSpec("stuck_read", "s", read_only=True), stuck)


def test_a_lone_stuck_read_only_call_is_cancelled_without_waiting_for_it(project: Path) -> None:
    release, started = threading.Event(), threading.Event()
    runner = make_runner(project)
    runner.register(_stuck_tool(release, started))
    cancel = CancelToken()
    threading.Thread(target=lambda: started.wait(30) and cancel.cancel(), daemon=True).start()
    try:
        [result] = run(runner, ("stuck_read", "{}"), cancel=cancel)
    finally:
        release.set()
    assert result.blocked and "用户取消了" in result.content


def test_a_lone_stuck_read_only_call_meets_the_batch_timeout(project: Path) -> None:
    release, started = threading.Event(), threading.Event()
    runner = make_runner(project, batch_timeout=0.5)
    runner.register(_stuck_tool(release, started))
    try:
        [result] = run(runner, ("stuck_read", "{}"))
    finally:
        release.set()
    assert result.timed_out and "工具执行超时" in result.content
