"""One ToolSpec per tool: approval by construction, MCP specs from annotations, and no name lists in policies."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from paicli.mcp.convert import remote_tools
from paicli.snapshots.revert_spec import REVERT_TURN
from paicli.tools.approval import ApprovalState, approval_summary
from paicli.tools.checkpoint import may_change_files
from paicli.tools.context import ToolContext
from paicli.tools.grants import Grant, covered
from paicli.tools.policy import TurnToolPolicy
from paicli.tools.registry import EXECUTE_COMMAND, SAVE_MEMORY, Tool, builtin_specs
from paicli.tools.runner import ToolRunner
from paicli.tools.schema import Args, Param, ToolOutput, ToolSpec
from paicli.tools.skill_load import LOAD_SKILL
from tests.sources import parsed, product_sources

from .helpers import RecordingApprover, make_runner, run, unwrap

SRC = Path(__file__).resolve().parents[2] / "src" / "paicli"
PARAM = (Param("tag", "string", "", required=True),)


class Recorder:
    def __init__(self) -> None:
        self.ran: list[str] = []

    def __call__(self, args: Args, ctx: ToolContext) -> ToolOutput:
        self.ran.append(str(args["tag"]))
        return ToolOutput(f"ran {args['tag']}")


def _runner(project: Path, approver: RecordingApprover, mode: str, hitl: bool) -> tuple[ToolRunner, Recorder]:
    state = ApprovalState(mode, hitl=hitl)  # type: ignore[arg-type]
    runner = make_runner(project, approver, approval=state)
    recorder = Recorder()
    # a new tool that writes something and says nothing about itself: no read-only, no auto-approve
    runner.register(Tool(ToolSpec("stamp_build", "给构建打标记", PARAM), recorder))
    runner.register(Tool(ToolSpec("peek_build", "查看构建", PARAM, read_only=True), recorder))
    return runner, recorder


@pytest.mark.parametrize(("mode", "hitl"), [("auto", True), ("ask", False), ("auto", False), ("plan", False)])
def test_a_tool_that_does_not_declare_itself_read_only_asks_first(
    project: Path, mode: str, hitl: bool
) -> None:
    approver = RecordingApprover("deny")
    runner, recorder = _runner(project, approver, mode, hitl)
    [refused] = run(runner, ("stamp_build", json.dumps({"tag": "v1"})))
    assert refused.blocked and unwrap(refused).startswith("[HITL]")
    assert [request.tool for request in approver.requests] == ["stamp_build"]
    assert recorder.ran == []  # refused means never executed
    approving = RecordingApprover("approve")
    runner, recorder = _runner(project, approving, mode, hitl)
    [done] = run(runner, ("stamp_build", json.dumps({"tag": "v2"})))
    assert unwrap(done) == "ran v2" and len(approving.requests) == 1 and recorder.ran == ["v2"]
    run(runner, ("peek_build", json.dumps({"tag": "v3"})))
    audited = [(record.get("tool"), record.get("outcome")) for record in runner.audit.recent(10)]
    assert ("stamp_build", "executed") in audited and "peek_build" not in {tool for tool, _ in audited}


@pytest.mark.parametrize(("mode", "hitl"), [("auto", True), ("ask", False), ("auto", False)])
def test_a_read_only_tool_never_asks(project: Path, mode: str, hitl: bool) -> None:
    approver = RecordingApprover("deny")
    runner, recorder = _runner(project, approver, mode, hitl)
    [done] = run(runner, ("peek_build", json.dumps({"tag": "v1"})))
    assert unwrap(done) == "ran v1" and approver.requests == [] and recorder.ran == ["v1"]


def test_an_undeclared_tool_takes_the_worst_case_everywhere(project: Path) -> None:
    bare = ToolSpec("stamp_build", "给构建打标记")
    assert not bare.read_only and not bare.runs_in_parallel and may_change_files(bare)
    assert ApprovalState("auto").grant_scope(bare, {}) is None  # no "always" for what paicli cannot scope
    runner, _ = _runner(project, RecordingApprover(), "auto", False)
    assert "stamp_build" in runner.policy_report() and "peek_build" not in runner.policy_report()


def test_save_memory_writes_and_so_asks_under_hitl_and_in_ask_mode(project: Path) -> None:
    saved: list[tuple[str, str, str | None, bool]] = []
    for mode, hitl in (("auto", True), ("ask", False)):
        approver = RecordingApprover("deny")
        state = ApprovalState(mode, hitl=hitl)  # type: ignore[arg-type]
        runner = make_runner(project, approver, approval=state, saved=saved)
        [result] = run(runner, ("save_memory", '{"fact":"用户偏好中文"}'), text="记住：我偏好中文")
        assert result.blocked and [r.summary for r in approver.requests] == ["写入长期记忆: 用户偏好中文"]
    assert saved == []
    approver = RecordingApprover("deny")
    runner = make_runner(project, approver, approval=ApprovalState("auto"), saved=saved)
    [result] = run(runner, ("save_memory", '{"fact":"用户偏好中文"}'), text="记住：我偏好中文")
    assert not result.blocked and approver.requests == [] and len(saved) == 1  # auto: the user asked


def _mcp(**hints: bool) -> ToolSpec:
    listed = {"name": "lookup", "inputSchema": {"type": "object"}, **hints}
    [tool], problems = remote_tools("docs", [listed])
    assert problems == []
    return tool.spec()


def test_mcp_hints_never_lower_friction() -> None:
    claims_read_only = _mcp(readOnlyHint=True, openWorldHint=False, destructiveHint=False)
    assert claims_read_only.mcp_hints is not None and claims_read_only.mcp_hints.read_only is True
    assert not claims_read_only.read_only and not claims_read_only.runs_in_parallel
    assert (
        claims_read_only.external and claims_read_only.origin == "mcp" and claims_read_only.server == "docs"
    )
    for spec in (claims_read_only, _mcp()):
        need = ApprovalState("auto").needs_approval(spec, {"q": "x"})
        assert need is not None and "MCP" in need.reason
        assert ApprovalState("auto", yes=True).needs_approval(spec, {}) is None


def test_a_destructive_mcp_tool_is_never_granted_always() -> None:
    plain, destructive = _mcp(), _mcp(destructiveHint=True)
    state = ApprovalState("auto")
    assert state.grant(plain, {}) == Grant("tool", ("mcp__docs__lookup",))
    assert state.needs_approval(plain, {}) is None  # "always" for this MCP tool
    assert state.grant_scope(destructive, {}) is None
    assert not covered(state.grants, destructive, {})
    need = state.needs_approval(destructive, {})
    assert need is not None and "破坏性" in need.reason


def test_an_open_world_mcp_tool_is_refused_when_the_turn_stays_offline(project: Path) -> None:
    runner = make_runner(project)
    offline = TurnToolPolicy("不要联网，直接回答", runner.tracker)
    assert offline.denial(_mcp(openWorldHint=True), {}) is not None
    assert offline.denial(_mcp(), {}) is None  # unannotated MCP tools ran offline before; they still do


def test_summaries_come_from_the_spec() -> None:
    assert approval_summary(EXECUTE_COMMAND, {"command": "ls"}) == "执行命令: ls"
    assert approval_summary(REVERT_TURN, {}) == "撤回改动: 把项目文件恢复到第 1 近的快照"
    assert approval_summary(SAVE_MEMORY, {"fact": "x"}) == "写入长期记忆: x"
    assert approval_summary(ToolSpec("stamp_build", "d"), {}) == "调用工具 stamp_build"
    assert approval_summary(_mcp(), {"q": 1}) == '调用 MCP 工具 mcp__docs__lookup: {"q": 1}'


# Where a tool name may still be written: the table itself, each tool's own module, and two places that only
# shape text (terminal summaries; the offloader's file labels and read_file's read-back), not what is allowed.
_NAMES_ALLOWED_IN = {
    "tools/registry.py",
    "snapshots/revert_spec.py",  # revert_turn's own spec
    "tools/skill_load.py",
    "tools/files.py",
    "tools/shell.py",
    "tools/web_search.py",  # the search provider's own tool of that name
    "mcp/naming.py",  # builds `mcp__<server>__<tool>`
    "tools/browser_specs.py",  # the browser tools' own specs
    "browser/tools.py",  # their handlers, whose texts name them
    "cli/summaries.py",
    "context/offload.py",
}


def _tool_name_literals(path: Path, names: set[str]) -> list[str]:
    tree = parsed(path)
    texts = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    return [text for text in texts if text in names or text.startswith(("mcp__", "browser_"))]


def test_no_policy_keeps_a_list_of_tool_names() -> None:
    names = {spec.name for spec in (*builtin_specs(), REVERT_TURN, LOAD_SKILL)}
    found = {
        str(path.relative_to(SRC)): _tool_name_literals(path, names)
        for path in sorted(product_sources(SRC))
        if str(path.relative_to(SRC)) not in _NAMES_ALLOWED_IN
    }
    assert {module: hits for module, hits in found.items() if hits} == {}
    for policy in (
        "tools/approval.py",
        "tools/grants.py",
        "tools/runner.py",
        "tools/policy.py",
        "memory/guard.py",
    ):
        assert policy in found  # the scan really read the policy modules
