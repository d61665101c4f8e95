"""create_project through a real session and the loopback server: the model's call scaffolds the folder (approved
here by --yes, as `served_parts` does) and the result reaches the next request; `-p` without --yes refuses it."""

from __future__ import annotations

from pathlib import Path

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli
from tests.cli.served_session import served_parts

CALL = Reply.tool_calls(("create_project", '{"name": "hello-web", "type": "web"}'))


def tool_text(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    return str([m for m in messages if m["role"] == "tool"][-1]["content"])


def test_the_models_call_scaffolds_the_project(tmp_path: Path) -> None:
    with FakeOpenAIServer([CALL, "建好了"]) as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            finished = backend.run("建一个静态网页项目", "react", lambda e: None, CancelToken())
            assert finished.answer == "建好了"
            assert "create_project" in {t["function"]["name"] for t in server.requests[0]["tools"]}
            assert (tmp_path / "project" / "hello-web" / "index.html").is_file()
            assert "✅ 已创建 web 项目 hello-web" in tool_text(server.requests[1])
        finally:
            backend.close()


def test_without_yes_a_one_shot_run_refuses_it(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer([CALL, "没有建"]) as server:
        done = run_paicli(["-p", "建一个静态网页项目"], paicli_env(isolated_home, server.base_url), project)
        assert done.returncode == 0, done.stderr
        assert not (project / "hello-web").exists()
        assert "未执行" in tool_text(server.requests[1])
