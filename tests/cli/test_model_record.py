"""The session file records model changes (`model_change`); a resume continues with the model recorded last,
or says which model it continues with when that one cannot be used (issue 41 item 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.session.ledger import ConversationLedger
from paicli.session.model_record import RecordedModel, read_recorded_model, record_model_change
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import paicli_env, run_paicli
from tests.cli.served_session import command, served_parts

pytestmark = pytest.mark.timeout(60)


def test_the_model_recorded_last_is_a_switch_or_a_resume_marker(tmp_path: Path) -> None:
    ledger = ConversationLedger.create(tmp_path, tmp_path, "first-model", "paicli", "0")
    assert ledger.path is not None
    assert read_recorded_model(ledger.path) == RecordedModel("first-model", "paicli")
    record_model_change(ledger, "second-model", "glm")
    ledger.append_event("user", "react", "agent", "user_input", {})
    assert read_recorded_model(ledger.path) == RecordedModel("second-model", "glm")
    ledger.mark_resumed({"model": "third-model", "provider": "deepseek"})
    assert read_recorded_model(ledger.path) == RecordedModel("third-model", "deepseek")
    assert RecordedModel("m", "p").spec == "p/m" and RecordedModel("m", "").spec == "m"
    ledger.close()
    (tmp_path / "broken.jsonl").write_bytes(b"not json\n")
    assert read_recorded_model(tmp_path / "broken.jsonl") is None


def _session(tmp_path: Path, server: FakeOpenAIServer, **extra: str) -> AppBackend:
    return AppBackend(served_parts(tmp_path, server.base_url, **extra))


def test_resume_continues_with_the_model_the_session_switched_to(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("第一个回答", "第二个回答", "第三个回答")
        first = _session(tmp_path, server)
        first.run("问题一", "react", lambda _event: None, CancelToken())
        assert first.models.command("paicli/other-model", confirmed=True).ok
        first.run("问题二", "react", lambda _event: None, CancelToken())
        earlier = first.parts.ledger.session_id
        first.close(5)
        second = _session(tmp_path, server)  # started with fake-model
        try:
            out = command(second, f"/resume {earlier}")
            second.run("问题三", "react", lambda _event: None, CancelToken())
        finally:
            second.close(5)
    assert [body["model"] for body in server.requests] == ["fake-model", "other-model", "other-model"]
    assert "继续使用会话记录的模型 other-model (paicli)" in out
    assert second.settings.model == "other-model"


def test_a_recorded_model_that_cannot_be_used_is_named_and_the_current_one_kept(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("回答")
        first = _session(tmp_path, server)
        first.run("问题", "react", lambda _event: None, CancelToken())
        record_model_change(first.parts.ledger, "glm-4-plus", "glm")  # a provider without a key here
        earlier = first.parts.ledger.session_id
        first.close(5)
        second = _session(tmp_path, server)
        try:
            out = command(second, f"/resume {earlier}")
        finally:
            second.close(5)
    assert "会话记录的模型 glm-4-plus (glm) 现在用不了" in out and "继续使用 fake-model (paicli)" in out
    assert second.settings.model == "fake-model"


@pytest.mark.e2e
def test_continue_at_start_up_takes_the_recorded_model_unless_one_is_named(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with FakeOpenAIServer() as server:
        server.push("一", "二", "三")
        env = paicli_env(tmp_path / "home", server.base_url)
        first = run_paicli(["-p", "问题一", "--model", "other-model"], env, project)
        second = run_paicli(["-p", "问题二", "-c"], env, project)
        third = run_paicli(["-p", "问题三", "-c", "--model", "fake-model"], env, project)
    assert (first.returncode, second.returncode, third.returncode) == (0, 0, 0), second.stderr
    assert [body["model"] for body in server.requests] == ["other-model", "other-model", "fake-model"]
    assert "继续使用会话记录的模型 other-model" in second.stderr
