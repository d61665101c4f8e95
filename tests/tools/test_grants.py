"""Session grants ("a" at an approval) are scoped: a command prefix, never destructive commands, edits not shell."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.tools.approval import ApprovalState, policy_report
from paicli.tools.base import ApprovalReply, ApprovalRequest
from paicli.tools.grants import Grant, command_grant, covered, grant_for, is_destructive
from paicli.tools.registry import EDIT_FILE, EXECUTE_COMMAND, WRITE_FILE
from tests.tools.helpers import RecordingApprover, make_runner, run, unwrap


def cmd(command: str) -> dict[str, str]:
    return {"command": command}


def test_a_shell_grant_covers_program_and_subcommand_only() -> None:
    grant = command_grant("npm test")
    assert grant == Grant("command", ("npm", "test"))
    assert covered([grant], EXECUTE_COMMAND, cmd("npm test -- --watch=false"))
    assert not covered([grant], EXECUTE_COMMAND, cmd("npm install left-pad"))  # another subcommand
    assert not covered([grant], EXECUTE_COMMAND, cmd("pip install x"))  # another program
    assert not covered([grant], WRITE_FILE, {"path": "a.py"})  # a shell grant is not a file grant


def test_a_grant_never_covers_a_destructive_variant() -> None:
    touch = command_grant("touch x")
    assert touch is not None
    assert not covered([touch], EXECUTE_COMMAND, cmd("rm -rf tests"))
    assert not covered([touch], EXECUTE_COMMAND, cmd("touch x && rm -rf tests"))
    assert not covered([touch], EXECUTE_COMMAND, cmd("touch x; $(rm -rf tests)"))
    push = command_grant("git push origin main")
    assert push == Grant("command", ("git", "push"))
    assert covered([push], EXECUTE_COMMAND, cmd("git push origin dev"))
    assert not covered([push], EXECUTE_COMMAND, cmd("git push --force origin main"))


def test_destructive_and_compound_commands_cannot_be_granted() -> None:
    for command in (
        "rm -rf build",
        "git reset --hard HEAD~1",
        "git clean -fdx",
        "find . -delete",
        "echo x > out.txt",
        "sudo make",
        "npm test && npm publish",
    ):
        assert command_grant(command) is None, command
    assert is_destructive("rm -rf build") and not is_destructive("npm test")
    # read-only parts ride along with the one command that needs approval
    assert command_grant("cd web && npm test") == Grant("command", ("npm", "test"))
    assert covered([Grant("command", ("npm", "test"))], EXECUTE_COMMAND, cmd("cd web && npm test"))


def test_a_command_without_subcommand_is_granted_exactly() -> None:
    grant = command_grant("python -c 'print(1)'")
    assert grant is not None and grant.exact
    assert not covered([grant], EXECUTE_COMMAND, cmd("python -c 'import shutil'"))


def test_a_file_grant_covers_edits_not_shell() -> None:
    edits = grant_for(EDIT_FILE, {"path": "a.py"})
    assert edits == Grant("edits")
    assert covered([edits], WRITE_FILE, {"path": "b.py"})
    assert not covered([edits], EXECUTE_COMMAND, cmd("touch x"))
    assert "不含 shell 命令" in edits.label()


def test_approve_all_in_the_runner_grants_the_prefix_only(tmp_path: Path) -> None:
    approver = RecordingApprover("approve_all")
    state = ApprovalState(mode="ask")
    runner = make_runner(tmp_path, approver, approval=state)
    run(runner, ("execute_command", '{"command":"touch a.txt"}'))
    run(runner, ("execute_command", '{"command":"touch b.txt c.txt"}'))
    assert len(approver.requests) == 1 and approver.requests[0].always == "以 `touch` 开头的命令"
    run(runner, ("execute_command", '{"command":"mkdir d"}'))
    run(runner, ("execute_command", json.dumps({"command": "rm -r d"})))
    assert [r.arguments["command"] for r in approver.requests[1:]] == ["mkdir d", "rm -r d"]
    assert approver.requests[2].always is None  # destructive: "always" is not offered


def test_policy_lists_grants_and_reset_forgets(tmp_path: Path) -> None:
    state = ApprovalState(mode="ask")
    state.grant(EXECUTE_COMMAND, cmd("npm test"))
    state.grant(WRITE_FILE, {"path": "a.py"})
    report = policy_report(tmp_path, state, tmp_path / "audit")
    assert "以 `npm test` 开头的命令" in report and "项目内的文件写入和编辑" in report
    assert state.needs_approval(EXECUTE_COMMAND, cmd("npm test")) is None
    state.clear_grants()
    assert "本会话始终允许: 无" in policy_report(tmp_path, state, tmp_path / "audit")
    assert state.needs_approval(EXECUTE_COMMAND, cmd("npm test")) is not None


def test_a_refusal_with_words_goes_back_to_the_model(tmp_path: Path) -> None:
    class Saying:
        def approve(self, request: ApprovalRequest) -> ApprovalReply:
            return ApprovalReply("deny", "别建文件，先跑测试")

    runner = make_runner(tmp_path, Saying(), approval=ApprovalState(mode="ask"))
    [result] = run(runner, ("execute_command", '{"command":"touch a.txt"}'))
    text = unwrap(result)
    assert result.blocked and text.startswith("[HITL]") and "别建文件，先跑测试" in text
    assert not (tmp_path / "a.txt").exists()


def test_a_grant_label_keeps_the_quotes_the_command_was_written_with() -> None:
    grant = command_grant("""python3 -c "print('tests ok')\"""")
    assert grant is not None and grant.label() == """命令 `python3 -c "print('tests ok')"`"""
    spaced = command_grant("python -c 'print(1 + 1)'")
    assert spaced is not None and spaced.label() == "命令 `python -c 'print(1 + 1)'`"
    prefix = command_grant("npm test")
    assert prefix is not None and prefix.label() == "以 `npm test` 开头的命令"


def test_a_touch_grant_covers_touch_not_the_one_file() -> None:
    grant = command_grant("touch a.txt")
    assert grant == Grant("command", ("touch",))
    assert grant.label() == "以 `touch` 开头的命令"
    assert covered([grant], EXECUTE_COMMAND, cmd("touch b.txt"))
    assert covered([grant], EXECUTE_COMMAND, cmd("touch -c docs/c.md"))
    assert not covered([grant], EXECUTE_COMMAND, cmd("tee b.txt"))
    assert not covered([grant], EXECUTE_COMMAND, cmd("touch b.txt && rm -rf docs"))
