"""Real processes against one memory file: concurrent writers, SIGKILL mid-write, a lock held too long."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from paicli.config.run_values import MemoryValues
from paicli.memory.commands import parse_memory_args, run_memory_command
from paicli.memory.locked_file import MemoryFile
from paicli.memory.manager import MemoryManager
from paicli.memory.results import WriteStatus
from paicli.memory.store import FILE_NAME, LongTermMemory, MemoryLockTimeout
from tests.memory.helpers import CLOCK, entry, env

HELPER = str(Path(__file__).with_name("proc_helper.py"))


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, HELPER, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_for(predicate: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.005)


def _acked(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [line for line in path.read_text(encoding="utf-8").split("\n") if len(line) == 13]


def _ids_on_disk(directory: Path) -> set[str]:
    data = json.loads((directory / FILE_NAME).read_text(encoding="utf-8"))
    return {item["id"] for item in data}


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def _committed(directory: Path) -> set[str]:
    """What a paicli reader sees: the file of record plus the journal's committed lines."""
    return {e.id for e in LongTermMemory(directory, MemoryValues.parse(env())).get_all()}


# "1000": a small store, rewritten on every save; "0": every save is a journal line, folded in the background
# and at each writer's exit
JOURNAL_MODES = pytest.mark.parametrize("journal_min", ["1000", "0"], ids=["rewrite", "journal"])


@JOURNAL_MODES
def test_eight_writers_and_a_reader(
    tmp_path: Path, processes: list[subprocess.Popen[str]], journal_min: str
) -> None:
    stop = tmp_path / "stop"
    reader = _spawn("read", str(tmp_path / FILE_NAME), str(stop))
    processes.append(reader)
    writers = [
        _spawn("write", str(tmp_path), str(i), "50", str(tmp_path / f"ack-{i}"), journal_min)
        for i in range(8)
    ]
    processes.extend(writers)
    for writer in writers:
        _, err = writer.communicate(timeout=180)
        assert writer.returncode == 0, err
    stop.touch()
    out, err = reader.communicate(timeout=30)
    assert reader.returncode == 0, err
    counts = json.loads(out)
    assert counts["bad"] == 0 and counts["reads"] > 0
    acked = {i for n in range(8) for i in _acked(tmp_path / f"ack-{n}")}
    assert len(acked) == 400
    assert _ids_on_disk(tmp_path) == acked  # every writer folded its journal lines before it ended
    assert _committed(tmp_path) == acked
    assert not list(tmp_path.glob("*.corrupt-*")) and not list(tmp_path.glob("*.tmp"))


@JOURNAL_MODES
def test_sigkill_mid_write_never_loses_an_acknowledged_fact(
    tmp_path: Path, processes: list[subprocess.Popen[str]], journal_min: str
) -> None:
    ack = tmp_path / "acks"
    rng = random.Random(7)
    for round_no in range(20):
        before = len(_acked(ack))
        writer = _spawn("write", str(tmp_path), f"k{round_no}", "0", str(ack), journal_min)
        processes.append(writer)
        _wait_for(lambda: len(_acked(ack)) > before or writer.poll() is not None)  # noqa: B023
        time.sleep(rng.uniform(0, 0.03))
        writer.send_signal(signal.SIGKILL)
        writer.communicate(timeout=30)
        assert writer.returncode == -signal.SIGKILL
        assert set(_acked(ack)) <= _committed(tmp_path)
    store = LongTermMemory(tmp_path, MemoryValues.parse(env()), journal_min=int(journal_min))
    assert store.last_error is None and store.size() >= 20
    assert not list(tmp_path.glob("*.corrupt-*"))
    store.store(entry("杀掉写入进程之后的一次正常写入"))
    store.fold()
    assert not list(tmp_path.glob("*.tmp"))  # temp files of killed writers are cleaned up under the lock
    assert set(_acked(ack)) <= _ids_on_disk(tmp_path)


