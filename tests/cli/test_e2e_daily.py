"""Daily use through the real `paicli` process (piped REPL) against the loopback server: /model, resume replay."""

from __future__ import annotations

from pathlib import Path

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli


def test_model_list_and_unknown_names_do_not_switch(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("好的。")
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli([], env, project, stdin="/model list\n/model lsit\n/model a b c\n/comapct\n你好\n")
        assert done.returncode == 2, done.stderr  # /comapct is no command: a usage error, reported at the end
        out = done.stdout
        assert "🤖 已配置的模型：" in out and "● paicli/fake-model" in out
        assert "❌ 不认识的模型: lsit（没有切换）" in out and "❌ 不认识的模型: a b c" in out
        assert "你是不是想输入 /compact" in out
        assert server.requests[-1]["model"] == "fake-model"  # still the same model after all that


def test_continue_replays_the_conversation_and_exit_says_how_to_come_back(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        server.push("第一行结论\n第二行结论", "接着上次说。")
        env = paicli_env(isolated_home, server.base_url)
        first = run_paicli([], env, project, stdin="帮我看看 parser 的问题\n")
        assert first.returncode == 0, first.stderr
        [ledger] = (isolated_home / ".paicli" / "history" / "raw").glob("session-*.jsonl")
        session_id = ledger.name[: -len(".jsonl")]
        assert f"会话已保存，下次接着这个会话继续:\n   paicli --resume {session_id}" in first.stderr
        second = run_paicli(["-c"], env, project, stdin="继续\n")
        assert second.returncode == 0, second.stderr
        err = second.stderr
        assert "── 之前的对话 ──" in err and "› 帮我看看 parser 的问题" in err
        assert "  第一行结论\n  第二行结论" in err  # the answer keeps its lines


def test_picker_hides_a_failed_one_turn_session_unless_asked(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_LLM_MAX_RETRIES="0")
        server.push("登录页修好了。")
        assert run_paicli(["-p", "修登录页"], env, project).returncode == 0
        server.push(Reply.error(500))
        assert run_paicli(["-p", "一次失败的运行"], env, project).returncode != 0
        listed = run_paicli([], env, project, stdin="/resume\n/resume all\n")
        out = listed.stdout
        first_list, _, second_list = out.partition("恢复其中一个")  # each list ends with how to choose
        assert "修登录页" in first_list and "一次失败的运行" not in first_list
        assert "一次失败的运行" in second_list and "只有一轮且没有得到回答" in second_list
        searched = run_paicli([], env, project, stdin="/resume 登录\n")
        assert "✅ 已恢复会话" in searched.stdout and "› 修登录页" in searched.stdout


def test_a_retried_model_call_says_so_with_the_cause(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.error(500), Reply.error(503), "终于好了。")
        env = paicli_env(isolated_home, server.base_url, PAICLI_LLM_MAX_RETRIES="3")
        done = run_paicli(["-p", "你好"], env, project)
        assert done.returncode == 0, done.stderr
        assert "终于好了。" in done.stdout
        assert "⏳ 立即重试 1/3…（HTTP 500）" in done.stderr
        assert "⏳ 立即重试 2/3…（HTTP 503）" in done.stderr


def test_model_checks_the_provider_list_and_refuses_an_unlisted_name_when_piped(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer(models=("fake-model", "gpt-5-mini")) as server:
        server.push("好的。", "换好了。")
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli([], env, project, stdin="/model gpt-5\n你好\n/model gpt-5-mini\n再来\n")
        assert done.returncode == 0, done.stderr
        out = done.stdout
        assert "⚠️ paicli 的模型列表里没有 gpt-5" in out and "你是不是想用 gpt-5-mini？" in out
        assert "❌ 没有切换到 gpt-5：管道输入里无法确认" in out
        assert "✅ 已切换到 gpt-5 (paicli)" not in out and "✅ 已切换到 gpt-5-mini (paicli)" in out
        assert [request["model"] for request in server.requests] == ["fake-model", "gpt-5-mini"]


def test_model_says_when_the_provider_list_cannot_be_checked(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer(models_route=False) as server:
        server.push("好的。")
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli([], env, project, stdin="/model gpt-5\n你好\n")
        assert done.returncode == 0, done.stderr
        assert "✅ 已切换到 gpt-5 (paicli)" in done.stdout
        assert "ℹ️ 无法核对 paicli 的模型列表（服务不提供模型列表），没有确认 gpt-5 是否可用" in done.stdout
        assert server.requests[-1]["model"] == "gpt-5"
