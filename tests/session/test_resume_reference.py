"""Resume by reference: `-c` appends what it continues instead of a copy of the conversation, and an unchanged
system prompt is a reference to the last stored one; the fold gives the same view, old ledgers still resume."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from paicli.cli.session_restore import view_reference
from paicli.llm.messages import Message
from paicli.session.ledger import ConversationLedger
from paicli.session.ledger_keys import VIEW_REFERENCE_EVENT
from paicli.session.ownership import fork_session
from paicli.session.resume import load_view
from paicli.session.system_refs import SYSTEM_UNCHANGED_EVENT, recent_systems

from .fold_driver import new_session, resume, step


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


@pytest.mark.parametrize("seed", range(6))
def test_resumes_by_reference_fold_to_the_live_view_and_copy_no_view(tmp_path: Path, seed: int) -> None:
    session = new_session(tmp_path, seed)
    rng = random.Random(seed)
    for turn in range(1, 21):
        step(session, turn)
        if rng.random() < 0.3:
            resume(session)
        assert session.ledger.path is not None
        folded = load_view(session.ledger.path)
        assert folded.messages == session.agent.history[1:], (seed, turn)
    assert session.ledger.path is not None
    entries = _lines(session.ledger.path)
    references = [e for e in entries if e["event"] == VIEW_REFERENCE_EVENT]
    assert references, "the seeds must resume by reference at least once"
    assert all(set(e["metadata"]) == {"sessionId", "sequence", "checkpointSequence"} for e in references)


@pytest.mark.parametrize("seed", range(3))
def test_a_fork_folds_to_the_same_view_as_its_source(tmp_path: Path, seed: int) -> None:
    session = new_session(tmp_path, seed)
    for turn in range(1, 13):
        step(session, turn)
        if turn % 4 == 0:
            resume(session)
    assert session.ledger.path is not None
    fork = fork_session(session.ledger.path)
    assert load_view(fork).messages == load_view(session.ledger.path).messages == session.agent.history[1:]


def test_an_unchanged_system_prompt_is_stored_once_across_processes(tmp_path: Path) -> None:
    first = ConversationLedger.create(tmp_path / "home", tmp_path, "m", "p", "0")
    prompt = Message.system("你是 paicli。" + "规则。" * 500)
    first.append_message("react", "agent", "session_attach", prompt)
    first.append_message("react", "agent", "memory_context_refresh", prompt)
    first.close()
    assert first.path is not None
    again = ConversationLedger.open_existing(first.path)
    again.append_message("react", "agent", "session_attach", prompt)
    again.append_message("plan", "task:t1", "system_prompt", prompt)  # another actor stores its own copy
    again.append_message("react", "agent", "memory_context_refresh", Message.system("新的提示"))
    entries = _lines(first.path)
    events = [(e["event"], e["actor"]) for e in entries[1:]]
    assert events == [
        ("system", "agent"),
        (SYSTEM_UNCHANGED_EVENT, "agent"),
        (SYSTEM_UNCHANGED_EVENT, "agent"),
        ("system", "task:t1"),
        ("system", "agent"),
    ]
    assert entries[2]["metadata"]["sameAsSequence"] == entries[3]["metadata"]["sameAsSequence"] == 2
    assert len(json.dumps(entries[3])) < 400
    found = recent_systems(first.path, "react", "agent")
    assert [ref.sequence for ref in found.values()] == [2, entries[-1]["sequence"]]  # oldest first


def test_two_prompts_that_alternate_across_processes_are_each_stored_once(tmp_path: Path) -> None:
    # each -c writes its attach prompt, then the one whose tool list names the request's tools (issue 49)
    attach = Message.system("你是 paicli。工具：read_file" + "规则。" * 500)
    refreshed = Message.system("你是 paicli。工具：read_file create_project" + "规则。" * 500)
    first = ConversationLedger.create(tmp_path / "home", tmp_path, "m", "p", "0")
    first.append_message("react", "agent", "session_attach", attach)
    first.append_message("react", "agent", "tool_list_refresh", refreshed)
    first.close()
    assert first.path is not None
    for _ in range(3):
        again = ConversationLedger.open_existing(first.path)
        again.append_message("react", "agent", "session_attach", attach)
        again.append_message("react", "agent", "tool_list_refresh", refreshed)
        again.close()
    entries = _lines(first.path)[1:]
    assert [e["event"] for e in entries] == ["system", "system"] + [SYSTEM_UNCHANGED_EVENT] * 6
    stored = {e["sequence"]: e["message"]["content"] for e in entries[:2]}
    named = [stored[e["metadata"]["sameAsSequence"]] for e in entries[2:]]
    assert named == [attach.content, refreshed.content] * 3  # each reference names its own text


def test_a_reference_names_only_one_of_the_last_few_distinct_prompts(tmp_path: Path) -> None:
    prompts = [Message.system(f"提示 {i}：" + "规则。" * 200) for i in range(6)]
    first = ConversationLedger.create(tmp_path / "home", tmp_path, "m", "p", "0")
    for prompt in prompts:
        first.append_message("react", "agent", "memory_context_refresh", prompt)
    first.close()
    assert first.path is not None
    again = ConversationLedger.open_existing(first.path)
    again.append_message("react", "agent", "session_attach", prompts[-1])  # recent: a reference
    again.append_message("react", "agent", "session_attach", prompts[0])  # five prompts back: stored again
    assert [e["event"] for e in _lines(first.path)[-2:]] == [SYSTEM_UNCHANGED_EVENT, "system"]


def test_view_reference_only_when_the_fold_needs_no_repair(tmp_path: Path) -> None:
    ledger = ConversationLedger.create(tmp_path / "home", tmp_path, "m", "p", "0")
    ledger.append_message("react", "agent", "user_input", Message.user("读文件"))
    from paicli.llm.messages import ToolCall

    call = ToolCall("c1", "read_file", '{"path":"a"}')
    ledger.append_message("react", "agent", "llm_response", Message.assistant("", (call,)))
    assert ledger.path is not None
    result = load_view(ledger.path)
    assert result.repaired == 1
    assert view_reference("s", result) is None  # the repaired view is checkpointed in full, as before


def test_an_old_ledger_with_copied_resume_checkpoints_still_resumes(tmp_path: Path) -> None:
    ledger = ConversationLedger.create(tmp_path / "home", tmp_path, "m", "p", "0")
    view = [Message.user("你好"), Message.assistant("好的")]
    for message in view:
        ledger.append_message("react", "agent", "user_input", message)
    ledger.append_message("react", "agent", "session_attach", Message.system("提示"))
    ledger.record_view_checkpoint("session_resumed", view)  # what earlier versions wrote on every resume
    ledger.append_message("react", "agent", "user_input", Message.user("继续"))
    assert ledger.path is not None
    assert load_view(ledger.path).messages == [*view, Message.user("继续")]
