"""BackgroundExtraction: the caller gets control back while the extraction model is still working."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.background import BackgroundExtraction, manager_job
from paicli.memory.extractor import AutoFactExtractor, store_extracted
from paicli.memory.store import LongTermMemory
from paicli.testing.scripted_llm import Request, ScriptedLLM

REPLY = json.dumps({"facts": [{"quote": "我偏好简洁的回答"}]}, ensure_ascii=False)


def test_submit_returns_before_the_slow_extractor_is_released(tmp_path: Path) -> None:
    started, release = threading.Event(), threading.Event()

    def slow_reply(request: Request) -> str:
        started.set()
        assert release.wait(10), "test never released the fake model"
        return REPLY

    env = EnvLookup(environ={})
    store = LongTermMemory(tmp_path / "memory", values=MemoryValues.parse(env))
    extractor = AutoFactExtractor(ScriptedLLM([slow_reply]))
    runner = BackgroundExtraction(lambda text: len(store_extracted(store, extractor.extract(text), "/repo")))
    done: list[int] = []

    runner.submit("我偏好简洁的回答。", done.append)

    assert started.wait(10)  # the model call is in flight on the worker thread ...
    assert done == [] and store.get_all() == []  # ... and submit() has already returned
    assert runner.pending == 1
    assert runner.wait(0.01) is False  # cannot finish: the fake is blocked on the event
    release.set()
    assert runner.wait(10) is True
    assert done == [1]
    assert [e.content for e in store.get_all()] == ["我偏好简洁的回答"]


def test_jobs_run_one_at_a_time_in_submission_order() -> None:
    order: list[str] = []
    first_running, release = threading.Event(), threading.Event()

    def job(text: str) -> int:
        if text == "a":
            first_running.set()
            release.wait(10)
        order.append(text)
        return len(text)

    runner = BackgroundExtraction(job)
    counts: list[int] = []
    runner.submit("a", counts.append)
    runner.submit("bb", counts.append)
    assert first_running.wait(10)
    assert order == [] and runner.pending == 2
    release.set()
    assert runner.wait(10)
    assert order == ["a", "bb"] and counts == [1, 2]


def test_failures_never_reach_the_caller_and_the_worker_keeps_going() -> None:
    def job(text: str) -> int:
        if text == "boom":
            raise RuntimeError("model down")
        return 2

    def callback(count: int) -> None:
        results.append(count)
        if count == 2:
            raise ValueError("renderer failed")

    results: list[int] = []
    runner = BackgroundExtraction(job)
    runner.submit("boom", callback)
    runner.submit("ok", callback)
    runner.submit("ok", None)
    assert runner.wait(10)
    assert results == [0, 2]


def test_wait_with_nothing_queued_and_close() -> None:
    runner = BackgroundExtraction(lambda text: 1)
    assert runner.wait(0) is True
    runner.close()
    seen: list[int] = []
    runner.submit("ignored after close", seen.append)
    assert runner.wait(1) and seen == []


def test_manager_job_counts_what_the_manager_saved() -> None:
    class Manager:
        def __init__(self) -> None:
            self.texts: list[tuple[str, object]] = []

        def extract_facts_from_user_turn(self, text: str, extractor: object = None) -> list[str]:
            self.texts.append((text, extractor))
            return ["a", "b"]

    class Quotes:
        def extract(self, text: str, corrects: object = None) -> list[str]:
            return [text]

    manager, session_extractor = Manager(), Quotes()
    runner = BackgroundExtraction(manager_job(manager, session_extractor))  # handed over at each extraction
    counts: list[int] = []
    runner.submit("我偏好简洁回答。", counts.append)
    assert runner.wait(10)
    assert counts == [2] and manager.texts == [("我偏好简洁回答。", session_extractor)]
