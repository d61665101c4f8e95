"""The relation judge through the real CLI (issue 37): a piped REPL `/save` shows the local verdict at once and
the session's light model refines it before the process exits; a loopback model that does not know the judge's
protocol changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paicli.memory.judge import output_cap, parse_request
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import paicli_env, run_paicli


def _user(body: dict[str, Any]) -> str:
    return next(str(m.get("content") or "") for m in reversed(body["messages"]) if m["role"] == "user")


def _oracle(body: dict[str, Any]) -> str:
    parsed = parse_request(_user(body))
    if parsed is None:
        return "好的。"
    relations = [{"id": label, "relation": "updates", "old": "李娜", "new": "周敏"} for label, _ in parsed[1]]
    return json.dumps({"relations": relations}, ensure_ascii=False)


def _memories(home: Path) -> list[dict[str, Any]]:
    path = home / ".paicli" / "memory" / "long_term_memory.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _run(
    tmp_path: Path, responder: Any, judge: str = "true"
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    project = tmp_path / "project"
    project.mkdir()
    with FakeOpenAIServer(responder=responder) as server:
        env = paicli_env(tmp_path, server.base_url, PAICLI_MEMORY_JUDGE=judge)
        script = "/save 发布审批人是李娜\n/save 发布审批的事李娜不干了，周敏顶上\n"
        done = run_paicli([], env, project, stdin=script, timeout=180)
        assert done.returncode == 0, done.stderr
        return _memories(tmp_path), server.requests, done.stdout


def test_a_save_is_refined_by_the_judge_before_a_piped_session_exits(tmp_path: Path) -> None:
    entries, requests, stdout = _run(tmp_path, _oracle)
    assert "💾 已写入长期记忆" in stdout  # the local verdict, shown at once
    by_content = {e["content"]: e for e in entries}
    old, new = by_content["发布审批人是李娜"], by_content["发布审批的事李娜不干了，周敏顶上"]
    assert old["metadata"]["supersededBy"] == new["id"]
    [judge] = [body for body in requests if parse_request(_user(body)) is not None]
    assert judge["max_tokens"] == output_cap(1) and "tools" not in judge


def test_a_model_that_does_not_know_the_protocol_leaves_the_local_verdict(tmp_path: Path) -> None:
    entries, requests, _ = _run(tmp_path, lambda body: "好的。")
    assert all("supersededBy" not in e["metadata"] for e in entries) and len(entries) == 2
    assert len(requests) == 1  # one small request for the one write that had an unsure neighbour


def test_the_judge_can_be_turned_off(tmp_path: Path) -> None:
    entries, requests, _ = _run(tmp_path, _oracle, judge="false")
    assert requests == [] and all("supersededBy" not in e["metadata"] for e in entries)
