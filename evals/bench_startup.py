"""Start-up benchmark: median wall time of `paicli --version` and of a `-p` task against an instant local server,
and the size of the first request (prompt tokens as the loopback server counts them: tools, system prompt, task).

Run from the repository root: python -m evals.bench_startup [--runs N]
Every paicli figure is of the installed console script (the file the installer wrote beside the interpreter), as
users run it: its wrapper's own imports count (pip before 25.0 wrote one that imports `re`; the first line names
whatever the command imports for --version beyond `python -c pass`).
Targets: --version and --help CPU <= 1.5x `python -c pass` (issue 49); on a 2-core machine: --version < 0.3 s;
the -p run's CPU (user + sys) <= 1.15x that of `python -c "import openai"`, measured side by side in interleaved pairs (issue 33; the SDK's own streamed request
is printed against the same yardstick); the first request as shipped (every default tool: the built-ins, `load_skill`,
`recall`, `revert_turn`, `create_project` and the three browser tools; the system prompt with the built-in skills
index) <= 3,400 prompt tokens (tests/prompt/test_shipped_request.py keeps the same budget).
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

from evals.sidebyside import bytecode_env, compile_sources, pairs
from paicli.config.tool_values import WebSearchValues
from paicli.config.values import PromptValues
from paicli.testing.openai_server import FakeOpenAIServer, count_tokens, prompt_text

QUICK_TARGET = 1.5  # --version and --help against the bare interpreter (issue 49)


def _time(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    return elapsed


def _imported(cmd: list[str], env: dict[str, str], cwd: str) -> set[str]:
    """Module names from Python's own import log of one run (PYTHONPROFILEIMPORTTIME)."""
    proc = subprocess.run(
        cmd, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, cwd=cwd, capture_output=True, text=True, check=True
    )
    return {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    } - {"package"}


def _extra_imports(command: list[str], env: dict[str, str], cwd: str) -> str:
    """What the installed command imports for --version that the bare interpreter does not, paicli's own modules
    aside: a wrapper that imports `re` (pip before 25.0 wrote one) shows here by name."""
    bare = _imported([sys.executable, "-c", "pass"], env, cwd)
    extra = _imported([*command, "--version"], env, cwd) - bare
    return ", ".join(sorted(name for name in extra if name != "__future__" and not name.startswith("paicli")))


def _ten_tool_request_tokens(tmp: Path) -> int:
    """The issue's yardstick: the 10 built-in tools, the system prompt without a skills index, task 你好."""
    from paicli.config.env import EnvLookup
    from paicli.prompt.assembler import PromptAssembler, PromptMode
    from paicli.prompt.repository import PromptRepository
    from paicli.tools.registry import builtin_tools
    from paicli.tools.web import WebTools

    (tmp / "project").mkdir(parents=True, exist_ok=True)
    (tmp / "home").mkdir(parents=True, exist_ok=True)
    env = EnvLookup(environ={"PAICLI_PROMPT_RUNTIME_ZONE": "UTC"})
    system = PromptAssembler(
        PromptRepository(tmp / "project", tmp / "home"), PromptValues.parse(env)
    ).assemble(PromptMode.AGENT)
    tools = [
        tool.spec.definition()
        for tool in builtin_tools(WebTools(WebSearchValues.parse(env)), lambda *args: "").values()
    ]
    body = {
        "tools": tools,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": "你好"}],
    }
    return count_tokens(prompt_text(body))


SDK_REQUEST = """
import os, openai
client = openai.OpenAI(base_url=os.environ["PAICLI_BASE_URL"], api_key="none")
stream = client.chat.completions.create(
    model="fake-model", messages=[{"role": "user", "content": "你好"}], stream=True,
    stream_options={"include_usage": True},
)
print("".join(c.choices[0].delta.content or "" for c in stream if c.choices))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    script = Path(sys.executable).with_name(
        "paicli"
    )  # the console script the installer wrote, as users run it
    if not script.is_file():
        raise SystemExit(f"no console script beside {sys.executable}: pip install -e . first")
    command = [str(script)]
    compile_sources(str(Path(__file__).resolve().parents[1] / "src"))
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(default_reply="好的，完成。") as server:
        home = Path(tmp) / "home"
        project = Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PAICLI_", "OPENAI_", "DEEPSEEK_"))}
        env = bytecode_env(env)
        env.update(
            {
                "HOME": str(home),
                "PAICLI_HOME": str(home / ".paicli"),
                "PAICLI_BASE_URL": server.base_url,
                "PAICLI_MODEL": "fake-model",
                "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
            }
        )
        _time([*command, "--version"], env, str(project))  # warm the file cache once
        version = [_time([*command, "--version"], env, str(project)) for _ in range(args.runs)]
        extra = _extra_imports(command, env, str(project))
        bare = [sys.executable, "-c", "pass"]
        quick = {
            flag: pairs([*command, flag], bare, env, str(project), args.runs)
            for flag in ("--version", "--help")
        }
        floor = [sys.executable, "-c", "import openai"]
        oneshot = pairs([*command, "-p", "你好"], floor, env, str(project), args.runs)
        first = server.requests[0]
        sdk = pairs([sys.executable, "-c", SDK_REQUEST], floor, env, str(project), args.runs)
        tools = json.dumps(first.get("tools") or [], ensure_ascii=False, sort_keys=True)
        system = str(first["messages"][0]["content"])
        total = count_tokens(prompt_text(first))
    print(f"console script {script}: imports beyond python -c pass for --version: {extra or 'none'}")
    print(
        f"paicli --version  median {statistics.median(version) * 1000:7.1f} ms  "
        f"(min {min(version) * 1000:.1f}, max {max(version) * 1000:.1f}, n={args.runs})  target < 300 ms"
    )
    for flag, measured in quick.items():
        print(measured.line(f"paicli {flag}", "python -c pass"))
        ratio = measured.ratio("cpu")
        verdict = "met" if ratio <= QUICK_TARGET else "NOT met"
        print(f"  {flag} CPU / python -c pass {ratio:.2f}x  target <= {QUICK_TARGET}x -> {verdict}")
    print(oneshot.line("paicli -p 你好", "python -c 'import openai'"))
    ratio = oneshot.ratio("cpu")
    print(
        f"  -p CPU / openai import {ratio:.2f}x  target <= 1.15x -> {'met' if ratio <= 1.15 else 'NOT met'}"
    )
    print(sdk.line("the SDK's own streamed request", "python -c 'import openai'"))
    core = _ten_tool_request_tokens(Path(tempfile.mkdtemp()))
    print(f"first request (10 built-in tools, no skills) {core:7,d} prompt tokens")
    print(
        f"first request as shipped {total:7,d} prompt tokens ({len(first.get('tools') or [])} tools "
        f"{count_tokens(tools):,d}, system prompt {count_tokens(system):,d} incl. the skills index)  "
        f"target <= 3,400 -> {'met' if total <= 3400 else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
