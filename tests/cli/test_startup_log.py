"""Start-up diagnostics land in paicli's log file, never on the terminal the user reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.testing.proc import paicli_env, run_paicli

pytestmark = pytest.mark.e2e


def test_a_local_server_that_is_down_leaves_no_traceback_on_the_terminal(tmp_path: Path) -> None:
    down = "http://127.0.0.1:9/v1"  # the discard port: nothing listens on loopback
    done = run_paicli(["-p", "你好"], paicli_env(tmp_path, down), tmp_path)

    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "context window failed" not in done.stderr
    log = (tmp_path / ".paicli" / "logs" / "paicli.log").read_text(encoding="utf-8")
    assert f"asking {down} for its context window failed" in log
    assert "ConnectionError" in log
