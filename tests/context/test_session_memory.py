from __future__ import annotations

from collections.abc import Callable

from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.session_memory import SessionMemoryCompactor, preserve_from
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message
from paicli.testing.scripted_llm import Request, ScriptedLLM
from tests.context.helpers import climb_at, keeping_summary

COUNTER = TokenCounter("heuristic")
TRIGGER = 80_000


def turns(count: int, start: int = 0) -> list[Message]:
    messages: list[Message] = []
    for i in range(start, start + count):
        messages += [Message.user(f"Q{i} " + "问" * 2250), Message.assistant(f"A{i} " + "答" * 2250)]
    return messages


def history_of(count: int) -> list[Message]:
    return [Message.system("sys"), *turns(count)]


class Deferred:
    def __init__(self) -> None:
        self.jobs: list[Callable[[], None]] = []

    def __call__(self, job: Callable[[], None]) -> None:
        self.jobs.append(job)

    def run_all(self) -> None:
        jobs, self.jobs = self.jobs, []
        for job in jobs:
            job()


def compactor(
    llm: ScriptedLLM, submit: Callable[[Callable[[], None]], None], enabled: bool = True
) -> SessionMemoryCompactor:
    return SessionMemoryCompactor(COUNTER.count_messages, enabled, submit)


def test_disabled_compactor_never_calls_the_model() -> None:
    llm = ScriptedLLM(default_reply="记忆")
    sm = compactor(llm, lambda job: job(), enabled=False)
    history = history_of(20)
    assert not sm.prepare_if_needed(history, TRIGGER, llm=llm)
    assert not sm.compact_if_ready(history, TRIGGER)
    assert llm.calls == 0


def test_prepares_between_sixty_percent_and_trigger_only() -> None:
    llm = ScriptedLLM(default_reply="记忆")
    sm = compactor(llm, lambda job: job())
    assert not sm.prepare_if_needed(history_of(10), TRIGGER, llm=llm)  # 30k < 48k
    assert not sm.prepare_if_needed(history_of(30), TRIGGER, llm=llm)  # 90k >= trigger
    assert llm.calls == 0
    assert sm.prepare_if_needed(history_of(20), TRIGGER, llm=llm)
    assert llm.calls == 1


def test_preserve_from_keeps_recent_real_turns() -> None:
    history = history_of(20)
    index = preserve_from(history, COUNTER.count_messages)
    assert index is not None and history[index].content is not None
    assert history[index].content.startswith("Q16")  # 4 turns = 12k tokens and 8 text messages
    assert preserve_from(history_of(1), COUNTER.count_messages) == 1


def test_ready_snapshot_replaces_old_turns_without_waiting() -> None:
    llm = ScriptedLLM(default_reply="会话记忆：正在重构")
    sm = compactor(llm, lambda job: job())
    history = history_of(20)
    sm.prepare_if_needed(history, TRIGGER, llm=llm)
    request = llm.requests[0]
    assert request.tools is None and request.messages[0].role == "system"
    assert "Q0" in (request.messages[1].content or "") and "Q16" not in (request.messages[1].content or "")
    history += turns(5, start=20)  # the history grows past the trigger
    identity = id(history)
    assert sm.compact_if_ready(history, 200_000)
    assert id(history) == identity
    assert history[1].content == "[会话记忆摘要]\n会话记忆：正在重构"
    assert (history[3].content or "").startswith("Q16")
    assert sm.snapshot(history) is None


def test_pending_job_falls_back_to_full_summary() -> None:
    deferred = Deferred()
    llm = ScriptedLLM(default_reply=keeping_summary)
    sm = SessionMemoryCompactor(COUNTER.count_messages, True, deferred)
    mgr = AutoCompactionManager(COUNTER, ContextProfile.from_window(128_000), session_memory=sm)
    history = history_of(20)
    result = climb_at(mgr, history, TRIGGER, llm=llm)
    assert not result.changed and len(deferred.jobs) == 1 and sm.is_pending(history)
    history += turns(8, start=20)
    result = climb_at(mgr, history, TRIGGER, llm=llm)
    assert result.compacted and result.strategy == "full_summary"
    deferred.run_all()  # the stale job finishes after the full summary: its result is dropped
    assert sm.snapshot(history) is None


def test_incremental_update_needs_four_thousand_new_tokens() -> None:
    replies: list[str] = []

    def reply(request: Request) -> str:
        replies.append(request.messages[1].content or "")
        return f"记忆版本{len(replies)}"

    llm = ScriptedLLM(default_reply=reply)
    sm = compactor(llm, lambda job: job())
    history = history_of(17)
    assert sm.prepare_if_needed(history, TRIGGER, llm=llm)
    history.append(Message.user("Q17 短问题"))
    history.append(Message.assistant("A17 短回答"))
    assert not sm.prepare_if_needed(
        history, TRIGGER, llm=llm
    )  # boundary moved by one short turn: < 4,000 tokens
    history += turns(3, start=18)
    assert sm.prepare_if_needed(history, TRIGGER, llm=llm)
    assert "记忆版本1" in replies[-1]  # the update prompt carries the previous memory
    snapshot = sm.snapshot(history)
    assert snapshot is not None and snapshot.summary == "记忆版本2"


def test_state_belongs_to_one_history_and_is_reset_by_clear() -> None:
    llm = ScriptedLLM(default_reply="记忆")
    sm = compactor(llm, lambda job: job())
    first, second = history_of(20), history_of(20)
    sm.prepare_if_needed(first, TRIGGER, llm=llm)
    assert sm.snapshot(first) is not None and sm.snapshot(second) is None
    sm.clear(first)
    assert sm.snapshot(first) is None
    sm.prepare_if_needed(second, TRIGGER, llm=llm)
    assert sm.snapshot(second) is not None


def test_snapshot_whose_boundary_disappeared_is_not_used() -> None:
    llm = ScriptedLLM(default_reply="记忆")
    sm = compactor(llm, lambda job: job())
    history = history_of(20)
    sm.prepare_if_needed(history, TRIGGER, llm=llm)
    history[:] = [history[0], *turns(20, start=100)]
    assert not sm.compact_if_ready(history, 200_000)
    assert sm.snapshot(history) is None


def test_snapshot_not_used_when_result_would_stay_above_trigger() -> None:
    llm = ScriptedLLM(default_reply="记忆")
    sm = compactor(llm, lambda job: job())
    history = history_of(20)
    sm.prepare_if_needed(history, TRIGGER, llm=llm)
    snapshot = list(history)
    assert not sm.compact_if_ready(history, 1_000)
    assert history == snapshot


def test_background_failure_leaves_no_snapshot() -> None:
    llm = ScriptedLLM(default_reply=RuntimeError("down"))
    sm = compactor(llm, lambda job: job())
    history = history_of(20)
    assert sm.prepare_if_needed(history, TRIGGER, llm=llm)
    assert sm.snapshot(history) is None and not sm.is_pending(history)


def test_default_submit_runs_in_a_named_daemon_thread() -> None:
    import threading

    done = threading.Event()
    names: list[str] = []

    def reply(request: Request) -> str:
        names.append(threading.current_thread().name)
        done.set()
        return "记忆"

    sm = SessionMemoryCompactor(COUNTER.count_messages, True)
    sm.prepare_if_needed(history_of(20), TRIGGER, llm=ScriptedLLM(default_reply=reply))
    assert done.wait(10)
    assert names[0].startswith("paicli-session-memory-")