@pytest.mark.parametrize(
    "lock",
    [
        "hold",
        pytest.param(  # the Java store's lock: a POSIX record lock on the same file
            "hold_posix", marks=pytest.mark.skipif(sys.platform == "win32", reason="POSIX record locks")
        ),
    ],
)
def test_lock_held_by_another_process_gives_a_clear_message(
    tmp_path: Path, processes: list[subprocess.Popen[str]], lock: str
) -> None:
    store = LongTermMemory(tmp_path, MemoryValues.parse(env()), clock=CLOCK, lock_timeout=0.3)
    kept = entry("已经保存的事实")
    store.store(kept)
    ready = tmp_path / "ready"
    holder = _spawn(lock, str(tmp_path / (FILE_NAME + ".lock")), str(ready))
    processes.append(holder)
    _wait_for(ready.exists)
    manager = MemoryManager(store, tmp_path, MemoryValues.parse(env()), clock=CLOCK)
    result = manager.store_fact("新的事实")
    assert result.status is WriteStatus.FAILED
    assert "0.3 秒" in result.describe() and "锁" in result.describe()
    with pytest.raises(MemoryLockTimeout):
        store.delete(kept.id)
    reply = run_memory_command(manager, parse_memory_args(f"delete {kept.id}")).text
    assert reply.startswith("❌") and "锁" in reply
    assert manager.list_all() == [kept]
    assert LongTermMemory(tmp_path, MemoryValues.parse(env())).get_all() == [kept]
    holder.kill()
    holder.communicate()
    assert manager.store_fact("新的事实").status is WriteStatus.STORED
    assert store.size() == 2


def test_thread_lock_wait_is_bounded_too(tmp_path: Path) -> None:
    file = MemoryFile(tmp_path / FILE_NAME, lock_timeout=0.2)
    inside, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=lambda: file.with_lock(lambda: (inside.set(), release.wait(10))))
    holder.start()
    inside.wait(10)
    try:
        with pytest.raises(MemoryLockTimeout):
            MemoryFile(tmp_path / FILE_NAME, lock_timeout=0.2).with_lock(lambda: None)
    finally:
        release.set()
        holder.join()
    assert file.with_lock(lambda: 42) == 42
    assert file.with_lock(lambda: file.with_lock(lambda: 7)) == 7  # re-entrant in one thread


def test_memory_folder_that_cannot_be_created(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the memory folder should be", encoding="utf-8")
    store = LongTermMemory(None, MemoryValues.parse(env(PAICLI_MEMORY_DIR=str(blocker / "memory"))))
    manager = MemoryManager(store, tmp_path, MemoryValues.parse(env()), clock=CLOCK)
    result = manager.store_fact("项目使用 Java 17")
    assert result.status is WriteStatus.FAILED and "无法创建长期记忆目录" in result.describe()
    assert manager.list_all() == []
    assert run_memory_command(manager, parse_memory_args("clear")).text.startswith("❌ 长期记忆操作失败")
    assert blocker.read_text(encoding="utf-8").startswith("a file")


def test_unreadable_memory_file_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).mkdir()  # reading the "file" fails with an OS error, not a parse error
    store = LongTermMemory(tmp_path, MemoryValues.parse(env()))
    assert store.last_error is not None and "无法读取" in store.last_error
    assert store.get_all() == []
    manager = MemoryManager(store, tmp_path, MemoryValues.parse(env()), clock=CLOCK)
    assert manager.store_fact("项目使用 Java 17").status is WriteStatus.FAILED
    assert (tmp_path / FILE_NAME).is_dir() and not list(tmp_path.glob("*.corrupt-*"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_memory_folder(tmp_path: Path) -> None:
    store = LongTermMemory(tmp_path, MemoryValues.parse(env()), clock=CLOCK)
    kept = entry("已经保存的事实")
    store.store(kept)
    tmp_path.chmod(0o500)
    try:
        manager = MemoryManager(store, tmp_path, MemoryValues.parse(env()), clock=CLOCK)
        assert manager.store_fact("新的事实").status is WriteStatus.FAILED
        assert LongTermMemory(tmp_path, MemoryValues.parse(env())).get_all() == [kept]
    finally:
        tmp_path.chmod(0o700)


def test_lock_file_that_cannot_be_opened(tmp_path: Path) -> None:
    store = LongTermMemory(tmp_path, MemoryValues.parse(env()), clock=CLOCK)
    kept = entry("已经保存的事实")
    store.store(kept)
    (tmp_path / FILE_NAME).with_name(FILE_NAME + ".lock").unlink()
    (tmp_path / (FILE_NAME + ".lock")).mkdir()
    manager = MemoryManager(store, tmp_path, MemoryValues.parse(env()), clock=CLOCK)
    result = manager.store_fact("新的事实")
    assert result.status is WriteStatus.FAILED and "锁文件" in result.describe()
    assert LongTermMemory(tmp_path, MemoryValues.parse(env())).get_all() == [kept]
