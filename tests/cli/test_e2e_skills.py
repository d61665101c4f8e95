"""Skills and the /skill /config /audit /export commands end to end: a real `paicli` subprocess against the
loopback OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli

BODY = "# 部署检查\n1. 先运行 make check。\n2. 暗号是 青松-7。"


def write_skill(root: Path, name: str, description: str, body: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n{body}\n", encoding="utf-8"
    )
    return folder


def texts(body: dict[str, Any]) -> list[str]:
    return [str(m.get("content") or "") for m in body["messages"]]


def test_load_skill_injects_the_body_into_the_next_request(project: Path, isolated_home: Path) -> None:
    write_skill(isolated_home / ".paicli" / "skills", "deploy-check", "上线前的检查清单", BODY)
    with FakeOpenAIServer() as server:
        server.push(
            Reply.tool_calls(("load_skill", '{"name": "deploy-check"}')), "按清单检查完毕，暗号 青松-7。"
        )
        env = paicli_env(isolated_home, server.base_url)
        run = run_paicli(["-p", "帮我做上线前检查", "--output-format", "json"], env, project)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout.strip().splitlines()[-1])["result"].endswith("青松-7。")
        first, second = server.requests
        system = texts(first)[0]
        assert "## 可用 Skills（按需调用 load_skill 加载完整指引）" in system and "`deploy-check`" in system
        assert "load_skill" in [t["function"]["name"] for t in first["tools"]]
        messages = second["messages"]
        assert messages[-2]["role"] == "tool" and "已加载 Skill deploy-check" in messages[-2]["content"]
        assert messages[-1]["role"] == "user"
        injected = messages[-1]["content"]
        assert injected.startswith("[PAICLI_SKILL_INJECTION]\n## 已加载 Skill：deploy-check（来源：user）\n")
        assert BODY in injected
        assert system == texts(second)[0] and first["tools"] == second["tools"]
        assert server.violations == []
        ledger = next((isolated_home / ".paicli" / "history" / "raw").glob("session-*.jsonl"))
        sources = [json.loads(line)["source"] for line in ledger.read_text(encoding="utf-8").splitlines()]
        assert "skill_injection" in sources


def test_injection_survives_continue(project: Path, isolated_home: Path) -> None:
    write_skill(project / ".paicli" / "skills", "local-rules", "本项目的约定", BODY)
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(("load_skill", '{"name": "local-rules"}')), "已按约定处理", "还记得")
        env = paicli_env(isolated_home, server.base_url)
        # project skills apply only in a trusted folder (issue 26): -p needs --trust-project
        assert run_paicli(["--trust-project", "-p", "按项目约定处理"], env, project).returncode == 0
        again = run_paicli(["--trust-project", "-c", "-p", "继续"], env, project)
        assert again.returncode == 0, again.stderr
        resumed = texts(server.requests[-1])
        injected = [t for t in resumed if t.startswith("[PAICLI_SKILL_INJECTION]")]
        assert len(injected) == 1 and BODY in injected[0]
        assert "## 已加载 Skill：local-rules（来源：project）" in injected[0] and "不可信" in injected[0]
        assert server.violations == []


def test_malformed_skill_is_a_warning_and_the_run_goes_on(project: Path, isolated_home: Path) -> None:
    skills = isolated_home / ".paicli" / "skills"
    write_skill(skills, "good", "好的 Skill", "正文")
    (skills / "broken").mkdir(parents=True)
    (skills / "broken" / "SKILL.md").write_text("---\nname: [oops\n---\n", encoding="utf-8")
    with FakeOpenAIServer() as server:
        server.push("好的")
        env = paicli_env(isolated_home, server.base_url)
        repl = run_paicli([], env, project, stdin="/skill list\n你好\n/exit\n")
        assert repl.returncode == 0, repl.stderr
        assert str(skills / "broken" / "SKILL.md") in repl.stderr and "YAML" in repl.stderr
        assert "good" in repl.stdout and "review-change" in repl.stdout
        assert "`good`" in texts(server.requests[0])[0]


def test_skill_off_changes_the_prompt_once_and_persists(project: Path, isolated_home: Path) -> None:
    write_skill(isolated_home / ".paicli" / "skills", "deploy-check", "上线前的检查清单", BODY)
    with FakeOpenAIServer() as server:
        server.push("一", "二", "三")
        env = paicli_env(isolated_home, server.base_url)
        stdin = "第一问\n/skill off deploy-check\n第二问\n第三问\n/exit\n"
        repl = run_paicli([], env, project, stdin=stdin)
        assert repl.returncode == 0, repl.stderr
        assert "已停用 Skill deploy-check" in repl.stdout and "缓存" in repl.stdout
        prompts = [texts(r)[0] for r in server.requests]
        assert "`deploy-check`" in prompts[0] and "`deploy-check`" not in prompts[1]
        assert prompts[1] == prompts[2]
    state = json.loads((isolated_home / ".paicli" / "skills.json").read_text(encoding="utf-8"))
    assert state == {"disabled": ["deploy-check"]}


def test_config_audit_and_export_commands(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(("execute_command", '{"command": "echo hi"}')), "命令跑完了")
        env = paicli_env(isolated_home, server.base_url, PAICLI_API_KEY="sk-secret-value-1234")
        stdin = "运行 echo hi\n/config\n/audit 5\n/export out/chat.md\n/exit\n"
        repl = run_paicli(["--yes"], env, project, stdin=stdin)
        assert repl.returncode == 0, repl.stderr
        out = repl.stdout
        assert "当前生效的配置" in out and "fake-model · 环境变量 PAICLI_MODEL" in out
        assert "sk-secret-value-1234" not in out and "sk-***1234" in out
        assert "execute_command [executed]" in out
        exported = (project / "out" / "chat.md").read_text(encoding="utf-8")
        assert "✅ 对话记录已导出" in out
        assert "运行 echo hi" in exported and "`execute_command`" in exported and "命令跑完了" in exported
        assert server.violations == []


def test_model_without_tool_support_gets_the_no_tools_prompt(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(("read_file", '{"path": "a.txt"}')), "只能用文字回答")
        env = paicli_env(isolated_home, server.base_url, PAICLI_TOOLS_ENABLED="false")
        run = run_paicli(["-p", "读一下 a.txt"], env, project)
        assert run.returncode == 0, run.stderr
        first, second = server.requests
        assert "tools" not in first or not first["tools"]
        system = texts(first)[0]
        assert "## Tool Availability" in system and "当前模型不支持 PaiCLI 原生工具调用" in system
        assert "## Tools\n" not in system and "## Tool Policy" not in system
        assert "当前模型不支持工具调用" in second["messages"][-1]["content"]
        assert server.violations == []
