"""Issue 3 end to end: a piped multi-turn REPL session at PAICLI_CONTEXT_WINDOW=16000 with large tool results."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from paicli.testing.openai_server import (
    FakeOpenAIServer,
    Reply,
    count_tokens,
    is_summary_request,
    prompt_text,
)
from paicli.testing.proc import paicli_env, run_paicli

WINDOW = 16_000
SUMMARY = (
    "## 当前目标与成功条件\n逐轮读取 notes 下的文件并总结\n"
    "## 用户要求与已确认决定\n每轮读一个文件\n"
    "## 已完成工作及证据\n已读取前几轮的文件\n"
    "## 未解决问题与下一步\n继续读取后续文件"
)
HEADINGS = [line for line in SUMMARY.splitlines() if line.startswith("## ")]


def responder(body: dict[str, Any]) -> Reply | str:
    if is_summary_request(body):  # a summariser that names the files the user asked about
        files = sorted(set(re.findall(r"notes/f\d+\.txt", prompt_text(body))))
        return SUMMARY.replace("每轮读一个文件", "每轮读一个文件：" + "、".join(files))
    messages = body["messages"]
    turn = next(str(m["content"]) for m in reversed(messages) if m["role"] == "user")
    number = turn.split("第", 1)[1].split("轮", 1)[0] if "第" in turn else "0"
    if messages[-1]["role"] == "user":
        return Reply.tool_calls(("read_file", json.dumps({"path": f"notes/f{number}.txt"})))
    return f"第{number}轮完成：" + "这一轮读到的内容已经整理好了，要点都记下来了。" * 40


def test_piped_session_offloads_clears_and_summarises_within_the_window(
    project: Path, isolated_home: Path
) -> None:
    (project / "notes").mkdir()
    for i in range(1, 17):
        (project / "notes" / f"f{i}.txt").write_text(
            f"file {i}\n"
            + "".join(f"数据行 {i}-{n} data line with some english words\n" for n in range(400)),
            encoding="utf-8",
        )
    turns = [f"第{i}轮：请读取 notes/f{i}.txt 并总结要点" for i in range(1, 15)]  # enough for a summary
    script = "\n".join(
        [*turns, "/compact 保留每一轮读过的文件名", "第15轮：请读取 notes/f15.txt 并总结要点", "/exit"]
    )
    with FakeOpenAIServer(responder=responder) as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_CONTEXT_WINDOW=str(WINDOW))
        proc = run_paicli([], env, project, stdin=script + "\n", timeout=180)
        assert proc.returncode == 0, proc.stderr
        requests = server.requests
        assert server.violations == []

    prompts = [json.dumps(r["messages"], ensure_ascii=False) for r in requests]
    assert any("[工具输出过大，完整内容已卸载到会话文件]" in p for p in prompts)
    offloaded = list((project / ".paicli" / "tool-outputs").glob("session-*/*-read_file.txt"))
    assert offloaded
    for path in offloaded:  # the whole read_file output is kept: first and last line of the file
        text = path.read_text(encoding="utf-8")
        assert "数据行" in text and "-0 data line" in text and "-399 data line" in text
    assert (project / ".paicli" / "tool-outputs" / ".gitignore").read_text() == "*\n"
    assert any("[已清理的旧工具结果]" in p for p in prompts)
    summaries = [r for r in requests if is_summary_request(r)]
    assert len(summaries) >= 2, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert all(h in str(summaries[0]["messages"][-1]["content"]) for h in HEADINGS)
    assert "保留每一轮读过的文件名" in str(summaries[-1]["messages"][-1]["content"])
    last_main = [r for r in requests if not is_summary_request(r)][-1]
    assert "[已压缩的历史对话摘要]" in json.dumps(last_main["messages"], ensure_ascii=False)
    sizes = [count_tokens(prompt_text(r)) for r in requests]
    assert max(sizes) <= WINDOW, sizes
    assert "📦" in proc.stdout + proc.stderr
