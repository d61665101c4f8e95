"""Issue 38 end to end (piped REPL against the loopback server): what the user said survives a summariser that
fails, returns garbage or returns a hollow summary; an `@file` request is kept as typed with the file named;
the counts of left-out statements carry across folds; no request is ever over the window."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from paicli.context.markers import NOTE_PREFIX, REQUESTS_LINE
from paicli.testing.openai_server import (
    FakeOpenAIServer,
    Reply,
    count_tokens,
    is_summary_request,
    prompt_text,
)
from paicli.testing.proc import paicli_env, run_paicli

WINDOW = 8_000
HEADINGS = (
    "## 当前目标与成功条件",
    "## 用户要求与已确认决定",
    "## 已完成工作及证据",
    "## 未解决问题与下一步",
)
HOLLOW = "\n".join(f"{h}\n按用户之前的说明继续处理。" for h in HEADINGS)
FACTS = {
    "staging 数据库的主机是 db-stg-02.orion.internal": "db-stg-02.orion.internal",
    "发版分支叫 release/2027-q1": "release/2027-q1",
    "the payments service listens on port 8443": "8443",
    "产品负责人是李思雨": "李思雨",
}


def summariser(mode: str) -> Reply | str:
    if mode == "failing":
        return Reply.error(500, "summary model down")
    if mode == "garbage":
        return "好的，我明白了。" * 40
    return HOLLOW


def responder(mode: str) -> Any:
    def respond(body: dict[str, Any]) -> Reply | str:
        if is_summary_request(body):
            return summariser(mode)
        turn = next(str(m["content"]) for m in reversed(body["messages"]) if m["role"] == "user")
        number = re.search(r"第 (\d+) 轮", turn)
        return (
            f"第 {number.group(1) if number else '?'} 轮完成："
            + "这一轮的情况已经核对清楚，结论和依据都整理好了。" * 16
        )

    return respond


def run_session(project: Path, home: Path, turns: list[str], mode: str) -> tuple[list[dict[str, Any]], str]:
    with FakeOpenAIServer(responder=responder(mode)) as server:
        env = paicli_env(home, server.base_url, PAICLI_CONTEXT_WINDOW=str(WINDOW))
        proc = run_paicli([], env, project, stdin="\n".join([*turns, "/exit"]) + "\n", timeout=240)
        requests = server.requests
        server.assert_no_violations()
    assert proc.returncode == 0, proc.stderr[-3000:]
    sizes = [count_tokens(prompt_text(r)) for r in requests]
    assert max(sizes) <= WINDOW, sizes
    return requests, proc.stdout + proc.stderr


def routine(turn: int) -> str:
    return (
        f"第 {turn} 轮：请运行命令看看第 {turn} 批的数据量，和上一批比较一下有没有明显的变化，有的话说说原因"
    )


def last_main(requests: list[dict[str, Any]]) -> str:
    """The conversation of the last agent request (the system prompt, which explains the markers, left out)."""
    main = [r for r in requests if not is_summary_request(r)]
    return json.dumps(main[-1]["messages"][1:], ensure_ascii=False)


@pytest.mark.parametrize("mode", ["failing", "garbage", "hollow"])
def test_the_users_statements_survive_a_summariser_that_fails_or_is_bad(
    project: Path, isolated_home: Path, mode: str
) -> None:
    turns = [f"第 {i} 轮：{fact}。先看看相关模块。" for i, fact in enumerate(FACTS, start=1)]
    turns += [routine(i) for i in range(len(FACTS) + 1, 25)]
    requests, output = run_session(project, isolated_home, turns, mode)
    assert any(is_summary_request(r) for r in requests)  # summaries were asked for ...
    last = last_main(requests)
    assert "[已压缩的历史对话摘要]" not in last and NOTE_PREFIX in last  # ... none was used
    assert all(value in last for value in FACTS.values()), last[:3000]
    assert "/compact show" in output  # the line before an automatic summary
    assert "已把最早的几轮对话折叠成" in output or "折叠成一份记录" in output


def test_an_attached_file_request_is_kept_as_typed_with_the_file_named(
    project: Path, isolated_home: Path
) -> None:
    (project / "docs").mkdir()
    body = "".join(f"spec line {n}: the rollout proceeds region by region (token_{n})\n" for n in range(80))
    (project / "docs" / "spec.md").write_text(body, encoding="utf-8")
    typed = "第 1 轮：请对照 @docs/spec.md 检查一下，部署主机是 deploy-7.lan"
    requests, _ = run_session(project, isolated_home, [typed, *[routine(i) for i in range(2, 24)]], "failing")
    first = next(r for r in requests if not is_summary_request(r))
    assert "token_79" in json.dumps(first["messages"], ensure_ascii=False)  # the model got the file
    last = last_main(requests)
    assert NOTE_PREFIX in last
    assert (
        json.dumps(f"- {typed}\n  （附带的内容未列出：文件 docs/spec.md）", ensure_ascii=False)[1:-1] in last
    )
    assert "token_79" not in last


def test_counts_of_left_out_statements_carry_across_folds(project: Path, isolated_home: Path) -> None:
    turns = [
        f"第 {i} 轮：需求 {i} 的说明：" + "，".join(f"需求{i}的第{k}项细节要核对" for k in range(12))
        for i in range(1, 36)
    ]
    requests, output = run_session(project, isolated_home, turns, "failing")
    main = [r for r in requests if not is_summary_request(r)]
    last_messages = main[-1]["messages"]
    note = next(
        str(m["content"]) for m in last_messages if str(m.get("content") or "").startswith(NOTE_PREFIX)
    )
    users = [str(m["content"]) for m in last_messages if m["role"] == "user"]
    kept_turns = {int(n) for text in users[1:] for n in re.findall(r"^第 (\d+) 轮", text)}
    listing = note.split(REQUESTS_LINE, 1)[1].split("\n移出的", 1)[0]
    listed = {int(n) for n in re.findall(r"(?m)^- 第 (\d+) 轮", listing)}
    gaps = sum(int(n) for n in re.findall(r"这里还有 (\d+) 条用户请求未列出", listing))
    folded = 35 - len(kept_turns)
    assert gaps > 0 and len(listed) + gaps == folded, (sorted(listed), gaps, sorted(kept_turns))
    folds = sum(1 for line in output.splitlines() if "折叠成一份记录" in line)
    assert folds >= 2
    assert "你说过的话按原文保留" not in output.split("折叠成一份记录")[-2]  # the last fold left some out
