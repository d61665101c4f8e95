"""`/permissions` (issue 42) against a real session: lists the rules in force, adds to and removes from the
user's permissions.json, and says when an untrusted folder's file does not apply."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.cli.app_backend import AppBackend
from paicli.testing.commands import command
from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.served_session import served_parts


def test_permissions_lists_adds_and_removes(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好的") as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            added = command(backend, "/permissions deny execute_command(rm *)")
            command(backend, "/permissions allow write_file(docs/**)")
            listed = command(backend, "/permissions")
            removed = command(backend, "/permissions remove 1")
            bad = command(backend, "/permissions ask 这不是规则(")
        finally:
            backend.close(5)
    assert "已添加拒绝规则 execute_command(rm *)" in added
    assert "1. [允许] write_file(docs/**)" in listed and "2. [拒绝] execute_command(rm *)" in listed
    assert "已删除允许规则 write_file(docs/**)" in removed
    saved = json.loads((tmp_path / ".paicli" / "permissions.json").read_text(encoding="utf-8"))
    assert saved == {"allow": [], "ask": [], "deny": ["execute_command(rm *)"]}
    assert "无法识别的规则" in bad
