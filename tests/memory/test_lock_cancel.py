"""A cancelled save_memory stops waiting for the memory lock (issue 25: every tool honours cancel).

The lock wait is set to 600 s, so a wait that ignored the cancel would fail the generous thread joins below;
no test measures time (evals/bench_cancel.py does).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from paicli.cancel import Cancelled, CancelToken, cancel_scope
from paicli.config.run_values import MemoryValues
from paicli.llm.messages import ToolCall
from paicli.memory.locked_file import MemoryFile
from paicli.memory.manager import MemoryManager
from paicli.memory.store import FILE_NAME, LongTermMemory
from paicli.tools.base import CANCELLED_PREFIX, ToolResult
from paicli.tools.memory import SaveMemoryTool
from paicli.tools.registry import SAVE_MEMORY, Tool
from paicli.tools.runner import ToolRunner
from tests.memory.helpers import CLOCK, entry, env
from tests.memory.test_processes import HELPER, _wait_for
from tests.tools.helpers import make_runner

JOIN_SECONDS = 60.0


@pytest.fixture
def holder_of(tmp_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        proc.kill()
        proc.communicate()


def _runner(root: Path, manager: MemoryManager, entered: threading.Event) -> ToolRunner:
    def save(fact: str, scope: str, replace_id: str | None, keep_both: bool) -> str:
        entered.set()  # the tool is past its checks: the next thing is the lock wait
        return manager.save_memory_tool(fact, scope, replace_id, keep_both)

    runner = make_runner(root)
    runner.register(Tool(SAVE_MEMORY, SaveMemoryTool(save)))
    return runner


@pytest.mark.parametrize(
    "lock",
    ["hold", pytest.param("hold_posix", marks=pytest.mark.skipif(sys.platform == "win32", reason="POSIX"))],
)
def test_cancel_ends_a_save_memory_waiting_for_another_process(
    tmp_path: Path, holder_of: list[subprocess.Popen[str]], lock: str
) -> None:
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    store = LongTermMemory(memory_dir, MemoryValues.parse(env()), clock=CLOCK, lock_timeout=600)
    kept = entry("已经保存的事实")
    store.store(kept)
    ready = tmp_path / "ready"
    holder = subprocess.Popen(
        [sys.executable, HELPER, lock, str(memory_dir / (FILE_NAME + ".lock")), str(ready)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    holder_of.append(holder)
    _wait_for(ready.exists)
    entered = threading.Event()
    runner = _runner(
        tmp_path, MemoryManager(store, tmp_path, MemoryValues.parse(env()), clock=CLOCK), entered
    )
    cancel = CancelToken()
    results: list[ToolResult] = []
    call = ToolCall("c1", "save_memory", '{"fact":"请记住：项目用 uv 管理依赖","scope":"global"}')
    worker = threading.Thread(
        target=lambda: results.extend(
            runner.for_turn("记住：项目用 uv").execute([call], cancel, lambda _e: None)
        )
    )
    worker.start()
    assert entered.wait(JOIN_SECONDS)
    cancel.cancel()
    worker.join(JOIN_SECONDS)
    assert not worker.is_alive(), "save_memory kept waiting for the lock after the cancel"
    assert len(results) == 1 and CANCELLED_PREFIX in results[0].content
    assert holder.poll() is None  # still holding: the call ended because of the cancel, not the lock
    assert LongTermMemory(memory_dir, MemoryValues.parse(env())).get_all() == [kept]  # nothing was written


def test_cancel_ends_a_wait_for_another_thread_and_the_lock_still_works(tmp_path: Path) -> None:
    file = MemoryFile(tmp_path / FILE_NAME, lock_timeout=600)
    inside, release = threading.Event(), threading.Event()
    holder = threading.Thread(
        target=lambda: file.with_lock(lambda: (inside.set(), release.wait(JOIN_SECONDS)))
    )
    holder.start()
    assert inside.wait(JOIN_SECONDS)
    cancel = CancelToken()
    outcome: list[BaseException | str] = []
    started = threading.Event()

    def wait_for_lock() -> None:
        with cancel_scope(cancel):
            started.set()
            try:
                outcome.append(MemoryFile(tmp_path / FILE_NAME, lock_timeout=600).with_lock(lambda: "ran"))
            except BaseException as error:
                outcome.append(error)

    waiter = threading.Thread(target=wait_for_lock)
    waiter.start()
    assert started.wait(JOIN_SECONDS)
    cancel.cancel()
    waiter.join(JOIN_SECONDS)
    try:
        assert not waiter.is_alive() and len(outcome) == 1 and isinstance(outcome[0], Cancelled)
    finally:
        release.set()
        holder.join(JOIN_SECONDS)
    assert file.with_lock(lambda: 42) == 42  # the cancelled waiter left no lock behind
