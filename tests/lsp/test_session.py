"""Language servers of a session, against a fake stdio server (tests/fakes/lsp_server.py): started only when a
file of its language is written, given no key, its diagnostics waited for (no sleeping), stopped at close."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from paicli.config.code_values import LspValues
from paicli.lsp.session import LspSession

FAKE = Path(__file__).resolve().parents[1] / "fakes" / "lsp_server.py"
pytestmark = pytest.mark.timeout(60)


def _session(tmp_path: Path, env: dict[str, str], notices: list[str] | None = None) -> LspSession:
    command = f"{sys.executable} {FAKE} --env-file {tmp_path / 'server-env.json'}"
    values = LspValues(wait_seconds=30.0, commands={"python": command})
    return LspSession(tmp_path, values, env, (notices if notices is not None else []).append)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.e2e  # a language server process
def test_a_write_starts_the_server_once_and_its_diagnostics_reach_the_model(tmp_path: Path) -> None:
    session = _session(tmp_path, {"PATH": os.environ.get("PATH", "")})
    target = tmp_path / "app.py"
    try:
        assert session.pids() == []  # nothing runs before a Python file is written
        target.write_text("x = 1\ny = z  # ERROR: undefined name z\n# WARN: unused\n")
        session.written(target)
        found = session.collect()
        assert found is not None
        lines = found.text.splitlines()
        assert lines[1] == "app.py"
        assert lines[2].startswith("  L2:") and "错误 undefined name z" in lines[2]
        assert "警告 unused" in lines[3]
        pid = session.pids()[0]
        target.write_text("x = 1\n# WARN: unused\n")  # the error fixed, the warning already said
        session.written(target)
        assert session.collect() is None
        assert session.pids() == [pid]  # the same server
    finally:
        session.close()
    assert _gone(pid)


@pytest.mark.e2e  # a language server process
def test_the_server_gets_no_key_and_no_unlisted_variable(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    session = _session(tmp_path, env)
    try:
        (tmp_path / "a.py").write_text("# ERROR: boom\n")
        session.written(tmp_path / "a.py")
        assert session.collect() is not None
    finally:
        session.close()
    seen = json.loads((tmp_path / "server-env.json").read_text())
    assert set(seen) <= {
        "PATH",
        "HOME",
        "LC_CTYPE",
    }  # exactly what the session was given (Python may add LC_CTYPE)


def test_the_session_hands_the_server_the_scrubbed_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from paicli.lsp.servers import server_env

    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-abcdefghijklmnopqrstuvwxyz")
    monkeypatch.setenv("DATABASE_URL", "postgres://u:p@h/db")
    env = server_env(lambda: ("sk-abcdefghijklmnopqrstuvwxyz",))
    assert "DEEPSEEK_API_KEY" not in env and "DATABASE_URL" not in env
    assert "sk-abcdefghijklmnopqrstuvwxyz" not in json.dumps(env)
    assert "PATH" in env


def test_a_language_without_a_server_costs_nothing(tmp_path: Path) -> None:
    values = LspValues(commands={})
    session = LspSession(tmp_path, values, {"PATH": str(tmp_path / "empty")})
    (tmp_path / "notes.md").write_text("# ERROR: not code\n")
    session.written(tmp_path / "notes.md")
    (tmp_path / "Main.java").write_text("class Main {}\n")
    session.written(tmp_path / "Main.java")  # no jdtls on this PATH
    assert session.collect() is None and session.pids() == []
    assert any("java: 未安装" in line for line in session.status_lines())


def test_a_server_that_cannot_start_is_said_once_and_not_retried(tmp_path: Path) -> None:
    notices: list[str] = []
    values = LspValues(wait_seconds=5.0, commands={"python": str(tmp_path / "no-such-server")})
    session = LspSession(tmp_path, values, {"PATH": ""}, notices.append)
    (tmp_path / "a.py").write_text("x = 1\n")
    for _ in range(2):
        session.written(tmp_path / "a.py")
        assert session.collect() is None
    assert len(notices) == 1 and "python 语言服务器不可用" in notices[0]
    assert any("启动失败" in line for line in session.status_lines())


def test_switched_off_nothing_is_collected(tmp_path: Path) -> None:
    values = LspValues(enabled=False, commands={"python": f"{sys.executable} {FAKE}"})
    session = LspSession(tmp_path, values, {})
    (tmp_path / "a.py").write_text("# ERROR: x\n")
    session.written(tmp_path / "a.py")
    assert session.collect() is None and session.pids() == []
    assert session.status_lines() == ["语言服务器: 已关闭（PAICLI_LSP_ENABLED=false）"]
