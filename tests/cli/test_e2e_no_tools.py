"""A local model that rejects `tools`, end to end: the session goes on without tools and says so once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import paicli_env, run_paicli

pytestmark = pytest.mark.timeout(120)


def test_oneshot_answers_without_tools_after_the_first_400(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer(["我不能读文件，但可以解释思路。"], reject_tools=True) as server:
        proc = run_paicli(["-p", "看看 main.py"], paicli_env(isolated_home, server.base_url), project)
        requests = server.requests
        server.assert_no_violations()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "我不能读文件，但可以解释思路。"
    assert proc.stderr.count("不支持工具调用") == 1
    assert ["tools" in r for r in requests] == [True, False]
    assert "当前模型不支持 PaiCLI 原生工具调用" in requests[1]["messages"][0]["content"]


def test_piped_session_keeps_going_without_tools_and_says_so_once(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer(["第一个回答", "第二个回答"], reject_tools=True) as server:
        proc = run_paicli([], paicli_env(isolated_home, server.base_url), project, stdin="你好\n再问一个\n")
        requests = server.requests
    assert proc.returncode == 0, proc.stderr
    assert "第一个回答" in proc.stdout and "第二个回答" in proc.stdout
    assert proc.stderr.count("不支持工具调用") == 1
    assert ["tools" in r for r in requests] == [True, False, False]


def test_after_the_fallback_context_counts_no_tools_and_the_prompt_offers_no_skills(
    project: Path, isolated_home: Path
) -> None:
    skill = isolated_home / ".paicli" / "skills" / "deploy-check"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: deploy-check\ndescription: 上线前的检查清单\n---\n# 清单\n", encoding="utf-8"
    )
    with FakeOpenAIServer(["好的"], reject_tools=True) as server:
        stdin = "/context\n你好\n/context\n"
        proc = run_paicli([], paicli_env(isolated_home, server.base_url), project, stdin=stdin)
        requests = server.requests
        server.assert_no_violations()
    assert proc.returncode == 0, proc.stderr
    before, after = re.findall(r"工具定义:\s+(\S+).*\[(\d+) 个工具\]", proc.stdout)
    assert int(before[1]) > 0 and before[0] != "0"  # tools are still offered before the first request
    assert after == ("0", "0")  # the fallback sends none, so /context counts none
    offered, sent = (request["messages"][0]["content"] for request in requests)
    assert "## 可用 Skills" in offered and "deploy-check" in offered
    assert "当前模型不支持 PaiCLI 原生工具调用" in sent
    assert "load_skill" not in sent and "deploy-check" not in sent and "\n## Skills\n" not in sent
