"""A vector-index save still pending when the process exits is finished before the interpreter finalizes: a
daemon thread caught inside numpy by the finalization aborts the whole process (issue 24, point 10)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from paicli.memory.store import FILE_NAME
from paicli.memory.vector_file import index_path_for

pytestmark = pytest.mark.timeout(180)
ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from paicli.config.env import EnvLookup
    from paicli.config.run_values import MemoryValues
    from paicli.memory.entry import new_fact
    from paicli.memory.retriever import MemoryRetriever
    from paicli.memory.store import LongTermMemory
    from paicli.memory.vector_file import index_path_for

    env = EnvLookup(environ={})
    store = LongTermMemory(sys.argv[2], MemoryValues.parse(env))
    for i in range(200):
        store.store(new_fact(f"项目使用 Gradle 构建第{i}号模块", {"scope": "global"}))
    retriever = MemoryRetriever(store, MemoryValues.parse(env), index_path=index_path_for(store.path))
    retriever.save_delay = 600.0  # the save would wait far longer than this process lives
    retriever.build_context("gradle 构建", 1000, "proj")  # builds the index and asks for a save
    print("QUERIED", flush=True)
    """
)


def test_a_pending_index_save_is_finished_at_exit_not_left_to_the_finalizer(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT / "src"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert done.returncode == 0, done.stderr
    assert "QUERIED" in done.stdout and "terminate called" not in done.stderr
    assert index_path_for(tmp_path / FILE_NAME).is_file()  # saved by the exit hook, not abandoned
