"""Read-only command rule benchmark: `python -m evals.bench_readonly` from the repository root.

How long auto mode takes to decide whether a command may run unasked (shell reading, option allow-lists,
file-system checks of arguments, git repository discovery and config scan), per command shape.
Runs in a temp project with a nested repository; no network, no real home.
"""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from paicli.tools.guards import is_read_only_command

COMMANDS = (
    "git status",
    "ls -la src | head -20",
    "grep -rn TODO . 2>/dev/null | wc -l",
    "cd sub && git log --oneline -5",
    "find . -name '*.py' -type f | sort",
    "sort --compress-prog=sh data.txt",
    "echo $PAICLI_API_KEY",
)
ROUNDS = 300


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q", "."], cwd=root, check=True)
        (root / "src").mkdir()
        (root / "sub").mkdir()
        subprocess.run(["git", "init", "-q", "."], cwd=root / "sub", check=True)
        print(f"read-only decision, median of {ROUNDS} runs:")
        for command in COMMANDS:
            samples = []
            verdict = False
            for _ in range(ROUNDS):
                start = time.perf_counter()
                verdict = is_read_only_command(command, root)
                samples.append(time.perf_counter() - start)
            median = statistics.median(samples) * 1e6
            print(f"  {median:8.1f} µs  {'read-only' if verdict else 'asks     '}  {command}")


if __name__ == "__main__":
    main()
