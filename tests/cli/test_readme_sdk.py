"""The README's `paicli.sdk` examples, extracted and run as written (one child process, settings from its
environment as the README says) against the loopback fake."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import message_text, paicli_env

README = Path(__file__).resolve().parents[2] / "README.md"
RUNNER = """
import json, sys
blocks = json.loads(sys.stdin.read())
for number, code in enumerate(blocks):
    print(f"=== block {number}", flush=True)
    exec(compile(code, f"README block {number}", "exec"), {"__name__": "__main__"})
"""


def sdk_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Python SDK: `paicli.sdk`") :]
    section = section[: section.index("\n## ")]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def respond(body: dict[str, Any]) -> Reply | str:
    messages = body["messages"]
    if messages[-1]["role"] == "tool":
        return "文件已创建"
    said = message_text(messages[-1])
    if "创建文件" in said:
        return Reply.tool_calls(("execute_command", '{"command": "touch notes.txt"}'))
    return f"收到：{said.strip()[:40]}"


@pytest.mark.e2e  # a Python process runs the README's examples
def test_the_readme_sdk_examples_run(tmp_path: Path) -> None:
    blocks = sdk_blocks()
    assert len(blocks) == 3 and all("from paicli import sdk" in b for b in blocks)
    project = tmp_path / "project"
    project.mkdir()
    with FakeOpenAIServer(responder=respond) as model:
        env = paicli_env(tmp_path / "home", model.base_url)
        proc = subprocess.run(
            [sys.executable, "-c", RUNNER],
            input=json.dumps(blocks),
            env=env,
            cwd=project,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout.split("=== block ")
        one, two, three = out[1], out[2], out[3]
        assert re.search(r"^0\ndone session-\S+\n收到：用一句话介绍这个项目\n$", one), one
        assert "[tool] execute_command" in two and "[approval] " in two and "[done] " in two
        assert (project / "notes.txt").exists()
        assert three.splitlines()[-1] == "收到：发布分支叫什么？"
        said = [message_text(m) for m in model.requests[-1]["messages"]]
        assert "记住：发布分支叫 release/2.x" in said
