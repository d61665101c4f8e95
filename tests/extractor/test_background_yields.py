"""Side calls never block a turn (issue 40): background extraction yields to a turn on a one-slot server, and
what a session cannot finish goes to the next session of the same project instead of being lost."""

from __future__ import annotations

import json
import stat
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paicli.llm.client import OpenAIChatClient
from paicli.llm.messages import Message
from paicli.memory.background import BackgroundExtraction
from paicli.memory.pending import PENDING_FILE, PendingExtractions
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli, start_paicli

REPLY = json.dumps({"facts": [{"quote": "我偏好简洁的回答"}]}, ensure_ascii=False)


class ModelJob:
    """An extraction job whose model call goes to the loopback server; records every attempt's end."""

    def __init__(self, server: FakeOpenAIServer) -> None:
        self.client = OpenAIChatClient(server.base_url, None, "fake-model", backoff_base=0.001)
        self.ended: list[int] = []
        self.first_ended = threading.Event()

    def __call__(self, text: str) -> int:
        try:
            reply = self.client.chat([Message.user(text)])  # no cancel given: the worker's scope cancels it
            saved = 1 if reply.message.content == REPLY else 0
        except Exception:  # a cancelled call, as the memory manager swallows it
            saved = 0
        self.ended.append(saved)
        self.first_ended.set()
        return saved


def test_an_extraction_under_way_yields_to_a_turn_and_runs_again_after_it() -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.hang("想了很久"), REPLY)
        job = ModelJob(server)
        runner = BackgroundExtraction(job)
        done: list[int] = []
        runner.submit("我偏好简洁的回答。", done.append)
        assert server.wait_for_hang(30)  # the extraction holds the server's one slot
        runner.turn_started()  # a turn needs it
        assert job.first_ended.wait(30) and job.ended == [0]  # its request was closed at once
        assert runner.pending == 1 and done == []  # not lost, not run during the turn
        runner.turn_ended()
        assert runner.wait(30) and done == [1] and job.ended == [0, 1]
        assert [r["messages"] for r in server.requests] == [
            [{"role": "user", "content": "我偏好简洁的回答。"}]
        ] * 2


def test_what_is_left_at_the_end_is_handed_over_and_nothing_more_runs() -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.hang())
        job = ModelJob(server)
        runner = BackgroundExtraction(job)
        runner.submit("第一段要记的话。", None)
        runner.submit("第二段要记的话。", None)
        assert server.wait_for_hang(30)
        assert runner.wait(0.01) is False
        assert runner.pending_texts() == ["第一段要记的话。", "第二段要记的话。"]
        assert runner.wait(0) is True and runner.pending == 0
        assert job.first_ended.wait(30) and job.ended == [0]
        runner.submit("之后提交的不再接收。", None)
        assert runner.pending == 0 and len(server.requests) == 1


def test_pending_texts_are_kept_per_project_redacted_and_taken_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    mine = PendingExtractions(home, "/work/a", lambda text: text.replace("sk-secret-0001", "***"))
    other = PendingExtractions(home, "/work/b")
    assert (
        mine.record(["以后提交信息用中文，key 是 sk-secret-0001", "嗯", "x" * 5000]) == 1
    )  # the others: out of range
    assert other.record(["项目 b 的约定：缩进四个空格"]) == 1
    assert stat.S_IMODE((home / PENDING_FILE).stat().st_mode) == 0o600
    assert mine.take() == ["以后提交信息用中文，key 是 ***"]
    assert mine.take() == []
    assert other.take() == ["项目 b 的约定：缩进四个空格"] and not (home / PENDING_FILE).exists()


def is_extraction(body: dict[str, Any]) -> bool:
    last = next(str(m.get("content")) for m in reversed(body["messages"]) if m["role"] == "user")
    return "=== 用户原文 ===" in last


def _wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    """True as soon as `condition` holds; `timeout` only bounds a failure."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _holds(path: Path, text: str) -> bool:
    try:
        return text in path.read_text(encoding="utf-8")
    except OSError:
        return False


@pytest.mark.e2e  # two paicli processes, and the first one's end waits out its exit bound for the hung extraction
def test_a_run_that_ends_first_leaves_its_extraction_to_the_next_session(
    project: Path, isolated_home: Path
) -> None:
    convention = "我们团队约定所有提交信息都用中文书写"
    slow = threading.Event()

    def answer(body: dict[str, Any]) -> Reply | str:
        if is_extraction(body):
            return (
                Reply.hang()
                if not slow.is_set()
                else json.dumps({"facts": [{"quote": convention}]}, ensure_ascii=False)
            )
        return "好的。"

    memory_file = isolated_home / ".paicli" / "memory" / "long_term_memory.json"
    with FakeOpenAIServer(responder=answer) as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_MEMORY_AUTO_EXTRACT_ENABLED="true")
        first = run_paicli(["-p", f"{convention}。帮我看看 README"], env, project)
        pending = (isolated_home / ".paicli" / PENDING_FILE).read_text(encoding="utf-8")
        slow.set()
        server.release()
        # the next session stays open until the extraction it picked up is saved (however slow this machine is),
        # so its own bounded wait at exit has nothing left to wait for
        second = start_paicli([], env, project, stdin=subprocess.PIPE)
        try:
            assert second.stdin is not None
            second.stdin.write("你好\n")
            second.stdin.flush()
            saved = _wait_until(lambda: _holds(memory_file, convention), timeout=120)
            out, _ = second.communicate("", timeout=120)  # the end of input: the session closes
        finally:
            second.kill()
            second.wait()
    assert first.returncode == 0 and second.returncode == 0, first.stderr + out
    assert saved and convention in pending
    memory = json.loads(memory_file.read_text("utf-8"))
    assert [entry["content"] for entry in memory] == [convention]
    assert not (isolated_home / ".paicli" / PENDING_FILE).exists()
    extractions = [r for r in server.requests if is_extraction(r)]
    # the first run's (cut short at its end), then the next session's pick-up; that one may itself have been cut
    # short by the second run's turn and sent again after it
    assert len(extractions) in (2, 3) and all(
        convention in json.dumps(r, ensure_ascii=False) for r in extractions
    )
