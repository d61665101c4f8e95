"""Workspace snapshot benchmark: `python -m evals.bench_snapshot` from the repository root.

Builds a 10,000-file and a 100,000-file project of 200 MB each in a temp folder (nested folders, incompressible
content) and measures, with the real side store:
- the background preparation a session start does (every file hashed into the side store), then the first
  snapshot after it;
- a snapshot after changing 3 files (target <= 150 ms), and after changing nothing;
- how much the side store grows per such snapshot, next to the bytes that changed;
- planning and doing a restore of the newest snapshot (3 files back) and of the first one after 20 rounds;
- `/snapshot clean` time and the store size before and after (the side index's objects go too), and
  `/snapshot clean --all`.
`--greeting` measures instead what the snapshots cost a `-p` greeting in a git repository (evals/snapshot_greeting.py).
No network, no real home: the store lives in the temp folder too.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from paicli.snapshots.availability import find_git
from paicli.snapshots.git import SnapshotError
from paicli.snapshots.model import Tag
from paicli.snapshots.store import SnapshotStore

SIZES = (10_000, 100_000)
TOTAL_BYTES = 200 * 1024 * 1024
ROUNDS = 20
CHANGED = 3
T = TypeVar("T")


def build_project(root: Path, files: int, total: int, rng: random.Random) -> list[Path]:
    size = total // files
    paths = []
    for index in range(files):
        folder = root / f"pkg{index % 40:02d}" / f"mod{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"file{index:05d}.dat"
        path.write_bytes(rng.randbytes(size))
        paths.append(path)
    (root / ".gitignore").write_text("*.log\n", encoding="utf-8")
    return paths


def change(paths: list[Path], rng: random.Random) -> int:
    written = 0
    for path in rng.sample(paths, CHANGED):
        data = rng.randbytes(path.stat().st_size)
        path.write_bytes(data)
        written += len(data)
    return written


CPU_MS: list[float] = []  # CPU time (paicli + its git processes) of each timed call, in ms


def timed(work: Callable[[], T]) -> tuple[float, T]:
    """Wall time in ms; the CPU time is appended to CPU_MS (on a loaded machine it is the steadier figure)."""
    cpu = _cpu()
    start = time.perf_counter()
    result = work()
    CPU_MS.append((_cpu() - cpu) * 1000)
    return (time.perf_counter() - start) * 1000, result


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


TARGET_MS = {10_000: 150.0, 100_000: 400.0}  # issue 43: a snapshot after 3 changed files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--files", default=",".join(str(n) for n in SIZES), help="comma-separated file counts"
    )
    parser.add_argument("--megabytes", type=int, default=TOTAL_BYTES // 1024 // 1024)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument(
        "--greeting",
        action="store_true",
        help="instead: what the snapshots cost a `-p` run that writes nothing (evals/snapshot_greeting.py)",
    )
    args = parser.parse_args()
    if args.greeting:
        from evals.snapshot_greeting import main as greeting

        greeting(["--files", args.files.split(",")[0]])
        return
    git = find_git()
    if git is None:
        raise SystemExit("git is not installed: snapshots are off without it")
    for files in (int(part) for part in args.files.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            bench_one(Path(tmp), git, files, args.megabytes, args.rounds)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def bench_one(tmp: Path, git: str, files: int, megabytes: int, rounds: int) -> None:
    rng = random.Random(30)
    root = tmp / "project"
    root.mkdir()
    start = time.perf_counter()
    paths = build_project(root, files, megabytes * 1024 * 1024, rng)
    print(f"== project: {files:,} files, {megabytes} MB, built in {time.perf_counter() - start:.1f} s")
    store = SnapshotStore(root, tmp / "side", git)
    prime_ms, _ = timed(store.prime)  # what a session start does in the background
    print(
        f"background preparation:    {prime_ms:8.0f} ms wall, {CPU_MS[-1]:7.0f} ms CPU (off the first turn)"
    )
    first_ms, first = timed(lambda: store.take("turn", Tag("first")))
    print(
        f"first snapshot after it:   {first_ms:8.1f} ms wall, {CPU_MS[-1]:7.1f} ms CPU, store {store.disk_bytes() / 1e6:.1f} MB"
    )
    same_ms, _ = timed(lambda: store.take("turn", Tag("unchanged")))
    print(f"snapshot, nothing changed: {same_ms:8.1f} ms wall, {CPU_MS[-1]:7.1f} ms CPU")
    samples, cpu, growth, written_total = [], [], [], 0
    for _ in range(rounds):
        written = change(paths, rng)
        before = store.disk_bytes()
        elapsed, _ = timed(lambda: store.take("turn", Tag("three files")))
        samples.append(elapsed)
        cpu.append(CPU_MS[-1])
        growth.append(store.disk_bytes() - before)
        written_total += written
    median = statistics.median(samples)
    target = TARGET_MS.get(files)
    verdict = (
        ""
        if target is None
        else (
            f"; within the {target:.0f} ms target"
            if median <= target
            else f"; OVER the {target:.0f} ms target"
        )
    )
    print(
        f"snapshot, {CHANGED} files changed:   median {median:6.1f} ms wall (max {max(samples):.1f}), "
        f"{statistics.median(cpu):6.1f} ms CPU{verdict}"
    )
    per_change = written_total / rounds
    grown = statistics.median(growth)
    print(
        f"store growth per snapshot: median {grown / 1024:7.1f} KiB for {per_change / 1024:.1f} KiB "
        f"of changed bytes ({grown / per_change:.2f}x)"
    )
    change(paths, rng)
    for target_snapshot in (store.nth(1), store.find(first.number)):
        plan_ms, plan = timed(lambda: store.plan(target_snapshot))  # noqa: B023 - called at once
        restore_ms, result = timed(lambda: store.restore(plan.target))  # noqa: B023
        print(
            f"/restore #{target_snapshot.number} ({len(result.changes)} files): plan {plan_ms:6.1f} ms, "
            f"restore {restore_ms:6.1f} ms wall, {CPU_MS[-1]:6.1f} ms CPU"
        )
    size = store.disk_bytes()
    clean_ms, freed = timed(store.clean)
    print(
        f"/snapshot clean:           {clean_ms:8.0f} ms; store {size / 1e6:.1f} MB -> "
        f"{store.disk_bytes() / 1e6:.1f} MB (freed {freed / 1e6:.1f} MB)"
    )
    try:
        after_ms, _ = timed(lambda: store.take("turn", Tag("after clean")))
        print(f"snapshot after clean:      {after_ms:8.0f} ms wall (the tree is hashed again)")
    except SnapshotError as error:  # on a starved machine git's own timeout can hit a whole-tree hash
        print(f"snapshot after clean:      failed: {error}")
    size = store.disk_bytes()
    remove_ms, freed = timed(store.remove)
    print(
        f"/snapshot clean --all:     {remove_ms:8.0f} ms; freed {freed / 1e6:.1f} MB of {size / 1e6:.1f} MB"
    )


if __name__ == "__main__":
    main()
