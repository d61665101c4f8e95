"""Issue 42, end to end: permissions.json rules reach the model's tool results through a real paicli run; an
untrusted folder's `.paicli/permissions.json` never applies, and a trusted one's allow never allows."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli


def _tool_texts(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]


def _run(
    tmp_path: Path, args: list[str], user: object = None, project: object = None
) -> tuple[list[str], str]:
    home, root = tmp_path / "home", tmp_path / "repo"
    (home / ".paicli").mkdir(parents=True)
    root.mkdir()
    if user is not None:
        (home / ".paicli" / "permissions.json").write_text(json.dumps(user), encoding="utf-8")
    if project is not None:
        (root / ".paicli").mkdir()
        (root / ".paicli" / "permissions.json").write_text(json.dumps(project), encoding="utf-8")
    call = ("execute_command", json.dumps({"command": "touch made.txt"}))
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(call), "好了")
        done = run_paicli([*args, "-p", "建个文件"], paicli_env(home, server.base_url), root)
        server.assert_no_violations()
        texts = _tool_texts(server.requests[1])
    assert done.returncode == 0, done.stderr
    return texts, done.stderr


def test_a_user_deny_rule_refuses_with_yes_and_names_the_rule(tmp_path: Path) -> None:
    texts, _ = _run(tmp_path, ["--yes"], user={"deny": ["execute_command(touch *)"]})
    assert "deny 规则 execute_command(touch *)" in texts[0]
    assert not (tmp_path / "repo" / "made.txt").exists()


def test_a_user_allow_rule_runs_without_yes(tmp_path: Path) -> None:
    texts, _ = _run(tmp_path, [], user={"allow": ["execute_command(touch *)"]})
    assert (tmp_path / "repo" / "made.txt").exists(), texts


def test_an_untrusted_project_file_is_ignored_and_said(tmp_path: Path) -> None:
    texts, stderr = _run(tmp_path, ["--yes"], project={"deny": ["execute_command"]})
    assert (tmp_path / "repo" / "made.txt").exists(), texts
    assert ".paicli/permissions.json" in stderr


def test_a_trusted_project_denies_but_never_allows(tmp_path: Path) -> None:
    texts, _ = _run(tmp_path, ["--trust-project"], project={"allow": ["execute_command"]})
    assert not (tmp_path / "repo" / "made.txt").exists()
    assert "[HITL]" in texts[0]  # nobody to approve: the project's allow did not let it through


def test_instruction_files_reach_the_model_and_a_folder_file_joins_without_touching_the_prefix(
    tmp_path: Path,
) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    (home / ".paicli").mkdir(parents=True)
    (root / "sub").mkdir(parents=True)
    (root / "AGENTS.md").write_text("ROOT-AGENTS-RULE", encoding="utf-8")
    (root / "CLAUDE.md").write_text("ROOT-AGENTS-RULE", encoding="utf-8")
    (root / "sub" / "CLAUDE.md").write_text("SUB-CLAUDE-RULE", encoding="utf-8")
    (root / "sub" / "x.py").write_text("print(1)\n", encoding="utf-8")
    call = ("read_file", json.dumps({"path": "sub/x.py"}))
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(call), "好了")
        done = run_paicli(["-p", "看看 sub/x.py"], paicli_env(home, server.base_url), root)
        server.assert_no_violations()
        first, second = server.requests[0]["messages"], server.requests[1]["messages"]
    assert done.returncode == 0, done.stderr
    assert isinstance(first, list) and isinstance(second, list)
    system = str(first[0]["content"])
    assert system.count("ROOT-AGENTS-RULE") == 1 and "SUB-CLAUDE-RULE" not in system
    assert second[0] == first[0]  # the cached prefix is unchanged
    assert "SUB-CLAUDE-RULE" in _tool_texts(server.requests[1])[0]


def _user_texts(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [str(m.get("content")) for m in messages if m.get("role") == "user"]


def test_command_files_run_as_the_users_message_and_an_untrusted_projects_never_apply(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    (home / ".paicli" / "commands").mkdir(parents=True)
    (root / ".paicli" / "commands").mkdir(parents=True)
    (home / ".paicli" / "commands" / "review.md").write_text(
        "---\ndescription: 审查改动\n---\nREVIEW-BODY 请审查 $ARGUMENTS", encoding="utf-8"
    )
    (root / ".paicli" / "commands" / "lint.md").write_text("PROJECT-LINT-BODY", encoding="utf-8")
    with FakeOpenAIServer(default_reply="好的") as server:
        script = "/review src/a.py\n/lint\n/exit\n"
        done = run_paicli([], paicli_env(home, server.base_url), root, stdin=script)
        server.assert_no_violations()
        sent = [text for request in server.requests for text in _user_texts(request)]
    assert done.returncode == 2, done.stderr  # the piped REPL's exit code for a line it could not run (/lint)
    assert any("REVIEW-BODY 请审查 src/a.py" in text for text in sent), sent
    assert not any("PROJECT-LINT-BODY" in text for text in sent)
    assert "没有这个命令: /lint" in done.stdout + done.stderr
    assert ".paicli/commands/" in done.stderr  # the untrusted folder's configuration is named


def _hook(event: str, command: str, matcher: str = "") -> dict[str, object]:
    return {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}


def test_hooks_block_a_call_add_context_and_an_untrusted_projects_never_run(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    (home / ".paicli").mkdir(parents=True)
    (root / ".paicli").mkdir(parents=True)
    user = {
        **_hook("PreToolUse", "echo '钩子说不行' >&2; exit 2", "execute_command"),
        **_hook("UserPromptSubmit", "echo HOOK-CONTEXT-42"),
    }
    (home / ".paicli" / "hooks.json").write_text(json.dumps({"hooks": user}), encoding="utf-8")
    project = _hook("SessionStart", "touch pwned-by-repo")
    (root / ".paicli" / "hooks.json").write_text(json.dumps({"hooks": project}), encoding="utf-8")
    call = ("execute_command", json.dumps({"command": "touch made.txt"}))
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(call), "好了")
        done = run_paicli(["--yes", "-p", "建个文件"], paicli_env(home, server.base_url), root)
        server.assert_no_violations()
        texts = _tool_texts(server.requests[1])
        users = _user_texts(server.requests[0])
    assert done.returncode == 0, done.stderr
    assert "钩子说不行" in texts[0] and not (root / "made.txt").exists()
    assert any("HOOK-CONTEXT-42" in text for text in users)
    assert not (root / "pwned-by-repo").exists() and ".paicli/hooks.json" in done.stderr


def test_a_pre_compact_hook_adds_what_the_summary_must_keep(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    (home / ".paicli").mkdir(parents=True)
    root.mkdir()
    hooks = {
        **_hook("PreCompact", "echo 'KEEP-BRANCH-RULE-77: 发布分支只能从 main 切出'"),
        **_hook("PostCompact", "touch post-compact-ran"),
    }
    (home / ".paicli" / "hooks.json").write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    summary = "\n".join(
        f"{title}\n- 发布分支只能从 main 切出"
        for title in (
            "## 当前目标与成功条件",
            "## 用户要求与已确认决定",
            "## 已完成工作及证据",
            "## 未解决问题与下一步",
        )
    )
    with FakeOpenAIServer() as server:
        server.push("好的", "好的", "好的", summary)
        long = "，".join(f"第 {n} 个目录里的模块各自负责什么、彼此怎么调用" for n in range(40))
        script = f"第一件事：{long}\n第二件事：{long}\n第三件事：{long}\n/compact\n/exit\n"
        done = run_paicli([], paicli_env(home, server.base_url), root, stdin=script)
        server.assert_no_violations()
        asks = [str(r["messages"][-1].get("content")) for r in server.requests]
    assert done.returncode == 0, done.stderr
    summary_asks = [text for text in asks if "上下文整理请求" in text]
    assert len(summary_asks) == 1, asks
    assert "KEEP-BRANCH-RULE-77" in summary_asks[0]  # the hook's stdout joins what the summary must keep
    assert not any("KEEP-BRANCH-RULE-77" in text for text in asks if text not in summary_asks)
    assert (root / "post-compact-ran").exists()


def test_a_bang_command_runs_in_the_repl_and_its_output_joins_the_next_message(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    (home / ".paicli").mkdir(parents=True)
    root.mkdir()
    with FakeOpenAIServer(default_reply="好的") as server:
        script = "!echo BANG-OUT-7 > bang.txt; cat bang.txt\n这是什么输出？\n/exit\n"
        done = run_paicli([], paicli_env(home, server.base_url), root, stdin=script)
        server.assert_no_violations()
        assert len(server.requests) == 1  # the command itself made no model call
        sent = _user_texts(server.requests[0])
    assert done.returncode == 0, done.stderr
    assert (root / "bang.txt").read_text(encoding="utf-8") == "BANG-OUT-7\n"
    assert "BANG-OUT-7" in done.stdout
    assert any("这是什么输出？" in text and "BANG-OUT-7" in text and "命令输出" in text for text in sent)


def test_reasoning_effort_reaches_the_request_in_the_providers_own_parameter(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    (home / ".paicli").mkdir(parents=True)
    root.mkdir()
    with FakeOpenAIServer(default_reply="好的") as server:
        env = paicli_env(home, server.base_url, PAICLI_REASONING_EFFORT="high", PAICLI_MODEL="deepseek-flash")
        done = run_paicli(["-p", "想一想"], env, root)
        script = "/effort\n/effort low\n你好\n/exit\n"
        piped = run_paicli(
            [], paicli_env(home, server.base_url, PAICLI_MODEL="gpt-4o-mini"), root, stdin=script
        )
        server.assert_no_violations()
        first, last = server.requests[0], server.requests[-1]
    assert done.returncode == 0, done.stderr
    assert first["thinking"] == {"type": "enabled"} and first["reasoning_effort"] == "max"
    assert "reasoning_effort" not in last and "thinking" not in last  # gpt-4o-mini has no such setting
    assert "default" in piped.stdout and "gpt-4o-mini 没有可调的推理强度" in piped.stdout
