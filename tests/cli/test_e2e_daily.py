"""Daily use through the real `paicli` process (piped REPL) against the loopback server: /model, resume replay."""

from __future__ import annotations

from pathlib import Path

from tests.cli.paicli_proc import paicli_env, run_paicli
from tests.fakes.openai_server import FakeOpenAIServer


def test_model_list_and_unknown_names_do_not_switch(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("好的。")
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli([], env, project, stdin="/model list\n/model lsit\n/model a b c\n/comapct\n你好\n")
        assert done.returncode == 0, done.stderr
        out = done.stdout
        assert "🤖 已配置的模型：" in out and "● paicli/fake-model" in out
        assert "❌ 不认识的模型: lsit（没有切换）" in out and "❌ 不认识的模型: a b c" in out
        assert "你是不是想输入 /compact" in out
        assert server.requests[-1]["model"] == "fake-model"  # still the same model after all that
