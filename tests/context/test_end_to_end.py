"""The three levels wired into the real ReAct loop, tool runner and HTTP client against the fake server.

Window 16,000: the offload notice and file, `[已清理的旧工具结果]` placeholders, a summary request with the four
headings, /compact producing a second one, later requests carrying the summary, every request protocol-valid
and none above the window (counted the way the fake server counts prompt_tokens).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paicli.agent.events import AgentEvent, Compacted
from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.config.compaction_values import CompactionValues, OffloadValues
from paicli.config.tool_values import ToolValues
from paicli.context.manager import AutoCompactionManager
from paicli.context.offload import ToolResultOffloader
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.llm.client import OpenAIChatClient
from paicli.testing.openai_server import FakeOpenAIServer, Reply, _Tokens, is_summary_request, prompt_text
from paicli.tools.approval import AutoApprover
from paicli.tools.runner import ToolRunner
from tests.agent.fake_tools import StaticPrompt
from tests.context.conftest import MakeEnv
from tests.context.helpers import STRUCTURED, keeping_reply

WINDOW = 16_000


TURNS = 16  # enough turns that clearing alone stops being enough and a summary fires


def responder(body: dict[str, Any]) -> Reply | str:
    if is_summary_request(body):
        return keeping_reply(body)
    messages = body["messages"]
    last = messages[-1]
    turn = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    number = turn.split("第", 1)[1].split("轮", 1)[0] if "第" in turn else "0"
    if last["role"] == "user":
        calls = [("read_file", json.dumps({"path": f"notes/f{number}.txt"}))]
        if number == "1":
            calls.append(("read_file", json.dumps({"path": "big.txt"})))
        return Reply.tool_calls(*calls)
    return f"第{number}轮完成：" + "这一轮读到的内容已经整理好了。" * 60  # answers clearing cannot shrink


def write_notes(project: Path) -> None:
    (project / "notes").mkdir()
    for i in range(1, 25):
        (project / "notes" / f"f{i}.txt").write_text(
            f"file {i}\n" + "数据行 data line\n" * 200, encoding="utf-8"
        )
    (project / "big.txt").write_text(
        "".join(f"line {i} of the big file\n" for i in range(4_000)), encoding="utf-8"
    )


def real_agent(
    project: Path, env: Any, base_url: str
) -> tuple[ReactAgent, AutoCompactionManager, ToolResultOffloader]:
    """The ReAct loop with the real client, tool runner, offloader and compaction manager at WINDOW."""
    profile = ContextProfile.from_window(WINDOW)
    client = OpenAIChatClient(base_url, None, "fake-model")
    offloader = ToolResultOffloader(
        project, OffloadValues.parse(env), context_trigger_tokens=profile.compression_trigger_tokens
    )
    runner = ToolRunner(project, AutoApprover(), offloader, values=ToolValues.parse(env))
    manager = AutoCompactionManager(TokenCounter("exact"), profile, CompactionValues.parse(env))
    return ReactAgent(client, runner, StaticPrompt(), context=manager), manager, offloader


def test_levels_in_the_real_loop_keep_every_request_inside_the_window(
    project: Path, make_env: MakeEnv
) -> None:
    write_notes(project)
    env = make_env()
    with FakeOpenAIServer(responder=responder) as server:
        agent, manager, offloader = real_agent(project, env, server.base_url)
        events: list[AgentEvent] = []
        for i in range(1, TURNS + 1):
            finished = agent.run(f"第{i}轮：请读取 notes/f{i}.txt 并总结", events.append, CancelToken())
            assert finished.status == "done", finished
        automatic = [r for r in server.requests if is_summary_request(r)]
        manual = agent.compact_now("保留每一轮读过的文件名")
        assert manual.compacted and manual.strategy == "full_summary"
        agent.run(f"第{TURNS + 1}轮：继续", events.append, CancelToken())
        requests = server.requests
        server.assert_no_violations()

    prompts = [json.dumps(r["messages"], ensure_ascii=False) for r in requests]
    assert any("[工具输出过大，完整内容已卸载到会话文件]" in p for p in prompts)
    assert list((project / ".paicli" / "tool-outputs" / offloader.session_dir_name).glob("*-read_file.txt"))
    assert any("[已清理的旧工具结果]" in p for p in prompts)
    summaries = [r for r in requests if is_summary_request(r)]
    assert automatic and len(summaries) == len(automatic) + 1
    assert all(
        h in summaries[0]["messages"][-1]["content"] for h in STRUCTURED.splitlines() if h.startswith("##")
    )
    assert "保留每一轮读过的文件名" in summaries[-1]["messages"][-1]["content"]
    assert "[已压缩的历史对话摘要]" in prompts[-1]
    strategies = {s.strategy for e in events if isinstance(e, Compacted) for s in e.result.steps}
    assert {"tool_result_clearing", "full_summary"} <= strategies
    sizes = [len(_Tokens.encode(prompt_text(r))) for r in requests]
    assert max(sizes) <= WINDOW, sizes
    assert manager.counter.last_provider_prompt_tokens is not None


def test_summary_requests_reuse_the_cached_prefix_of_the_conversation(
    project: Path, make_env: MakeEnv
) -> None:
    """Through the real openai client: a summary request is the last agent request's opening plus the instruction,
    with the same tools (not callable), so the provider's prefix cache serves almost all of it."""
    write_notes(project)
    env = make_env()
    with FakeOpenAIServer(responder=responder, cache_emulation=True) as server:
        agent, _, _ = real_agent(project, env, server.base_url)
        for i in range(1, TURNS + 1):
            assert (
                agent.run(f"第{i}轮：请读取 notes/f{i}.txt 并总结", lambda e: None, CancelToken()).status
                == "done"
            )
        requests, usages = server.requests, server.usages
        server.assert_no_violations()
    summaries = [i for i, r in enumerate(requests) if is_summary_request(r)]
    assert summaries
    for index in summaries:
        body, previous = requests[index], requests[index - 1]
        assert not is_summary_request(previous)
        assert body["tool_choice"] == "none" and body["tools"] == previous["tools"]
        shared = body["messages"][:-1]
        assert len(shared) > 2 and shared == previous["messages"][: len(shared)]
        assert "【上下文整理请求" in body["messages"][-1]["content"]
        usage = usages[index]
        assert usage["prompt_tokens_details"]["cached_tokens"] >= 0.8 * usage["prompt_tokens"], usage
