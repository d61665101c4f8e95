"""End to end against the real Python language server the dev extra installs (python-lsp-server with pyflakes):
found beside the interpreter, started with no key in its environment, its diagnostics of a written file
collected (waiting on the server's publication, not on time), and gone after close."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paicli.config.code_values import LspValues
from paicli.lsp.servers import KINDS, plan, server_env
from paicli.lsp.session import LspSession

pytestmark = pytest.mark.timeout(120)
KEY = "sk-e2e0123456789abcdefghijklmnop"


def test_pylsp_reports_the_error_just_written_and_its_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = next(kind for kind in KINDS if kind.language == "python")
    found = plan(python, LspValues(), os.environ.get("PATH"))
    assert found.command is not None and Path(found.command[0]).name == "pylsp"  # the dev extra's server
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    session = LspSession(tmp_path, LspValues(wait_seconds=60.0), server_env(lambda: (KEY,)))
    target = tmp_path / "calc.py"
    try:
        target.write_text("def area(r):\n    return pi * r * r\n")
        session.written(target)
        first = session.collect()
        assert first is not None and "L2:12 错误 undefined name 'pi' [pyflakes]" in first.text
        [pid] = session.pids()
        environ = Path(f"/proc/{pid}/environ").read_bytes()
        assert KEY.encode() not in environ and b"DEEPSEEK_API_KEY" not in environ
        target.write_text("import math\n\n\ndef area(r):\n    return math.pi * r * r\n")
        session.written(target)
        fixed = session.collect()
        assert fixed is not None and "calc.py: 之前报告的问题已全部消除。" in fixed.text
    finally:
        session.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
