"""The deferred seam (issue 49): a subsystem is built at the first `get`, its factory runs once whichever
threads ask together, a failed build leaves nothing built, and `built` tells a closer whether there is anything
to close."""

from __future__ import annotations

import threading

import pytest

from paicli.deferred import Deferred


def test_the_factory_runs_at_the_first_get_and_once_for_concurrent_callers() -> None:
    calls: list[str] = []

    def build() -> dict[str, object]:
        calls.append("index")
        return {"name": "index", "size": 3}

    deferred = Deferred(build)
    assert deferred.built is None and calls == []

    start = threading.Barrier(8)
    got: list[dict[str, object]] = []

    def ask() -> None:
        start.wait()
        got.append(deferred.get())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["index"]  # one build for eight callers
    assert len(got) == 8 and all(value is got[0] for value in got)
    assert got[0] == {"name": "index", "size": 3} and deferred.built is got[0]


def test_a_failing_factory_builds_nothing_and_is_tried_again() -> None:
    attempts: list[int] = []

    def build() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise ModuleNotFoundError("paicli.no_such_module")
        return "built"

    deferred = Deferred(build)
    with pytest.raises(ModuleNotFoundError):
        deferred.get()
    assert deferred.built is None
    assert deferred.get() == "built" and deferred.built == "built" and len(attempts) == 2
