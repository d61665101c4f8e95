"""The command table: a new slash command is one row (with its handler); words are unique; idle-only commands
wait for the running task; /help and completion come from the table; `cli/` dispatches without reflection."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TypeVar

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

import paicli.cli
from paicli.cli.app_backend import AppBackend
from paicli.cli.backend import CommandReply
from paicli.cli.command_table import BUILTIN, COMMANDS
from paicli.cli.commands import CommandContext, CommandSpec, CommandTable, any_args
from paicli.cli.repl_complete import ReplCompleter
from paicli.cli.repl_dispatch import Dispatcher
from paicli.testing.fake_backend import FakeBackend, recording_table
from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.served_session import ScriptedIO, command, served_parts

T = TypeVar("T")


def turns(ctx: CommandContext, args: str) -> None:
    """A command that needs session state: the handler reads it from the session's parts directly."""
    user_turns = sum(1 for message in ctx.session.agent.history if message.role == "user")
    ctx.reply(CommandReply(f"{ctx.session.settings.model}：已有 {user_turns} 轮对话"))


TURNS = CommandSpec("turns", "/turns", "本会话有几轮对话", handler=turns, aliases=("t",))


def test_a_new_command_that_needs_session_state_is_one_row_and_one_handler(tmp_path: Path) -> None:
    table = BUILTIN.with_command(TURNS)
    with FakeOpenAIServer() as server:
        server.push("你好！")
        session = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            assert "fake-model：已有 0 轮对话" in command(session, "/turns", table=table)
            command(session, "你好", table=table)
            assert "fake-model：已有 1 轮对话" in command(session, "/t", table=table)
            assert "/turns" in command(session, "/help", table=table)  # /help is rendered from the table
        finally:
            session.close()
    completer = ReplCompleter(tmp_path, table=table)
    offered = [c.text for c in completer.get_completions(Document("/tu"), CompleteEvent())]
    assert offered == ["/turns"]
    assert BUILTIN.find("turns") is None  # the built-in table is a value: extending it made a new one


def greet(ctx: CommandContext, args: str) -> None:
    ctx.reply(CommandReply(f"你好，{args}（模型 {ctx.session.info().model}）"))


GREET = CommandSpec("greet", "/greet <名字>", "打个招呼", handler=greet, aliases=("hi",), accepts=any_args)


def test_a_word_claimed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="'ctx'"):
        BUILTIN.with_command(CommandSpec("ctx", "/ctx", "重复", handler=greet))


def test_every_row_has_a_handler_and_accepts_its_bare_usage() -> None:
    for spec in COMMANDS:
        assert callable(spec.handler), spec.name
        bare = spec.usage.split()[0]
        parsed = BUILTIN.parse(bare if spec.name != "history" else spec.usage)
        assert (parsed.kind, parsed.name) == ("command", spec.name), spec.usage


def test_hidden_commands_work_but_are_not_listed() -> None:
    table = CommandTable((*COMMANDS, CommandSpec("secret", "/secret", "不列出", handler=greet, hidden=True)))
    scripted = ScriptedIO()
    dispatcher = Dispatcher(FakeBackend(), scripted, table)  # type: ignore[arg-type]
    dispatcher.handle("/secret")
    assert "你好" in scripted.out.getvalue()
    assert "/secret" not in table.help_text()


def test_state_replacing_commands_wait_while_a_task_runs() -> None:
    assert {spec.name for spec in COMMANDS if spec.idle_only} >= {"model", "resume", "clear", "mode"}
    backend = FakeBackend()
    scripted = ScriptedIO()
    dispatcher = Dispatcher(backend, scripted, recording_table())  # type: ignore[arg-type]
    dispatcher.running = True  # as while a task's approval question is open
    dispatcher.handle("/model gpt-5")
    dispatcher.handle("/context")
    assert backend.names() == ["context"]
    assert "/model 要等它结束后再用" in scripted.out.getvalue()


JUSTIFIED_GETATTR: dict[str, int] = {}


def test_cli_dispatches_without_reflection() -> None:
    """No `getattr`/`hasattr` lookups in cli/ beyond the justified ones above (one line each)."""
    root = Path(paicli.cli.__file__).parent
    found: dict[str, int] = {}
    for path in sorted(root.glob("*.py")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if REFLECTION.search(line)]
        if lines:
            found[path.name] = len(lines)
    assert found == JUSTIFIED_GETATTR


REFLECTION = re.compile(r"\b(getattr|hasattr)\(")


def test_the_repl_loop_sees_at_most_nine_session_methods_and_handlers_no_forwarding_layer() -> None:
    """The loop's port stays small; the session keeps no one-line forward per command: a handler calls the
    session's parts (`default_mode` joined the port when the 29-method protocol for handlers went)."""
    from paicli.cli.app_backend import AppBackend
    from paicli.cli.backend import SessionPort

    def methods(kind: type) -> set[str]:
        return {name for name, value in vars(kind).items() if callable(value) and not name.startswith("_")}

    assert len(methods(SessionPort)) <= 9, methods(SessionPort)
    assert {"run", "status", "info", "drain_notices", "close"} <= methods(SessionPort)
    beyond = methods(AppBackend) - methods(SessionPort)
    # continue_in: /fork carries the conversation into a copied ledger, a rebuild like resume's
    allowed = {
        "switch_model",
        "resume",
        "restore_opened_session",
        "on_memories",
        "mcp_mentions",
        "continue_in",
    }
    assert beyond <= allowed, beyond
    # /resume's handler picks the session; rebuilding over it is the session's own step (launch uses it too)
    assert {spec.name for spec in COMMANDS} & methods(AppBackend) == {"resume"}
