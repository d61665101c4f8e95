"""Start-up diagnostics never reach the terminal the user reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.testing.proc import paicli_env, run_paicli

pytestmark = pytest.mark.e2e


def test_a_local_server_that_is_down_leaves_no_traceback_on_the_terminal(tmp_path: Path) -> None:
    down = "http://127.0.0.1:9/v1"  # the discard port: nothing listens on loopback
    done = run_paicli(["-p", "你好"], paicli_env(tmp_path, down), tmp_path)

    assert done.returncode == 1  # the run itself fails, with the provider error the contract names
    assert "无法连接到" in done.stderr
    assert "Traceback" not in done.stderr
    assert "context window failed" not in done.stderr
