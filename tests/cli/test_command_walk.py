"""Every command line that /help, the README or a paicli message recommends works through the command table
(issue 37, issue 44 item 8): collected mechanically (tests/cli/command_lines.py), expanded into concrete lines,
then dispatched in process (the table, and the REPL dispatcher over a real session) and typed into the piped
REPL of the real program against the loopback model server. None may be refused as a usage error."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from paicli.cli.app_backend import AppBackend
from paicli.cli.command_table import BUILTIN
from paicli.testing.commands import command
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import paicli_env, run_paicli
from tests.cli.command_lines import (
    SAMPLE_ID,
    expand,
    help_usages,
    message_lines,
    readme_spans,
    readme_text,
)
from tests.cli.served_session import served_parts

REFUSED = ("不支持这样用", "没有这个命令")
# commands that may ask a question in the piped REPL (the next input line is the answer)
ASKING = ("/memory clear", "/restore", "/undo", "/resume")
ENDING = {"/exit", "/quit"}


@functools.cache
def recommended() -> dict[str, list[str]]:
    """Each concrete line, with where it was recommended (collected when a test first asks: not at collection
    time, which every test process pays even for a run that deselects these tests)."""
    sources: dict[str, list[str]] = {}
    for usage in help_usages():
        sources.setdefault(usage, []).append("/help")
    for span in readme_spans(readme_text()):
        sources.setdefault(span, []).append("README.md")
    for line, files in message_lines().items():
        sources.setdefault(line, []).extend(files)
    lines: dict[str, list[str]] = {}
    for usage, where in sources.items():
        for line in expand(usage):
            lines.setdefault(line, []).extend(f"{w}: {usage}" for w in where)
    return lines


def test_the_collection_finds_what_issue_37_named() -> None:
    """The walk is only as good as what it collects: the lines /save's messages, /help and the README
    recommend for the memory inspection commands are among them, from each kind of source."""
    lines = recommended()
    for line in ("/memory list --all", f"/memory history {SAMPLE_ID}", "/memory conflicts"):
        where = " ".join(lines.get(line, []))
        assert "/help" in where and "README.md" in where and "src/paicli/" in where, (line, where)
    assert "/save --project 样例" in lines and len(lines) > 80


def test_every_recommended_line_is_a_command_of_the_table() -> None:
    lines = recommended()
    refused = {line: lines[line] for line in lines if BUILTIN.parse(line).kind != "command"}
    assert refused == {}


@pytest.mark.e2e  # /browser starts Chromium, commands run in the wrapper
@pytest.mark.timeout(600)
def test_the_dispatcher_runs_every_line_against_a_real_session(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好的") as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            shown = {line: command(backend, line, ["n"]) for line in sorted(set(recommended()) - ENDING)}
        finally:
            backend.close(5)
    broken = ("命令执行失败", *REFUSED)
    assert {line: text for line, text in shown.items() if any(word in text for word in broken)} == {}
    assert (
        "长期记忆列表（含被取代的旧版本）" in shown["/memory list --all"]
        or "没有找到" in shown["/memory list --all"]
    )
    assert "长期记忆里没有这个 id" in shown[f"/memory history {SAMPLE_ID}"]
    assert "没有待确认的记忆冲突" in shown["/memory conflicts"]
    assert (
        "已写入长期记忆" in shown["/save --project 样例"] or "已经有这条内容" in shown["/save --project 样例"]
    )


@pytest.mark.e2e  # a paicli process per batch of lines
@pytest.mark.timeout(600)
def test_every_recommended_line_passes_the_piped_repl(project: Path, isolated_home: Path) -> None:
    script: list[str] = []
    for line in sorted(set(recommended()) - ENDING):
        script.append(line)
        if line.startswith(ASKING):
            script.append("n")  # the answer, or a short task when nothing was asked
    with FakeOpenAIServer(default_reply="好的") as server:
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli([], env, project, stdin="\n".join([*script, "/exit", ""]), timeout=540)
        server.assert_no_violations()
    output = done.stdout + done.stderr
    assert done.returncode != 2, [line for line in output.splitlines() if any(w in line for w in REFUSED)]
    assert not [line for line in output.splitlines() if any(word in line for word in REFUSED)]
    assert "再见" in output  # it read every line and reached the closing /exit
    assert "长期记忆列表（含被取代的旧版本）" in output or "没有找到符合条件的长期记忆" in output
    assert "没有待确认的记忆冲突" in output
