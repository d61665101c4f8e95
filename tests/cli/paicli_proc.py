"""Run paicli as a real subprocess against the loopback fake server, with an isolated home."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.isolated_env import ISOLATED_PREFIXES


def paicli_env(home: Path, base_url: str | None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(ISOLATED_PREFIXES)}
    env.update(
        {
            "HOME": str(home),
            "PAICLI_HOME": str(home / ".paicli"),
            "PAICLI_LLM_RETRY_BACKOFF": "0.01",
            "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
            "PYTHONUNBUFFERED": "1",
            "PAICLI_LOCAL_PORTS": "off",
        }
    )  # a subprocess never probes loopback ports unless a test asks
    if base_url is not None:
        env.update({"PAICLI_BASE_URL": base_url, "PAICLI_MODEL": "fake-model"})
    env.update(extra)
    return env


def run_paicli(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    kwargs: dict[str, Any] = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(
        [sys.executable, "-m", "paicli", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )
