"""Command sandbox overhead: `python -m evals.bench_sandbox` from the repository root.

Runs `true` through execute_command 50 times unconfined and 50 times in the sandbox, interleaved in pairs
(so load on the machine hits both alike), for each sandbox kind this kernel offers, and prints the medians
and the median of the paired differences. Target: <= 15 ms per command. The walk of a larger project (the
file rules are built per command) is measured separately. Temp project, no network, no real home.
"""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from paicli.cancel import CancelToken
from paicli.config.env import EnvLookup
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.sandbox.rules import find_special
from paicli.tools.sandbox.status import SandboxStatus, probe
from paicli.tools.shell import execute_command

RUNS = 50
TARGET_MS = 15.0


def _once(ctx: ToolContext) -> float:
    start = time.perf_counter()
    out = execute_command({"command": "true"}, ctx)
    elapsed = (time.perf_counter() - start) * 1000
    if not out.success:
        raise SystemExit(f"command failed: {out.content}")
    return elapsed


def _pairs(root: Path, status: SandboxStatus) -> None:
    lookup = EnvLookup(environ={"PAICLI_HOME": str(root / "home")}, cwd=root)
    plain = ToolContext(root, PathGuard(root), lookup, CancelToken(), auto_run=True)
    boxed = ToolContext(root, PathGuard(root), lookup, CancelToken(), auto_run=True, sandbox=status)
    _once(plain), _once(boxed)  # warm caches
    bare, confined = [], []
    for _ in range(RUNS):
        bare.append(_once(plain))
        confined.append(_once(boxed))
    diffs = [b - a for a, b in zip(bare, confined, strict=True)]
    overhead = statistics.median(diffs)
    verdict = "ok" if overhead <= TARGET_MS else "over target"
    print(
        f"{status.kind:>10}: unconfined {statistics.median(bare):6.1f} ms, sandboxed "
        f"{statistics.median(confined):6.1f} ms, paired overhead {overhead:6.1f} ms "
        f"(target <= {TARGET_MS:g} ms: {verdict})"
    )


def _project(root: Path, folders: int) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for index in range(folders):
        folder = root / f"pkg{index // 50}" / f"mod{index}"
        folder.mkdir(parents=True)
        (folder / "code.py").write_text("x = 1\n")


def main() -> None:
    kinds = [probe("auto", True), probe("auto", False)]
    usable = [status for status in kinds if status.active]
    if not usable:
        print(f"no sandbox on this machine: {kinds[0].reason}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        _project(root, 20)
        print(f"`true` through execute_command, median of {RUNS} interleaved pairs:")
        for status in dict.fromkeys(usable):
            _pairs(root, status)
        big = Path(tmp) / "big"
        big.mkdir()
        _project(big, 2000)
        start = time.perf_counter()
        find_special(str(big))
        print(
            f"file-rule walk of a project with 2,000 folders: {(time.perf_counter() - start) * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
