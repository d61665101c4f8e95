"""Subprocess roles for the memory stress, crash and lock tests: `python proc_helper.py <role> ...`."""

from __future__ import annotations

import json
import sys
import time
import uuid
from pathlib import Path

from paicli.config.run_values import MemoryValues


def write(directory: str, tag: str, count: str, ack_file: str, journal_min: str = "1000") -> None:
    from paicli.config.env import EnvLookup
    from paicli.memory.entry import new_fact
    from paicli.memory.store import LongTermMemory

    store = LongTermMemory(
        directory, MemoryValues.parse(EnvLookup(environ={})), lock_timeout=60, journal_min=int(journal_min)
    )
    limit = int(count)
    with open(ack_file, "a", encoding="utf-8") as acks:
        i = 0
        while limit == 0 or i < limit:
            fact = new_fact(f"进程{tag} 的第 {i} 条独立事实 {uuid.uuid4().hex}", {"scope": "global"})
            if not store.store(fact):
                raise SystemExit(f"store refused {fact.content}")
            acks.write(fact.id + "\n")
            acks.flush()
            i += 1


def read(path: str, stop_file: str) -> None:
    target, stop = Path(path), Path(stop_file)
    reads = bad = 0
    while not stop.exists():
        try:
            raw = target.read_bytes()
        except FileNotFoundError:
            continue
        reads += 1
        try:
            if not isinstance(json.loads(raw.decode("utf-8")), list):
                bad += 1
        except ValueError:
            bad += 1
        time.sleep(0.0005)  # keep polling fast without pinning a shared CPU
    print(json.dumps({"reads": reads, "bad": bad}))


def hold(lock_path: str, ready_file: str) -> None:
    import portalocker

    with open(lock_path, "a+b") as handle:
        portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE)
        Path(ready_file).write_text("locked", encoding="utf-8")
        time.sleep(120)


def hold_posix(lock_path: str, ready_file: str) -> None:
    """The kind of lock the Java PaiCLI takes (FileChannel.lock is an fcntl record lock)."""
    import fcntl

    with open(lock_path, "a+b") as handle:
        fcntl.lockf(handle.fileno(), fcntl.LOCK_EX)
        Path(ready_file).write_text("locked", encoding="utf-8")
        time.sleep(120)


if __name__ == "__main__":
    role, *args = sys.argv[1:]
    {"write": write, "read": read, "hold": hold, "hold_posix": hold_posix}[role](*args)
