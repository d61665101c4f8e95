"""Whole-process timing in interleaved pairs (A B, B A, A B, ...): each run's wall time, its CPU time (user +
sys of the child, from wait4) and its peak RSS, with A/B ratios taken pair by pair, so a machine whose speed
drifts during the run (other jobs) moves both sides of a pair alike. Quote the medians."""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float  # user + sys seconds of the child (and of the children it waited for)
    peak_mib: float


@dataclass(frozen=True)
class Pairs:
    a: list[Run]
    b: list[Run]

    def median(self, side: str, what: str) -> float:
        return statistics.median(getattr(run, what) for run in (self.a if side == "a" else self.b))

    def ratio(self, what: str) -> float:
        """Median of the pairwise A/B ratios of `what` ("cpu", "wall" or "peak_mib")."""
        return statistics.median(
            getattr(x, what) / max(getattr(y, what), 1e-9) for x, y in zip(self.a, self.b, strict=True)
        )

    def line(self, label_a: str, label_b: str) -> str:
        return (
            f"{label_a}: cpu {self.median('a', 'cpu'):.3f} s, wall {self.median('a', 'wall'):.3f} s, "
            f"peak {self.median('a', 'peak_mib'):.0f} MiB | {label_b}: cpu {self.median('b', 'cpu'):.3f} s, "
            f"wall {self.median('b', 'wall'):.3f} s, peak {self.median('b', 'peak_mib'):.0f} MiB | "
            f"ratio cpu {self.ratio('cpu'):.2f}x, wall {self.ratio('wall'):.2f}x, "
            f"peak {self.ratio('peak_mib'):.2f}x (median of {len(self.a)} interleaved pairs)"
        )


_TIME = "/usr/bin/time"  # a fresh small parent: the child's peak RSS is its own, not this process's


def run_once(cmd: Sequence[str], env: Mapping[str, str], cwd: str) -> Run:
    with tempfile.TemporaryFile() as output, tempfile.NamedTemporaryFile("r") as peak:
        wrapped = [_TIME, "-f", "%M", "-o", peak.name, *cmd] if os.path.exists(_TIME) else list(cmd)
        start = time.perf_counter()
        proc = subprocess.Popen(
            wrapped, env=dict(env), cwd=cwd, stdin=subprocess.DEVNULL, stdout=output, stderr=output
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            output.seek(0)
            text = output.read().decode(errors="replace")
            raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{text}")
        reported = peak.read().strip().splitlines()
        kib = int(reported[-1]) if reported and reported[-1].isdigit() else usage.ru_maxrss
    return Run(wall, usage.ru_utime + usage.ru_stime, kib / 1024)


def pairs(
    a: Sequence[str],
    b: Sequence[str],
    env: Mapping[str, str],
    cwd: str,
    runs: int,
    warmup: int = 1,
    env_b: Mapping[str, str] | None = None,
) -> Pairs:
    benv = env if env_b is None else env_b
    for _ in range(warmup):
        run_once(a, env, cwd)
        run_once(b, benv, cwd)
    first: list[Run] = []
    second: list[Run] = []
    for index in range(runs):
        if index % 2:
            second.append(run_once(b, benv, cwd))
            first.append(run_once(a, env, cwd))
        else:
            first.append(run_once(a, env, cwd))
            second.append(run_once(b, benv, cwd))
    return Pairs(first, second)


def bytecode_env(env: Mapping[str, str]) -> dict[str, str]:
    """Figures are taken with bytecode cached (as an installed package runs): never PYTHONDONTWRITEBYTECODE."""
    return {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compile_sources(root: str) -> None:
    import compileall

    compileall.compile_dir(root, quiet=1)
