"""The deferred seam (issue 49): a subsystem's module is imported at the first `get`, its factory runs once
whichever threads ask together, and `built` tells a closer whether there is anything to close."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from paicli.deferred import Deferred


def test_the_module_loads_at_the_first_get_and_the_factory_runs_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "deferred_probe.py").write_text(
        "calls = []\n\ndef build(name, size):\n    calls.append(name)\n    return {'name': name, 'size': size}\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "deferred_probe", raising=False)
    deferred: Deferred[dict[str, object]] = Deferred("deferred_probe:build", "index", 3)
    assert deferred.built is None and "deferred_probe" not in sys.modules

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
    probe = sys.modules["deferred_probe"]
    assert probe.calls == ["index"]  # one build for eight callers
    assert len(got) == 8 and all(value is got[0] for value in got)
    assert got[0] == {"name": "index", "size": 3} and deferred.built is got[0]


def test_a_wrong_target_fails_at_the_first_get_and_builds_nothing() -> None:
    deferred: Deferred[object] = Deferred("paicli.no_such_module:build")
    with pytest.raises(ModuleNotFoundError):
        deferred.get()
    assert deferred.built is None
