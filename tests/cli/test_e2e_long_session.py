"""Issue 12 end to end: with the summary model failing, a long piped session still keeps every request inside
the window, the user sees a notice saying what was done, and failed attempts back off."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paicli.testing.openai_server import (
    FakeOpenAIServer,
    Reply,
    count_tokens,
    is_summary_request,
    prompt_text,
)
from paicli.testing.proc import paicli_env, run_paicli

WINDOW = 16_000
NOTICE = "自动摘要没有完成"
SUMMARY = (
    "## 当前目标与成功条件\n读完全部文件\n## 用户要求与已确认决定\n逐个读取\n"
    "## 已完成工作及证据\n已读取前面的文件\n## 未解决问题与下一步\n继续读取"
)


def responder(body: dict[str, Any]) -> Reply | str:
    if is_summary_request(body):  # the summariser: down for the whole session
        return Reply.error(500, "summary model down")
    messages = body["messages"]
    turn = next(
        str(m["content"]) for m in reversed(messages) if m["role"] == "user" and "轮" in str(m["content"])
    )
    number = int(turn.split("第", 1)[1].split("轮", 1)[0])
    rounds = sum(
        1
        for m in messages[messages.index(next(m for m in messages if m.get("content") == turn)) :]
        if m["role"] == "assistant" and m.get("tool_calls")
    )
    if rounds < 2:
        files = [f"notes/f{(number + k) % 8}.txt" for k in range(3)]
        return Reply.tool_calls(*[("read_file", json.dumps({"path": f})) for f in files])
    return f"第{number}轮完成：" + "这一轮读到的内容已经整理好了，要点都记下来了。" * 30


def test_failing_summariser_never_lets_a_request_overflow_and_says_so(
    project: Path, isolated_home: Path
) -> None:
    (project / "notes").mkdir()
    for i in range(8):
        (project / "notes" / f"f{i}.txt").write_text(
            "".join(f"数据行 {i}-{n} data line with some english words\n" for n in range(60 + 40 * i)),
            encoding="utf-8",
        )
    turns = [f"第{i}轮：请读取这些文件并总结要点" for i in range(1, 16)]
    with FakeOpenAIServer(responder=responder) as server:
        env = paicli_env(
            isolated_home, server.base_url, PAICLI_CONTEXT_WINDOW=str(WINDOW), PAICLI_LLM_MAX_RETRIES="0"
        )
        proc = run_paicli([], env, project, stdin="\n".join([*turns, "/exit"]) + "\n", timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        requests = server.requests
        assert server.violations == []

    main = [r for r in requests if not is_summary_request(r)]
    summaries = [r for r in requests if is_summary_request(r)]
    sizes = [count_tokens(prompt_text(r)) for r in requests]
    assert max(sizes) <= WINDOW, sizes
    dropped = [r for r in main if any("[已省略的早期对话]" in str(m.get("content")) for m in r["messages"])]
    assert dropped, "the fallback never had to act: the session is too short to test anything"
    output = proc.stdout + proc.stderr
    notices = output.count(NOTICE)
    notes = {
        next(str(m["content"]) for m in r["messages"] if "[已省略的早期对话]" in str(m.get("content")))
        for r in dropped
    }
    assert 1 <= notices == len(notes), (notices, len(notes))  # one notice per fallback, not one per request
    assert len(summaries) < len(main) // 3  # failed attempts back off instead of preceding every call


@pytest.mark.parametrize("summariser_works", [True, False])
def test_one_task_of_many_tool_rounds_stays_inside_a_small_window(
    project: Path, isolated_home: Path, summariser_works: bool
) -> None:
    """Issue 17.6: PAICLI_CONTEXT_WINDOW=8000 and one task of 28 tool rounds: every request fits."""
    count = 34  # enough that clearing alone (short placeholders with recall ids) cannot keep it in the window
    for i in range(count):
        (project / f"m{i}.py").write_text(
            "".join(f"def step_{i}_{n}(x):\n    return x + {n}  # round {i}\n" for n in range(110)),
            encoding="utf-8",
        )

    rounds = [0]  # the model's own progress (the view may have summarised earlier rounds away)

    def answer(body: dict[str, Any]) -> Reply | str:
        if is_summary_request(body):
            return SUMMARY if summariser_works else Reply.error(500, "summary model down")
        if rounds[0] < count:
            rounds[0] += 1
            return Reply.tool_calls(("read_file", json.dumps({"path": f"m{rounds[0] - 1}.py"})))
        return "全部读完了。"

    with FakeOpenAIServer(responder=answer) as server:
        env = paicli_env(
            isolated_home, server.base_url, PAICLI_CONTEXT_WINDOW="8000", PAICLI_LLM_MAX_RETRIES="0"
        )
        proc = run_paicli(
            [], env, project, stdin=f"请逐个读取 m0.py 到 m{count - 1}.py，然后总结\n/exit\n", timeout=300
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        requests = server.requests
        assert server.violations == []
    main = [r for r in requests if not is_summary_request(r)]
    assert len(main) == count + 1 and rounds[0] == count
    sizes = [(count_tokens(prompt_text(r)), not is_summary_request(r), len(r["messages"])) for r in requests]
    assert max(sizes)[0] <= 8_000, sizes
    folded = "[已压缩的历史对话摘要]" if summariser_works else "[已省略的早期对话]"
    assert any(folded in json.dumps(r["messages"], ensure_ascii=False) for r in main)
    assert any(
        "请逐个读取" in str(m.get("content")) for m in main[-1]["messages"]
    )  # the request stays verbatim
