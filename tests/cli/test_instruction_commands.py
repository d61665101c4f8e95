"""`/memory files` and `/memory edit` (issue 42) against a real session."""

from __future__ import annotations

import sys
from pathlib import Path

from paicli.cli.app_backend import AppBackend
from paicli.cli.command_table import BUILTIN
from paicli.cli.repl_dispatch import Dispatcher
from paicli.testing.commands import ScriptedIO, command
from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.served_session import served_parts


def _editor(tmp_path: Path) -> str:
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys\nwith open(sys.argv[1], 'a', encoding='utf-8') as f:\n    f.write('\\nEDITED-RULE\\n')\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}"


def test_memory_files_lists_each_file_with_its_tokens_and_edit_reloads(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("AGENTS-RULE " * 40, encoding="utf-8")
    (project / "CLAUDE.md").write_text("CLAUDE-RULE", encoding="utf-8")
    with FakeOpenAIServer(default_reply="好的") as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url, EDITOR=_editor(tmp_path)))
        try:
            listed = command(backend, "/memory files")
            refused = command(backend, "/memory edit")  # no terminal: no editor is started
            terminal = ScriptedIO(interactive=True)
            Dispatcher(backend, terminal, BUILTIN).handle("/memory edit CLAUDE.md")
            prompt = backend.agent.prompt.build("")
        finally:
            backend.close(5)
    lines = listed.splitlines()
    agents = next(line for line in lines if "AGENTS.md" in line)
    claude = next(line for line in lines if "CLAUDE.md" in line and "tokens" in line)
    assert int(agents.split("约 ")[1].split()[0]) > int(claude.split("约 ")[1].split()[0]) > 0
    assert "只能在终端" in refused
    assert (project / "CLAUDE.md").read_text(encoding="utf-8").endswith("EDITED-RULE\n")
    assert "已重新加载说明文件" in terminal.out.getvalue()
    assert "EDITED-RULE" in prompt and "CLAUDE-RULE" in prompt


def test_memory_edit_refuses_a_file_that_is_no_instruction_file(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好的") as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url, EDITOR=_editor(tmp_path)))
        try:
            terminal = ScriptedIO(interactive=True)
            Dispatcher(backend, terminal, BUILTIN).handle("/memory edit ../.bashrc")
        finally:
            backend.close(5)
    assert "只能编辑说明文件" in terminal.out.getvalue()
