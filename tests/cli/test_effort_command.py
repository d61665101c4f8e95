"""`/effort` (issue 42) on a real session: the next request carries it, the status bar shows it, /model keeps it."""

from __future__ import annotations

from pathlib import Path

from paicli.cli.app_backend import AppBackend
from paicli.testing.commands import command
from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.served_session import served_parts


def test_effort_changes_the_next_request_and_shows_in_the_status_bar(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好的") as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            before = backend.status().mode
            reply = command(backend, "/effort high")
            command(backend, "你好")
            after = backend.status().mode
            sent = server.requests[-1]
            command(backend, "/effort default")
            command(backend, "再来")
            plain = server.requests[-1]
        finally:
            backend.close(5)
    assert "effort" not in before and "effort high" in after
    assert "reasoning_effort=high" in reply and sent["reasoning_effort"] == "high"
    assert "reasoning_effort" not in plain


def test_effort_keeps_the_model_so_the_session_file_records_no_model_change(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好的") as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            command(backend, "你好")  # the session file exists once a turn is recorded
            reply = command(backend, "/effort high")
            path = backend.parts.ledger.path
            assert path is not None
            lines = path.read_text(encoding="utf-8").splitlines()
        finally:
            backend.close(5)
    assert "reasoning_effort=high" in reply
    assert not [line for line in lines if '"model_change"' in line]
