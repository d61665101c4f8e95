"""Start-up warm-up (issue 13): steps run in the background, a run that must wait says what for, a cancel
ends the wait, and a session that needs nothing warm (-p with an empty store) starts no thread at all."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from paicli.agent.events import AgentEvent, ModelCallStarted, RunFinished, Waiting
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.warmup import MEMORY_DICTIONARY, MEMORY_INDEX, TOKEN_ENCODER, WarmStep, WarmUp, startup_warmup
from paicli.memory.entry import new_fact
from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.served_session import served_parts

TIMEOUT = 30


def _block(gate: threading.Event) -> None:
    gate.wait(TIMEOUT)


def test_a_waiting_caller_is_told_each_step_it_waits_for() -> None:
    released = {"A": threading.Event(), "B": threading.Event()}
    ran: list[str] = []

    def step(label: str) -> WarmStep:
        def run() -> None:
            assert released[label].wait(TIMEOUT)
            ran.append(label)

        return WarmStep(label, run)

    warmup = WarmUp([step("A"), step("B")]).start()
    told: list[str] = []

    def on_wait(label: str) -> None:
        told.append(label)
        released[label].set()  # the step finishes only once the waiter has been told about it

    assert warmup.wait(on_wait, lambda: False)
    assert told == ["A", "B"] and ran == ["A", "B"]
    assert warmup.done and warmup.pending() is None


def test_a_failing_step_does_not_stop_the_others() -> None:
    ran: list[str] = []

    def boom() -> None:
        raise RuntimeError("dictionary missing")

    warmup = WarmUp([WarmStep("A", boom), WarmStep("B", lambda: ran.append("B"))]).start()
    assert warmup.wait(lambda _label: None, lambda: False)
    assert ran == ["B"]


def test_cancel_ends_the_wait() -> None:
    gate = threading.Event()
    warmup = WarmUp([WarmStep("A", lambda: _block(gate))]).start()
    cancel = CancelToken()
    try:
        assert not warmup.wait(lambda _label: cancel.cancel(), lambda: cancel.cancelled)
        assert warmup.pending() == "A"
    finally:
        gate.set()


class _Memory:
    def __init__(self, stored: int) -> None:
        self.stored = stored
        self.calls: list[str] = []

    def has_memories(self) -> bool:
        return self.stored > 0

    def warm_tokenizer(self) -> None:
        self.calls.append("tokenizer")

    def warm_index(self) -> None:
        self.calls.append("index")


class _Counter:
    def __init__(self) -> None:
        self.counted: list[str | None] = []

    def count_text(self, text: str | None) -> int:
        self.counted.append(text)
        return 1


def test_only_what_the_session_needs_is_warmed() -> None:
    empty, counter = _Memory(0), _Counter()
    oneshot = startup_warmup(empty, counter, count_context=False)
    assert oneshot.done and oneshot.pending() is None  # -p with an empty store: nothing to do, no thread
    stored = _Memory(200)
    repl = startup_warmup(stored, counter, count_context=True).start()
    assert repl.wait(lambda _label: None, lambda: False)
    assert stored.calls == ["tokenizer", "index"] and counter.counted == ["预热"]
    labels: list[str] = []
    startup_warmup(_Memory(1), _Counter(), count_context=True).wait(labels.append, lambda: False)
    assert set(labels) <= {MEMORY_DICTIONARY, MEMORY_INDEX, TOKEN_ENCODER}


def test_the_first_run_waits_for_the_warmup_and_says_so(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好的。") as server:
        parts = served_parts(tmp_path, server.base_url)
        parts.memory.store.store(new_fact("发布窗口是每周四晚上", {"scope": "global"}, parts.memory.clock))
        backend = AppBackend(parts)
        gate = threading.Event()
        requests_when_told: list[int] = []

        def slow_dictionary() -> None:
            assert gate.wait(TIMEOUT)
            parts.memory.warm_tokenizer()

        backend.state.warmup = WarmUp(
            [WarmStep(MEMORY_DICTIONARY, slow_dictionary), WarmStep(MEMORY_INDEX, parts.memory.warm_index)]
        ).start()
        events: list[AgentEvent] = []

        def emit(event: AgentEvent) -> None:
            events.append(event)
            if isinstance(event, Waiting):
                requests_when_told.append(len(server.requests))
                gate.set()

        try:
            finished = backend.run("发布窗口是什么时候？", "react", emit, CancelToken())
        finally:
            gate.set()
            backend.close()
        requests: list[dict[str, Any]] = list(server.requests)
    assert finished.status == "done"
    waits = [e.what for e in events if isinstance(e, Waiting)]
    assert waits[0] == MEMORY_DICTIONARY and set(waits) <= {MEMORY_DICTIONARY, MEMORY_INDEX}
    assert requests_when_told[0] == 0  # told before anything left for the model
    first_model_call = next(i for i, e in enumerate(events) if isinstance(e, ModelCallStarted))
    assert all(i < first_model_call for i, e in enumerate(events) if isinstance(e, Waiting))
    assert not any(isinstance(e, RunFinished) for e in events)  # the outcome is returned, never emitted
    assert "每周四晚上" in str(requests[0]["messages"][-1]["content"])
    assert (tmp_path / ".paicli" / "memory" / "long_term_memory.vectors.npz").exists()


def test_a_cancel_while_waiting_ends_the_run_before_any_request(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好的。") as server:
        parts = served_parts(tmp_path, server.base_url)
        backend = AppBackend(parts)
        gate = threading.Event()
        backend.state.warmup = WarmUp([WarmStep(MEMORY_DICTIONARY, lambda: _block(gate))]).start()
        cancel = CancelToken()

        def emit(event: AgentEvent) -> None:
            if isinstance(event, Waiting):
                cancel.cancel()

        try:
            finished = backend.run("你好", "react", emit, cancel)
        finally:
            gate.set()
            backend.close()
        assert finished.status == "cancelled"
        assert server.requests == []


@pytest.mark.fresh_dictionary
def test_a_oneshot_run_with_an_empty_store_never_loads_the_dictionary(
    project: Path, isolated_home: Path
) -> None:
    from paicli.testing.proc import paicli_env, run_paicli

    with FakeOpenAIServer(default_reply="好的。") as server:
        proc = run_paicli(["-p", "你好"], paicli_env(isolated_home, server.base_url), project)
    assert proc.returncode == 0, proc.stderr
    cache = isolated_home / ".paicli" / "cache"
    assert not (cache / "jieba.cache").exists()  # jieba writes its dictionary cache on first load
    assert not list((isolated_home / ".paicli").rglob("*.vectors.npz"))


def test_stream_json_reports_the_wait_as_its_own_event() -> None:
    from paicli.cli.oneshot import describe_event, event_to_json

    assert event_to_json(Waiting(MEMORY_DICTIONARY)) == {"type": "waiting", "what": MEMORY_DICTIONARY}
    assert describe_event(Waiting(MEMORY_DICTIONARY)) is None  # text mode stays quiet on stderr


def test_stopping_lets_the_step_under_way_finish_and_skips_the_rest() -> None:
    """At interpreter exit (atexit) no warm-up step may still be running numpy on the daemon thread."""
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def first() -> None:
        started.set()
        release.wait(TIMEOUT)
        ran.append("index")

    warmup = WarmUp([WarmStep("A", first), WarmStep("B", lambda: ran.append("encoder"))]).start()
    assert started.wait(TIMEOUT)
    stopper = threading.Thread(target=warmup.stop, args=(TIMEOUT,))
    stopper.start()
    while stopper.is_alive() and not warmup._stopping:  # stop() has asked before the step ends
        stopper.join(0.01)
    release.set()
    stopper.join(TIMEOUT)
    assert not stopper.is_alive()
    assert ran == ["index"] and warmup.done and warmup.pending() is None
