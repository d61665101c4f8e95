"""A plain `paicli -p` loads only what it uses (issue 49): the browser, the code index, language servers and
MCP's client side (no server configured) are imported at first use, never by a run that does not use them; nor
are the tools' implementations (only their specs: the model is still offered every tool), the plan machinery,
/model's switch or the REPL's rich plan view. `-p --plan` runs without the REPL's tables, trees and live view.
So are the workspace snapshots (until a turn's first change), the session retention (no limit set), the context
figures the REPL shows and the transcript a resume shows.
So are the parts of memory and context a greeting never reaches: the extraction rules (a turn shorter than
extraction's range), the store's evolution logic and the claim grammar (no write, no memory to index), and
what compaction does past a threshold (a history far below it), the price table (no figure is shown) and the
session catalog (nothing to continue).
Nor what a greeting never reaches at all: the REPL's value types, the hooks machinery and the MCP config reader
(no hooks.json, no mcp.json: tests/cli/test_start_up_seams.py shows the checks decide as the readers would), the
judgement of a tool call (grants, permission rules, protected paths), the web tools, the failure classification
of a model call, the ledger fold a resume runs, a compaction's receipt, the model record of /model and a resume,
the `@image:` reader and the terminal cell widths (rich).
A fresh interpreter (not the suite's forked runner, which has imported everything) reports its own imports."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_command, paicli_env

UNUSED_BY_A_PLAIN_RUN = (
    "paicli.browser.driver",
    "paicli.browser.session",
    "paicli.codeindex",
    "paicli.lsp",
    "paicli.mcp.session",
    "paicli.mcp.hub",
    "playwright",
    "tree_sitter",
    # the tools' implementations load at their first call (tools/handlers.py); the table keeps their specs
    "paicli.tools.files",
    "paicli.tools.search",
    "paicli.tools.create_project",
    "paicli.tools.html_text",
    "paicli.tools.web_search",
    "html.parser",
    "paicli.tools.shell",  # execute_command, and the executors a command runs by (chosen at the first call)
    "paicli.tools.executor",
    "paicli.tools.sandbox.executor",
    "paicli.tools.call_gate",  # a call's verdict and approval, and a rerun outside the sandbox
    "paicli.tools.verdict",
    "paicli.tools.rerun",
    # the read-only command judgement (shell words, allow-lists) loads with the first command judged
    "paicli.tools.readonly",
    "paicli.tools.shellwords",
    # the workspace snapshots load at a turn's first change (cli/snapshot_seam.py); retention only with a limit
    "paicli.cli.session_snapshots",
    "paicli.snapshots.recorder",
    "paicli.snapshots.store",
    "paicli.snapshots.model",
    "paicli.snapshots.git",
    "paicli.snapshots.tool",
    "paicli.cli.session_retention",
    "paicli.session.retention",
    # what the REPL shows: the context figures (status bar, /context, cache line) and a resumed transcript
    "paicli.context.status",
    "paicli.context.status_report",
    "paicli.session.transcript",
    # plan and team runs only: their events and lines (a plain run asks events.is_plan_event)
    "paicli.agent.task_events",
    "paicli.cli.plan_lines",
    "paicli.agent.plan.model",
    "paicli.agent.plan.agent",
    "paicli.agent.team.agent",
    # the REPL's: /model's switch and model lists, /pin and /compact's controls, the rich plan view
    "paicli.cli.model_switch",
    "paicli.cli.compaction_controls",
    "paicli.cli.receipt_view",
    "paicli.cli.models",
    "paicli.cli.plan_view",
    "paicli.cli.repl",
    "paicli.cli.summaries",
    "rich",  # and the cell widths a command's live output is clipped to (cli/cells.py)
    "paicli.cli.cells",
    # the REPL's value types (banner, status bar, command replies): a -p run asks for none
    "paicli.cli.backend",
    # no hooks.json and no mcp.json: their readers never load (tools/hook_paths.py, mcp/files.py)
    "paicli.tools.hooks",
    "paicli.mcp.config",
    # a tool call's judgement: grants, permission rules, protected paths, pure commands (no call was made)
    "paicli.tools.grants",
    "paicli.tools.rules",
    "paicli.tools.protected",
    "paicli.tools.purecmd",
    "paicli.config.saved",
    "paicli.tools.web",  # web_fetch / web_search build their WebTools at the first call (tools/handlers.py)
    "paicli.llm.failures",  # a model call's failure classification: the call succeeded
    "paicli.session.resume",  # the ledger fold: nothing is resumed (the entries' names: session/ledger_keys.py)
    "paicli.context.receipts",  # a compaction's receipt (context/receipt_events.py names its events)
    "paicli.context.outcomes",
    "paicli.session.model_record",  # /model and a resume
    "paicli.cli.image_refs",  # the @image: reader (cli/vision.py answers whether the model takes images)
)
# what a `-p --plan` run never needs: its lines are plain text (cli/plan_lines.py), and no task calls a tool here
UNUSED_BY_A_PLAN_RUN = (
    "paicli.cli.plan_view",
    "paicli.cli.spinner",
    "rich.console",
    "rich.table",
    "rich.tree",
    "rich.live",
    "paicli.agent.team.agent",
    "paicli.tools.files",
    "paicli.tools.html_text",
)
LOADED_AT_FIRST_USE = (
    "paicli.memory.extract_rules",  # the first turn in extraction's length range
    "paicli.memory.extract_statement",
    "paicli.memory.extract_words",
    "paicli.memory.quote_context",
    "paicli.memory.evolve",  # the first write
    "paicli.memory.judge",
    "paicli.memory.mentions",
    "paicli.memory.neighbours",
    "paicli.memory.subject",  # the claim grammar: the first write or index of a memory
    "paicli.memory.claim_grammar",
    "paicli.memory.claim_tokens",
    "paicli.memory.readings",
    "paicli.memory.vector",  # the memory index
    "paicli.context.acting",  # the first call past a compaction threshold
    "paicli.context.climb",
    "paicli.context.summariser",
    "paicli.context.summary",
    "paicli.context.window",
    "paicli.context.user_words",
    "paicli.llm.pricing",  # the price table: the first cost figure asked for (-p text shows none)
    "paicli.session.catalog",  # the earlier sessions: -c / --resume
)


def imported_modules(stderr: str) -> set[str]:
    """Module names from Python's own import log (PYTHONPROFILEIMPORTTIME), threads' imports included."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }


