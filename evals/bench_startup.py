"""Start-up benchmark: median wall time of `paicli --version` and of a `-p` task against an instant local server,
and the size of the first request (prompt tokens as the loopback server counts them: tools, system prompt, task).

Run from the repository root: python -m evals.bench_startup [--runs N]
Targets on a 2-core machine: --version < 0.3 s, the -p run < 1.0 s, first request <= 3,300 prompt tokens.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, count_tokens, prompt_text


def _time(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    exe = [sys.executable, "-m", "paicli"]
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(default_reply="好的，完成。") as server:
        home = Path(tmp) / "home"
        project = Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PAICLI_", "OPENAI_", "DEEPSEEK_"))}
        env.update({
            "HOME": str(home),
            "PAICLI_HOME": str(home / ".paicli"),
            "PAICLI_BASE_URL": server.base_url,
            "PAICLI_MODEL": "fake-model",
            "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
        })
        _time([*exe, "--version"], env, str(project))  # warm the file cache once
        version = [_time([*exe, "--version"], env, str(project)) for _ in range(args.runs)]
        oneshot = [_time([*exe, "-p", "你好"], env, str(project)) for _ in range(args.runs)]
        first = server.requests[0]
        tools = json.dumps(first.get("tools") or [], ensure_ascii=False, sort_keys=True)
        system = str(first["messages"][0]["content"])
        total = count_tokens(prompt_text(first))
    print(f"paicli --version  median {statistics.median(version) * 1000:7.1f} ms  "
          f"(min {min(version) * 1000:.1f}, max {max(version) * 1000:.1f}, n={args.runs})  target < 300 ms")
    print(f"paicli -p (fake)  median {statistics.median(oneshot) * 1000:7.1f} ms  "
          f"(min {min(oneshot) * 1000:.1f}, max {max(oneshot) * 1000:.1f}, n={args.runs})  target < 1000 ms")
    print(f"first request     {total:7,d} prompt tokens ({len(first.get('tools') or [])} tools {count_tokens(tools):,d}, "
          f"system prompt {count_tokens(system):,d})  target <= 3,300 -> {'met' if total <= 3300 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
