"""The command table: a new slash command is one row (with its handler); words are unique; idle-only commands
wait for the running task; /help and completion come from the table; `cli/` dispatches without reflection."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from rich.console import Console

import paicli.cli
from paicli.cancel import CancelToken
from paicli.cli.backend import CommandReply
from paicli.cli.command_table import BUILTIN, COMMANDS
from paicli.cli.commands import CommandContext, CommandSpec, CommandTable, any_args
from paicli.cli.repl_complete import ReplCompleter
from paicli.cli.repl_dispatch import Dispatcher
from paicli.testing.fake_backend import FakeBackend

T = TypeVar("T")


class ScriptedIO:
    markdown = False
    interactive = False
    pick_inline = False

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.console = Console(file=self.out, width=200)
        self.progress = Console(file=io.StringIO(), width=200)

    def ask(self, question: str) -> str | None:
        return None

    def read_key(self, prompt: str) -> str:
        return ""

    def run_cancellable(self, work: Callable[[CancelToken], T], **_: Any) -> T:
        return work(CancelToken())

    def clear_input_history(self) -> None:
        return None


def greet(ctx: CommandContext, args: str) -> None:
    ctx.reply(CommandReply(f"你好，{args}（模型 {ctx.session.info().model}）"))


GREET = CommandSpec("greet", "/greet <名字>", "打个招呼", handler=greet, aliases=("hi",), accepts=any_args)


def test_a_new_command_is_one_row_in_the_table(tmp_path: Path) -> None:
    table = BUILTIN.with_command(GREET)
    scripted = ScriptedIO()
    dispatcher = Dispatcher(FakeBackend(), scripted, table)  # type: ignore[arg-type]
    assert dispatcher.handle("/greet 小明")
    assert dispatcher.handle("/hi 小红")
    dispatcher.handle("/help")
    text = scripted.out.getvalue()
    assert "你好，小明（模型 fake-model）" in text and "你好，小红（模型 fake-model）" in text
    assert "/greet <名字>" in text and "打个招呼" in text  # /help is rendered from the table
    completer = ReplCompleter(tmp_path, table=table)
    offered = [c.text for c in completer.get_completions(Document("/gr"), CompleteEvent())]
    assert offered == ["/greet"]
    assert BUILTIN.find("greet") is None  # the built-in table is a value: extending it made a new one


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
    dispatcher = Dispatcher(backend, scripted)  # type: ignore[arg-type]
    dispatcher.running = True  # as while a task's approval question is open
    dispatcher.handle("/model gpt-5")
    dispatcher.handle("/context")
    assert backend.names() == ["context"]
    assert "/model 要等它结束后再用" in scripted.out.getvalue()


JUSTIFIED_GETATTR = {
    # interpreter shutdown hooks are private and may be absent on another Python
    "app.py": 1,
}


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


def test_the_repl_loop_sees_at_most_eight_session_methods() -> None:
    from paicli.cli.backend import SessionPort

    methods = [
        name for name, value in vars(SessionPort).items() if callable(value) and not name.startswith("_")
    ]
    assert len(methods) <= 8, methods
    assert {"run", "status", "info", "drain_notices", "close"} <= set(methods)
