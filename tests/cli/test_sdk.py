"""paicli.sdk against the loopback fake server, in-process: run, typed events, approvals, resume, cancel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli import sdk
from paicli.cli.approval_desk import REFUSED_BY_POLICY
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import message_text, paicli_env


@pytest.fixture
def server() -> FakeOpenAIServer:
    with FakeOpenAIServer() as fake:
        yield fake


def session(tmp_path: Path, server: FakeOpenAIServer, **options: object) -> sdk.Session:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    environ = paicli_env(tmp_path / "home", server.base_url)
    return sdk.Session(cwd=project, environ=environ, **options)  # type: ignore[arg-type]


def tool_messages(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [message_text(m) for m in messages if m.get("role") == "tool"]


def test_run_answers_with_the_result_record(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.push("你好，我是 paicli")
    with session(tmp_path, server) as s:
        result = s.run("打个招呼")
        assert result == sdk.Result("done", "你好，我是 paicli", s.id, False, 1, result.usage, False, ())
        assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
    ledger = tmp_path / "home" / ".paicli" / "history" / "raw" / f"{result.session_id}.jsonl"
    assert "打个招呼" in ledger.read_text(encoding="utf-8")


def test_events_are_typed_and_end_with_the_result(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.push(Reply.tool_calls(("read_file", '{"path": "a.txt"}')), "文件里写着 hello")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "a.txt").write_text("hello\n", encoding="utf-8")
    with session(tmp_path, server) as s:
        events = list(s.events("读 a.txt"))
    kinds = [type(e) for e in events]
    assert kinds[-1] is sdk.Result and events[-1].result == "文件里写着 hello"  # type: ignore[union-attr]
    started = next(e for e in events if isinstance(e, sdk.ToolStarted))
    finished = next(e for e in events if isinstance(e, sdk.ToolFinished))
    assert started.name == "read_file" and finished.result.success and "hello" in finished.result.content
    assert kinds.index(sdk.ToolStarted) < kinds.index(sdk.ToolFinished)
    assert "".join(e.text for e in events if isinstance(e, sdk.TextDelta)) == "文件里写着 hello"
    assert json.loads(json.dumps(sdk.event_json(events[-1])))["type"] == "result"


@pytest.mark.parametrize("decision", ["approve", "deny"])
def test_an_approval_is_asked_of_the_caller_and_answered(
    tmp_path: Path, server: FakeOpenAIServer, decision: str
) -> None:
    server.push(Reply.tool_calls(("execute_command", '{"command": "touch made-by-agent"}')), "好了")
    with session(tmp_path, server, approvals="ask") as s:
        asked = []
        for event in s.events("建个文件"):
            if isinstance(event, sdk.ApprovalRequested):
                asked.append(event)
                assert s.answer(event.approval_id, decision)  # type: ignore[arg-type]
                assert not s.answer(event.approval_id, decision)  # answered once only
        assert isinstance(event, sdk.Result) and event.status == "done"
    assert [a.tool for a in asked] == ["execute_command"]
    made = (tmp_path / "project" / "made-by-agent").exists()
    assert made == (decision == "approve")
    assert ("[HITL]" in tool_messages(server.requests[1])[0]) == (decision == "deny")


def test_the_deny_policy_refuses_and_says_why(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.push(Reply.tool_calls(("execute_command", '{"command": "touch made-by-agent"}')), "不行")
    with session(tmp_path, server) as s:
        events = list(s.events("建个文件"))
    assert not any(isinstance(e, sdk.ApprovalRequested) for e in events)
    assert not (tmp_path / "project" / "made-by-agent").exists()
    assert REFUSED_BY_POLICY in tool_messages(server.requests[1])[0]


def test_a_session_resumes_with_its_conversation(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.push("记住了：暗号是 蓝鲸", "暗号是 蓝鲸")
    with session(tmp_path, server) as first:
        first_id = first.run("暗号是蓝鲸，记住").session_id
    with session(tmp_path, server, session_id=first_id) as again:
        assert again.id == first_id
        with pytest.raises(sdk.SessionBusy):
            session(tmp_path, server, session_id=first_id)  # one writer per session
        assert again.run("暗号是什么？").session_id == first_id
    said = [message_text(m) for m in server.requests[-1]["messages"]]
    assert "暗号是蓝鲸，记住" in said and "记住了：暗号是 蓝鲸" in said


def test_an_unknown_session_is_refused(tmp_path: Path, server: FakeOpenAIServer) -> None:
    with pytest.raises(sdk.UnknownSession):
        session(tmp_path, server, session_id="session-1-nope")


def test_cancel_while_an_approval_waits_refuses_it_and_ends_the_run(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    server.push(Reply.tool_calls(("execute_command", '{"command": "touch made-by-agent"}')))
    with session(tmp_path, server, approvals="ask") as s:
        for event in s.events("建个文件"):
            if isinstance(event, sdk.ApprovalRequested):
                s.cancel()
        assert isinstance(event, sdk.Result) and event.status == "cancelled" and event.is_error
    assert not (tmp_path / "project" / "made-by-agent").exists()


def test_leaving_the_loop_early_cancels_the_run(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.push(Reply.hang("开始"))
    with session(tmp_path, server) as s:
        for event in s.events("慢慢来"):
            if isinstance(event, sdk.TextDelta):
                break  # the generator's close cancels the hanging request and joins the run
        server.push("第二次")
        assert s.run("再来").result == "第二次"


def test_an_approval_outside_a_run_is_refused_not_hung() -> None:
    from paicli.cli.approval_desk import ApprovalDesk
    from paicli.tools.base import ApprovalReply, ApprovalRequest

    desk = ApprovalDesk("ask")
    reply = desk.approve(ApprovalRequest("execute_command", {}, "执行命令: ls", "需要确认"))
    assert reply == ApprovalReply("deny", REFUSED_BY_POLICY) and desk.waiting() == []
