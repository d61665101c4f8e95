"""Issue 38 end to end: pins through /compact and -c, compaction receipts (ledger, /compact show), /compact
--preview and /compact undo, through the loopback server with the piped REPL and -p."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paicli.context.user_words import values_of
from paicli.testing.openai_server import FakeOpenAIServer, Reply, is_summary_request
from paicli.testing.proc import ledger_entries, paicli_env, run_paicli

SUMMARY = (
    "## 当前目标与成功条件\n闲聊\n"
    "## 用户要求与已确认决定\n未记录\n"
    "## 已完成工作及证据\n未记录\n"
    "## 未解决问题与下一步\n继续"
)
FACT = "发版分支叫 release-7，staging 数据库在 db-7.internal"
RULE = "每次提交前先跑 make lint"


def last_user(body: dict[str, Any]) -> str:
    return next(str(m["content"]) for m in reversed(body["messages"]) if m["role"] == "user")


def conversation_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in body["messages"][1:])


def chat(body: dict[str, Any]) -> Reply | str:
    if is_summary_request(body):
        return SUMMARY
    return "好的。" + "这一轮的回答写得比较长，用来让历史有东西可以压缩。" * 20


def main_requests(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in requests if not is_summary_request(r)]


def request_for(requests: list[dict[str, Any]], turn: str) -> dict[str, Any]:
    return next(r for r in main_requests(requests) if last_user(r).endswith(turn))


def test_pins_stay_verbatim_through_compact_and_come_back_with_continue(
    project: Path, isolated_home: Path
) -> None:
    script = [FACT, "/pin last", f"/pin {RULE}", "/pins", "第2轮：随便聊聊", "第3轮：继续"]
    script += ["/compact", "第4轮：还记得吗", "/context", "/exit"]
    with FakeOpenAIServer(responder=chat) as server:
        env = paicli_env(isolated_home, server.base_url)
        repl = run_paicli([], env, project, stdin="\n".join(script) + "\n")
        continued = run_paicli(["-c", "-p", "第5轮：接着来"], env, project)
        unpinned = run_paicli(["-c"], env, project, stdin="/unpin 1\n第6轮：再来\n/exit\n")
        requests = server.requests
        assert server.violations == []
    assert repl.returncode == continued.returncode == unpinned.returncode == 0, repl.stderr[-2000:]
    assert "📌 已固定第 1 条" in repl.stdout and "📌 已固定第 2 条" in repl.stdout
    assert f"1. {FACT}" in repl.stdout and f"2. {RULE}" in repl.stdout  # /pins, and /context lists them
    assert repl.stdout.count(f"2. {RULE}") == 2

    first = main_requests(requests)[0]["messages"][0]["content"]
    assert "## Pinned" not in first  # no pins, no block: the prompt is what it was before pins existed
    second, third = (
        request_for(requests, t)["messages"][0]["content"] for t in ("第2轮：随便聊聊", "第3轮：继续")
    )
    assert second == third  # the block changes only when a pin changes
    assert "## Pinned" in second and FACT in second and RULE in second
    after = request_for(requests, "第4轮：还记得吗")
    assert "[已压缩的历史对话摘要] recall:r" in conversation_text(after)
    assert FACT not in conversation_text(after)  # summarised away from the conversation...
    assert FACT in after["messages"][0]["content"] and RULE in after["messages"][0]["content"]  # ...pinned
    resumed = request_for(requests, "第5轮：接着来")["messages"][0]["content"]
    assert FACT in resumed and RULE in resumed  # -c restores the pins from the ledger
    last = request_for(requests, "第6轮：再来")["messages"][0]["content"]
    assert FACT not in last and RULE in last  # /unpin 1 after -c: the rest stays


def keeping_summary(body: dict[str, Any]) -> str:
    """SUMMARY naming every value the user stated (a summary without them is hollow and not used)."""
    said = [str(m.get("content") or "") for m in body["messages"] if m["role"] == "user"]
    values = dict.fromkeys(value for text in said for value in values_of(text))
    return SUMMARY.replace("未记录\n## 已完成", "、".join(values) + "\n## 已完成", 1)


def reading(body: dict[str, Any]) -> Reply | str:
    if is_summary_request(body):
        return keeping_summary(body)
    turn = last_user(body)
    if "轮：请读取" in turn and body["messages"][-1]["role"] == "user":
        number = turn.split("第", 1)[1].split("轮", 1)[0]
        return Reply.tool_calls(("read_file", json.dumps({"path": f"notes/f{number}.txt"})))
    return "读完了。"


def test_receipts_record_what_was_cleared_and_summarised_and_what_it_cost(
    project: Path, isolated_home: Path
) -> None:
    (project / "notes").mkdir()
    for i in range(1, 9):
        text = "".join(f"笔记{i} line {n}: value-{i}-{n} padding padding\n" for n in range(60))
        (project / "notes" / f"f{i}.txt").write_text(text, encoding="utf-8")
    turns = [f"第{i}轮：请读取 notes/f{i}.txt" for i in range(1, 9)]
    script = [*turns, "/compact", "第9轮：好了", "/compact show", "/exit"]
    with FakeOpenAIServer(responder=reading) as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_CONTEXT_WINDOW="16000")
        repl = run_paicli([], env, project, stdin="\n".join(script) + "\n", timeout=180)
        requests, usages = server.requests, server.usages
        assert server.violations == []
    assert repl.returncode == 0, repl.stderr[-2000:]
    entries = ledger_entries(isolated_home)
    receipts = [e for e in entries if e["event"] == "compaction_receipt"]
    clearing = next(r["metadata"] for r in receipts if r["metadata"]["strategy"] == "tool_result_clearing")
    cleared_ids = [item["id"] for item in clearing["replaced"]]
    assert cleared_ids and all(i.startswith("r") for i in cleared_ids)
    placeholders = "\n".join(conversation_text(r) for r in requests)
    assert all(f"[已清理的旧工具结果] recall:{i}" in placeholders for i in cleared_ids)
    assert clearing["predictedUncached"] > 0 and clearing["keptMessages"] > 0

    manual = receipts[-1]["metadata"]
    assert manual["strategy"] == "full_summary" and manual["manual"] is True
    assert manual["summarisedId"].startswith("r") and manual["summarisedMessages"] > 0
    assert manual["summary"].startswith(f"[已压缩的历史对话摘要] recall:{manual['summarisedId']}\n")
    observed = [e for e in entries if e["event"] == "compaction_receipt_observed"]
    after_manual = next(e for e in observed if e["sequence"] > receipts[-1]["sequence"])["metadata"]
    index = next(i for i, r in enumerate(requests) if last_user(r).endswith("第9轮：好了"))
    usage = usages[index]
    assert after_manual["promptTokens"] == usage["prompt_tokens"]  # observed from the provider's usage
    assert after_manual["cachedTokens"] == usage["prompt_tokens_details"]["cached_tokens"]
    assert after_manual["predictedUncached"] == manual["predictedUncached"]

    shown = repl.stdout[repl.stdout.rindex("🧾 压缩回执") :]
    assert f"recall:{manual['summarisedId']}" in shown and "## 当前目标与成功条件" in shown
    assert f"实际 {after_manual['uncachedTokens']:,} tokens" in shown


def test_preview_leaves_the_view_and_undo_restores_it_from_the_ledger(
    project: Path, isolated_home: Path
) -> None:
    script = ["第1轮：你好", "第2轮：在吗", "第3轮：聊聊", "/compact --preview 保留问候语"]
    script += [
        "第4轮：继续",
        "/compact",
        "第5轮：然后",
        "/compact undo",
        "/compact undo",
        "第6轮：最后",
        "/exit",
    ]
    with FakeOpenAIServer(responder=chat) as server:
        env = paicli_env(isolated_home, server.base_url)
        repl = run_paicli([], env, project, stdin="\n".join(script) + "\n")
        continued = run_paicli(["-c", "-p", "第7轮：收尾"], env, project)
        requests = server.requests
        assert server.violations == []
    assert repl.returncode == continued.returncode == 0, repl.stderr[-2000:]
    summaries = [r for r in requests if is_summary_request(r)]
    assert len(summaries) == 2 and "保留问候语" in conversation_text(summaries[0])
    assert "🔍 压缩预览" in repl.stdout and "## 当前目标与成功条件" in repl.stdout

    fourth = conversation_text(request_for(requests, "第4轮：继续"))
    assert "第1轮：你好" in fourth and "[已压缩的历史对话摘要]" not in fourth  # the preview changed nothing
    fifth = conversation_text(request_for(requests, "第5轮：然后"))
    assert "[已压缩的历史对话摘要]" in fifth and "第1轮：你好" not in fifth
    assert "↩️ 已撤销最近一次压缩" in repl.stdout and "已经撤销过了" in repl.stdout
    sixth = request_for(requests, "第6轮：最后")
    users = [str(m["content"]) for m in sixth["messages"] if m["role"] == "user"]
    expected = ["第1轮：你好", "第2轮：在吗", "第3轮：聊聊", "第4轮：继续", "第5轮：然后", "第6轮：最后"]
    assert users == expected  # the view before the compaction, and what came after it
    assert "[已压缩的历史对话摘要]" not in conversation_text(sixth)
    seventh = [
        str(m["content"]) for m in request_for(requests, "第7轮：收尾")["messages"] if m["role"] == "user"
    ]
    assert seventh == [*expected, "第7轮：收尾"]  # the undo is in the ledger: -c continues from it
    entries = ledger_entries(isolated_home)
    undone = [e for e in entries if e["event"] == "compaction_undone"]
    assert len(undone) == 1
    assert any(e["event"] == "view_checkpoint" and e["source"] == "compact_undo" for e in entries)