def loaded_under(modules: set[str], package: str) -> list[str]:
    return sorted(name for name in modules if name == package or name.startswith(package + "."))


def _run_logged(args: list[str], env: dict[str, str], project: Path) -> subprocess.CompletedProcess[str]:
    """One paicli run with its import log (PYTHONPROFILEIMPORTTIME in `env`) on stderr."""
    return subprocess.run(
        paicli_command(args),
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.e2e
def test_a_plain_oneshot_run_does_not_import_unused_subsystems(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer(["好的"]) as server:
        # automatic extraction on (as shipped): the greeting reaches its gate, and the gate alone decides
        env = paicli_env(
            isolated_home,
            server.base_url,
            PYTHONPROFILEIMPORTTIME="1",
            PAICLI_MEMORY_AUTO_EXTRACT_ENABLED="true",
        )
        proc = _run_logged(["-p", "你好"], env, project)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "好的"
    modules = imported_modules(proc.stderr)
    assert "paicli.cli.compose" in modules and "openai" in modules  # the log is real: the run's own modules
    loaded = {package: loaded_under(modules, package) for package in UNUSED_BY_A_PLAIN_RUN}
    assert {package: names for package, names in loaded.items() if names} == {}
    assert {"paicli.memory.store", "paicli.memory.extractor", "paicli.context.manager"} <= modules  # in use
    assert len(server.requests) == 1  # the greeting asked the model nothing beside the task
    assert sorted(set(LOADED_AT_FIRST_USE) & modules) == []
    assert server.requests and server.requests[0]["tools"]  # the tools were still offered
    names = {tool["function"]["name"] for tool in server.requests[0]["tools"]}
    assert {"browser_status", "browser_connect", "browser_disconnect"} <= names


def _plan_reply(body: dict[str, object]) -> Reply:
    messages = body["messages"]
    assert isinstance(messages, list)
    if "Plan Builder" in str(messages[0].get("content") or ""):
        tasks = [
            {"id": f"t{i}", "description": f"独立任务 {i}", "type": "ANALYSIS", "dependencies": []}
            for i in (1, 2)
        ]
        return Reply.text(json.dumps({"summary": "两个任务", "tasks": tasks}, ensure_ascii=False))
    return Reply.text("完成")


@pytest.mark.e2e
def test_a_plan_run_prints_its_lines_without_the_repl_views(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer(responder=_plan_reply) as server:
        env = paicli_env(isolated_home, server.base_url, PYTHONPROFILEIMPORTTIME="1")
        proc = _run_logged(["-p", "两个任务", "--plan", "-y"], env, project)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "📋 执行计划（2 个任务）：两个任务" in proc.stderr  # the plan's lines are still printed
    assert "✅ 完成 [t1]: 完成" in proc.stderr and "✅ 完成 [t2]: 完成" in proc.stderr
    modules = imported_modules(proc.stderr)
    assert "paicli.agent.plan.agent" in modules  # the log is real: the plan machinery ran
    loaded = {package: loaded_under(modules, package) for package in UNUSED_BY_A_PLAN_RUN}
    assert {package: names for package, names in loaded.items() if names} == {}
