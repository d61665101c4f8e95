"""`recall` (issue 38): the exact original text by recall id, or ranked by query over this project's ledgers."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from paicli.agent.conversation import Conversation
from paicli.config.compaction_values import OffloadValues
from paicli.context.offload import ToolResultOffloader
from paicli.llm.messages import Message, ToolCall
from paicli.memory.vector import document_tokens
from paicli.redact import Redactor
from paicli.session.ledger import ConversationLedger
from paicli.session.recall_search import Record, bm25_scores, excerpt, lookup, rank
from paicli.tools.recall import RECALL, RecallTool
from paicli.tools.registry import Tool
from paicli.tools.runner import ToolRunner
from tests.tools.helpers import env, make_runner, run_one

KEY = "sk-test-0123456789abcdef0123"


def ledger_in(home: Path, project: Path) -> ConversationLedger:
    return ConversationLedger.create(home, project, "m", "p", "0", secrets=[KEY])


def session(
    home: Path, project: Path, talk: list[tuple[str, str]], actor: str = "agent"
) -> ConversationLedger:
    """A session of `project` whose conversation said `talk` ((user, answer) pairs), one read_file per turn."""
    ledger = ledger_in(home, project)
    conversation = Conversation("sys", ledger=ledger)
    for n, (user, answer) in enumerate(talk, start=1):
        call = ToolCall(f"c{n}", "read_file", f'{{"path":"f{n}"}}')
        conversation.append(Message.user(user), "user_input")
        conversation.append(Message.assistant(None, (call,)), "llm_response")
        body = f'<tool_result tool="read_file" trust="untrusted-data">\n文件{n}的全文\n</tool_result>'
        conversation.append(Message.tool(call.id, body), "tool_execution")
        conversation.append_answer(Message.assistant(answer), "llm_response")
    return ledger


def runner(
    project: Path,
    home: Path,
    ledger: ConversationLedger,
    tokens: Callable[[str], list[str]] = document_tokens,
) -> ToolRunner:
    made = make_runner(project)
    tool = RecallTool(home, project, lambda: (ledger.path, ledger.session_id), ledger.redactor.text, tokens)
    made.register(Tool(RECALL, tool))
    return made


def split_tokens(text: str) -> list[str]:
    return text.lower().replace("，", " ").split()


def test_the_spec_is_read_only_parallel_safe_and_asks_before_a_memory_write() -> None:
    assert RECALL.read_only and RECALL.runs_in_parallel and RECALL.reads_project and not RECALL.external
    definition = RECALL.definition()
    assert definition["function"]["name"] == "recall"
    assert set(definition["function"]["parameters"]["properties"]) == {"id", "query", "top_k"}
    assert json.dumps(definition, ensure_ascii=False) == json.dumps(RECALL.definition(), ensure_ascii=False)


def test_by_id_one_message_or_the_span_a_summary_replaced(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    ledger = session(home, project, [("第一个问题", "第一个回答"), ("第二个问题", "第二个回答")])
    made = runner(project, home, ledger)
    entries = ledger.read_all()
    tool_entry = next(e for e in entries if e.event == "tool_result")
    result, text = run_one(made, "recall", json.dumps({"id": f"recall:r{tool_entry.sequence}"}))
    assert result.success
    assert text.endswith(f"--- #{tool_entry.sequence} 工具结果（read_file） ---\n文件1的全文")
    first = min(e.sequence for e in entries if e.event == "user")
    last = max(e.sequence for e in entries if e.event == "assistant")
    _, span = run_one(made, "recall", json.dumps({"id": f"r{first}-{last}"}))
    for piece in ("第一个问题", "第一个回答", "文件1的全文", "第二个问题", "文件2的全文", "第二个回答"):
        assert piece in span
    assert span.index("第一个问题") < span.index("第二个回答") and "8 条原始消息" in span
    missing, text = run_one(made, "recall", json.dumps({"id": "r99999"}))
    assert not missing.success and "r99999" in text
    bad, text = run_one(made, "recall", json.dumps({"id": "第三条"}))
    assert not bad.success and "无法识别" in text
    empty, text = run_one(made, "recall", "{}")
    assert not empty.success and "id" in text and "query" in text


def test_an_offloaded_original_comes_back_from_its_file_and_secrets_stay_redacted(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    ledger = ledger_in(home, project)
    offloader = ToolResultOffloader(project, OffloadValues.parse(env()), redact=Redactor([KEY]).text)
    big = "".join(f"line {n} value-{n}\n" for n in range(3000)) + f"token={KEY}\n"
    notice = offloader.offload_if_oversized("grep_code", "{}", big)
    conversation = Conversation("sys", ledger=ledger)
    call = ToolCall("c1", "grep_code", "{}")
    conversation.append(Message.user("搜一下"), "user_input")
    conversation.append(Message.assistant(None, (call,)), "llm_response")
    conversation.append(Message.tool(call.id, notice), "tool_execution")
    made = runner(project, home, ledger)
    offload_id = notice.split("\n", 1)[0].split("recall:", 1)[1]
    _, by_file = run_one(made, "recall", json.dumps({"id": offload_id}))
    assert "完整原文在 .paicli/tool-outputs/" in by_file and "line 0 value-0" in by_file
    assert KEY not in by_file
    sequence = next(e.sequence for e in ledger.read_all() if e.event == "tool_result")
    _, by_entry = run_one(made, "recall", json.dumps({"id": f"r{sequence}"}))
    assert "line 0 value-0" in by_entry and "[工具输出过大" not in by_entry  # the file, not the notice
    unparsed, _ = run_one(made, "recall", json.dumps({"id": "../../etc/001-passwd"}))
    assert not unparsed.success
    secret_dir = tmp_path / "elsewhere"
    secret_dir.mkdir()
    (secret_dir / "001-x.txt").write_text("outside the project", encoding="utf-8")
    (project / ".paicli" / "tool-outputs" / "planted").symlink_to(secret_dir)  # planted by a repository
    outside, text = run_one(made, "recall", json.dumps({"id": "planted/001-x"}))
    assert not outside.success and "outside the project" not in text


def test_a_query_ranks_this_projects_sessions_and_never_another_projects(tmp_path: Path) -> None:
    home, project, other = tmp_path / "home", tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    session(home, other, [("发版分支 叫 other-9", "好")])
    earlier = session(home, project, [("发版分支 叫 release-7", "记下了"), ("数据库 在 db-7", "好")])
    current = session(home, project, [("今天 做什么", "写代码")])
    made = runner(project, home, current, tokens=split_tokens)
    result, text = run_one(made, "recall", json.dumps({"query": "发版分支", "top_k": 3}))
    assert result.success and "release-7" in text and "other-9" not in text
    assert f"id {earlier.session_id}:r" in text and "用户" in text
    sequence = int(text.split(f"{earlier.session_id}:r", 1)[1].split(" ", 1)[0])
    _, exact = run_one(made, "recall", json.dumps({"id": f"{earlier.session_id}:r{sequence}"}))
    assert exact.endswith(f"--- #{sequence} 用户 ---\n发版分支 叫 release-7")
    _, nothing = run_one(made, "recall", json.dumps({"query": "完全无关"}))
    assert "没有找到" in nothing


def test_another_projects_session_cannot_be_read_by_id(tmp_path: Path) -> None:
    home, project, other = tmp_path / "home", tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    foreign = session(home, other, [("别的项目的秘密计划", "好")])
    current = session(home, project, [("你好", "你好")])
    made = runner(project, home, current)
    refused, text = run_one(made, "recall", json.dumps({"id": f"{foreign.session_id}:r2"}))
    assert not refused.success and "秘密计划" not in text


def test_search_helpers_stay_within_one_conversation_and_rank_by_bm25() -> None:
    records = [
        Record("s", 1, 1, "react", "agent", "user_input", "user", "alpha beta"),
        Record("s", 2, 2, "plan", "task:1", "task_input", "user", "gamma alpha"),
        Record("s", 3, 3, "react", "agent", "llm_response", "assistant", "delta"),
    ]
    assert [r.sequence for r in lookup(records, 1, 3)] == [
        1,
        3,
    ]  # the plan task's entry is another conversation
    hits = rank(records, ["alpha"], lambda r: r.text.split(), 5)
    assert {h.record.sequence for h in hits} == {1, 2}
    assert rank(records, ["zeta"], lambda r: r.text.split(), 5) == []
    text = "x" * 1000 + "needle" + "y" * 1000
    piece = excerpt(text, ["needle"], 100)
    assert "needle" in piece and piece.startswith("…") and piece.endswith("…")


def test_a_large_recall_is_offloaded_by_the_runner_like_any_large_result(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    talk = [(f"第{n}个问题 " + "细节" * 400, f"第{n}个回答") for n in range(1, 6)]
    ledger = session(home, project, talk)
    offloader = ToolResultOffloader(
        project, OffloadValues.parse(env({"PAICLI_TOOL_OFFLOAD_THRESHOLD_CHARS": "2000"}))
    )
    made = make_runner(project, offloader=offloader)
    tool = RecallTool(home, project, lambda: (ledger.path, ledger.session_id), ledger.redactor.text)
    made.register(Tool(RECALL, tool))
    sequences = [e.sequence for e in ledger.read_all() if e.message is not None and e.event != "system"]
    _, text = run_one(made, "recall", json.dumps({"id": f"r{sequences[0]}-{sequences[-1]}"}))
    assert text.startswith("[工具输出过大，完整内容已卸载到会话文件] recall:")
    saved = next((project / ".paicli" / "tool-outputs").glob("*/*-recall.txt")).read_text(encoding="utf-8")
    assert all(question in saved for question, _ in talk)  # the whole span is in the file


def test_bm25_is_okapi_with_a_floored_idf_for_words_in_most_documents() -> None:
    corpus = [["a", "b"], ["b", "c"], ["b", "d"], ["c", "c", "c", "c"]]
    rare = math.log(4 - 1 + 0.5) - math.log(1 + 0.5)  # "a": in one document of four
    scores = bm25_scores(corpus, ["a"])
    norm = 1.5 * (1 - 0.75 + 0.75 * 2 / 2.5)  # k1 (1 - b + b |d| / avgdl), |d| = 2, avgdl = 10 / 4
    assert scores[0] == pytest.approx(rare * 2.5 / (1 + norm)) and scores[1:] == [0.0, 0.0, 0.0]
    common = bm25_scores(corpus, ["b"])  # in three of four: a negative idf, floored to 0.25 x the average
    idf_b = math.log(4 - 3 + 0.5) - math.log(3 + 0.5)
    idf_c = math.log(4 - 2 + 0.5) - math.log(2 + 0.5)
    floor = 0.25 * (idf_b + idf_c + 2 * rare) / 4
    assert idf_b < 0 and common[0] == pytest.approx(floor * 2.5 / (1 + norm)) and common[3] == 0.0
    assert bm25_scores(corpus, ["zzz"]) == [0.0] * 4
