"""Command sandbox overhead: `python -m evals.bench_sandbox` from the repository root.

Runs `true` through execute_command 50 times unconfined and 50 times in the sandbox, interleaved in pairs
(so load on the machine hits both alike), for each sandbox kind this kernel offers and each launch path
(`zygote`: forked by the session's fork server; `wrapper`: a wrapper process per command, the fallback), and
prints the medians and the median of the paired differences. Target: <= 15 ms per command. "Unconfined" is
how paicli runs a command a human approved: under the same wrapper without Landlock (its subreaper ends
whatever the command leaves behind); the fork server's CPU is charged to the runs it served, each kind its
own. A plain `bash -c true` is printed for reference. The walk of a larger project (the file rules are built
per command) is measured separately. Temp project, no network, no real home.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from paicli.cancel import CancelToken
from paicli.config.env import EnvLookup
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.sandbox import zygote
from paicli.tools.sandbox.executor import SandboxExecutor
from paicli.tools.sandbox.rules import find_special
from paicli.tools.sandbox.status import SandboxStatus, probe
from paicli.tools.shell import execute_command, unconfined

RUNS = 50
TARGET_MS = 15.0


def _cpu() -> float:
    """CPU seconds of this process and its finished children: less sensitive to a loaded machine than wall time."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _once(ctx: ToolContext) -> tuple[float, float, float]:
    """(wall ms, our CPU ms, the fork server's CPU ms) of one command."""
    start, cpu, server = time.perf_counter(), _cpu(), _server_cpu()
    out = execute_command({"command": "true"}, ctx)
    elapsed, used = (time.perf_counter() - start) * 1000, (_cpu() - cpu) * 1000
    if not out.success:
        raise SystemExit(f"command failed: {out.content}")
    return elapsed, used, _server_cpu() - server


def _server_cpu() -> float:
    """CPU ms of the fork server and the children it reaped (the forked commands are not ours to reap: our
    own rusage misses them). /proc counts clock ticks, so only a total over many runs is meaningful."""
    pid = zygote.session_zygote().pid
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # retired (the wrapper path): none of its CPU is ours any more
        return 0.0
    return sum(int(value) for value in fields[11:15]) * 1000 / os.sysconf("SC_CLK_TCK")


def _pairs(root: Path, status: SandboxStatus) -> None:
    lookup = EnvLookup(environ={"PAICLI_HOME": str(root / "home")}, cwd=root)
    plain = ToolContext(root, PathGuard(root), CancelToken(), executor=unconfined().approved)
    boxed = ToolContext(
        root, PathGuard(root), CancelToken(), executor=SandboxExecutor(status, str(lookup.home))
    )
    if not status.zygote:
        zygote.session_zygote().stop()  # every command, the approved ones too, runs a wrapper process
    _once(plain), _once(boxed)  # warm caches
    bare, confined = [], []
    for _ in range(RUNS):
        bare.append(_once(plain))
        confined.append(_once(boxed))
    for label, index in (("wall", 0), ("cpu", 1)):
        first = [run[index] for run in bare]
        second = [run[index] for run in confined]
        overhead = statistics.median(b - a for a, b in zip(first, second, strict=True))
        if label == "cpu":  # the fork server's share, per command (an average: see _server_cpu)
            first_server = sum(run[2] for run in bare) / RUNS
            second_server = sum(run[2] for run in confined) / RUNS
            first = [value + first_server for value in first]
            second = [value + second_server for value in second]
            overhead += second_server - first_server
        verdict = "ok" if overhead <= TARGET_MS else "over target"
        path = "zygote" if status.zygote else "wrapper"
        print(
            f"{status.kind:>10} {path:>7} {label:>4}: unconfined {statistics.median(first):6.1f} ms, sandboxed "
            f"{statistics.median(second):6.1f} ms, paired overhead {overhead:6.1f} ms "
            f"(target <= {TARGET_MS:g} ms: {verdict})"
        )


def _plain(root: Path) -> None:
    runs = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(["bash", "-c", "true"], cwd=root, check=True)
        runs.append((time.perf_counter() - start) * 1000)
    print(
        f"  reference: plain `bash -c true` (no wrapper, no capture) {statistics.median(runs):6.1f} ms wall"
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
        load = os.getloadavg()[0]
        print(
            f"`true` through execute_command, median of {RUNS} interleaved pairs (load average {load:.1f}):"
        )
        _plain(root)
        for forked in (True, False):  # the wrapper path last: it retires the session's fork server
            for status in dict.fromkeys(usable):
                _pairs(root, replace(status, zygote=forked))
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
