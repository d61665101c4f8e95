"""What the workspace snapshots cost a `-p` run that writes nothing (issue 49).

Run from the repository root: `python -m evals.snapshot_greeting [--files 10000] [--runs 3]`
(`python -m evals.bench_snapshot --greeting` runs it too).

A git repository of `--files` files (20 KB each, committed) in a temp folder, and real `paicli -p 你好` runs
against the loopback server that answers at once: each run's wall time and CPU time (paicli and every process it
waited for, git included), with a fresh paicli home (no side store yet: a first run in the project) and again
with the home the previous run left. Target: the greeting costs what it costs in an empty project, whatever the
size of the tree (the ratio is printed; <= 1.2x).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from paicli.testing.openai_server import FakeOpenAIServer

TARGET = 1.2
FILE_BYTES = 20 * 1024


def build_repository(root: Path, files: int, git: str) -> None:
    root.mkdir(parents=True)
    block = os.urandom(FILE_BYTES)
    for index in range(files):
        folder = root / f"pkg{index % 40:02d}" / f"mod{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"file{index:05d}.py").write_bytes(index.to_bytes(4, "big") + block)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@b"
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
        subprocess.run([git, *args], cwd=root, env=env, check=True, capture_output=True)


def greet(project: Path, home: Path, base_url: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of paicli and the processes it waited for) of one `paicli -p 你好`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAICLI_", "OPENAI_", "DEEPSEEK_"))}
    env |= {
        "HOME": str(home),
        "PAICLI_HOME": str(home / ".paicli"),
        "PAICLI_BASE_URL": base_url,
        "PAICLI_MODEL": "fake-model",
        "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "paicli", "-p", "你好"],
        cwd=project,
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"paicli failed: {done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(
    project: Path, tmp: Path, base_url: str, runs: int
) -> tuple[list[float], list[float], list[float]]:
    """CPU of first runs (fresh home), CPU of repeat runs (the home a run left), wall of first runs."""
    first, again, walls = [], [], []
    for run in range(runs):
        home = tmp / f"home-{project.name}-{run}"
        wall, cpu = greet(project, home, base_url)
        first.append(cpu)
        walls.append(wall)
        again.append(greet(project, home, base_url)[1])
        shutil.rmtree(home, ignore_errors=True)
    return first, again, walls


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    git = shutil.which("git")
    if git is None:
        raise SystemExit("git is not installed: snapshots are off without it")
    with tempfile.TemporaryDirectory() as name, FakeOpenAIServer(default_reply="你好！") as server:
        tmp = Path(name)
        empty, big = tmp / "empty", tmp / "big"
        build_repository(empty, 1, git)
        build_repository(big, args.files, git)
        base_first, base_again, base_wall = measure(empty, tmp, server.base_url, args.runs)
        big_first, big_again, big_wall = measure(big, tmp, server.base_url, args.runs)
    load = os.getloadavg()[0]
    for label, base, grown in (("first run", base_first, big_first), ("repeat run", base_again, big_again)):
        ratio = statistics.median(grown) / statistics.median(base)
        verdict = "met" if ratio <= TARGET else "NOT met"
        print(
            f"-p greeting, {label}: CPU {statistics.median(base) * 1000:.0f} ms in a 1-file repository, "
            f"{statistics.median(grown) * 1000:.0f} ms in a {args.files:,}-file one: {ratio:.2f}x "
            f"target <= {TARGET}x -> {verdict} (median of {args.runs}, load {load:.1f})"
        )
    print(
        f"-p greeting wall time, first run: {statistics.median(base_wall) * 1000:.0f} ms vs "
        f"{statistics.median(big_wall) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
