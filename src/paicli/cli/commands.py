"""Slash commands: the frozen `CommandSpec` (word, usage, argument check, handler, idle-only, hidden, completions),
the `CommandTable` that parses a line, renders /help and answers unknown input, and what a handler may use of the
REPL (`CommandContext`). The built-in rows are in cli/command_table.py."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from paicli.cli.command_forms import Form, first_words, matches

if TYPE_CHECKING:
    from paicli.cli.app_backend import AppBackend
    from paicli.cli.backend import CommandReply
    from paicli.cli.repl_terminal import ReplIO
    from paicli.config.modes import RunMode

CommandKind = Literal["none", "command", "unknown"]


@dataclass(frozen=True)
class ParsedCommand:
    kind: CommandKind
    name: str = ""  # canonical command name for kind == "command"
    args: str = ""  # trimmed text after the command word (the whole input for kind == "none")
    bare: bool = False  # typed without the slash (`clear`, `exit`)


ArgCheck = Callable[[str], bool]


class CommandContext(Protocol):
    """What a command handler may use of the REPL: the whole session (its parts are called directly), the
    terminal side, and the dispatcher's few actions (reply, run a task, stop). /model and /resume rebuild the
    session's core in place (the factory)."""

    pending: RunMode | None  # `/plan` without a task: the mode of the next input

    @property
    def session(self) -> AppBackend: ...

    @property
    def io(self) -> ReplIO: ...

    @property
    def table(self) -> CommandTable:
        """The commands this REPL knows (for /help)."""
        ...

    def reply(self, reply: CommandReply, prefix: str = "") -> None: ...

    def run_task(self, text: str, mode: RunMode) -> None: ...

    def notices(self) -> None: ...

    def remember_fold(self, tool: str, text: str) -> None:
        """Keep `text` as the newest folded output, opened with Ctrl+O."""
        ...

    def stop(self) -> None:
        """End the REPL after this command."""
        ...


Handler = Callable[[CommandContext, str], None]


def no_args(args: str) -> bool:
    return not args


def any_args(_: str) -> bool:
    return True


def one_of(*choices: str) -> ArgCheck:
    allowed = {choice.lower() for choice in choices}

    def check(args: str) -> bool:
        return args.lower() in allowed

    return check


def forms_args(*forms: Form, lenient: bool = True) -> ArgCheck:
    """Accepts what fits one of the forms (or nothing). `lenient`: a sub-command word whose forms all need
    more is accepted without it, so its handler can say what is missing (`/memory search` -> 写上关键词)."""
    needs_more = {word.lower() for form in forms for word, more in first_words(form.args) if more}
    complete = {word.lower() for form in forms for word, more in first_words(form.args) if not more}

    def check(args: str) -> bool:
        if not args or any(matches(form.args, args) for form in forms):
            return True
        sub = args.split(maxsplit=1)[0].lower()
        return lenient and sub in needs_more and sub not in complete

    return check


def skill_args(args: str) -> bool:
    words = args.split()
    if not words:
        return True
    sub = words[0].lower()
    if sub in ("list", "reload"):
        return len(words) == 1
    return sub in ("show", "on", "off") and len(words) == 2


def mcp_args(args: str) -> bool:
    words = args.split()
    if not words:
        return True
    sub = words[0].lower()
    if sub in ("resources", "prompts"):
        return len(words) <= 2
    return sub in ("restart", "logs", "disable", "enable") and len(words) == 2


def count_args(args: str) -> bool:
    return not args or args.isdigit()


Completions = tuple[tuple[str, str], ...]  # (text to insert, what it does), offered after the command word


@dataclass(frozen=True)
class CommandSpec:
    name: str
    usage: str
    description: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    accepts: ArgCheck = no_args
    bare_words: tuple[str, ...] = ()  # spellings recognised without the slash
    # A yes/no question a person at the terminal answers before a bare spelling runs: a shell habit (`clear`)
    # must not throw away what the slash form would. Empty: the bare word runs as the command does.
    bare_question: str = ""
    idle_only: bool = False  # replaces or rebuilds the session: refused while a task runs
    hidden: bool = False  # works, but /help and completion do not offer it
    completions: Completions = ()  # default: the first words of `forms`
    forms: tuple[Form, ...] = ()  # the sub-commands, each its own /help line (command_forms.py notation)

    @property
    def words(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def offered(self) -> Completions:
        """What completion offers after the command word: the explicit list, else each form's first word."""
        if self.completions:
            return self.completions
        items: dict[str, str] = {}
        for form in self.forms:
            for word, more in first_words(form.args):
                items.setdefault(word + (" " if more else ""), form.description)
        return tuple(items.items())


_COMMAND_LINE = re.compile(r"/(\S+)(?:\s+(.*))?", re.DOTALL)


class CommandTable:
    """The commands a REPL knows, in /help order; a word claimed by two specs is refused at construction."""

    def __init__(self, specs: Iterable[CommandSpec]) -> None:
        self.specs: tuple[CommandSpec, ...] = tuple(specs)
        self._by_word: dict[str, CommandSpec] = {}
        self._by_bare: dict[str, CommandSpec] = {}
        for spec in self.specs:
            for word in spec.words:
                self._claim(self._by_word, word, spec)
            for word in spec.bare_words:
                self._claim(self._by_bare, word, spec)

    @staticmethod
    def _claim(index: dict[str, CommandSpec], word: str, spec: CommandSpec) -> None:
        if word in index:
            raise ValueError(f"command word {word!r} claimed by /{index[word].name} and /{spec.name}")
        index[word] = spec

    def with_command(self, spec: CommandSpec) -> CommandTable:
        """This table plus one more command (listed last)."""
        return CommandTable((*self.specs, spec))

    def visible(self) -> tuple[CommandSpec, ...]:
        return tuple(spec for spec in self.specs if not spec.hidden)

    def find(self, name: str) -> CommandSpec | None:
        return self._by_word.get(name.lower())

    def parse(self, line: str) -> ParsedCommand:
        """Classify one input line. Command words are case-insensitive; arguments keep their case."""
        text = line.strip()
        if not text:
            return ParsedCommand("none", "", "")
        bare = self._by_bare.get(text.lower())
        if bare is not None:
            return ParsedCommand("command", bare.name, "", bare=True)
        if not text.startswith("/") or _looks_like_path(text):
            return ParsedCommand("none", "", text)
        match = _COMMAND_LINE.match(text)
        head, args = (match.group(1), (match.group(2) or "").strip()) if match else ("", "")
        spec = self._by_word.get(head.lower())
        if spec is None or not spec.accepts(args):
            return ParsedCommand("unknown", "", text)
        return ParsedCommand("command", spec.name, args)

    def help_rows(self) -> list[tuple[str, str]]:
        """(usage shown, description) for /help: each command's line, then one line per form of it."""
        rows: list[tuple[str, str]] = []
        for spec in self.visible():
            rows.append((f"   {spec.usage}", spec.description))
            rows += [(f"     /{spec.name} {form.args}".rstrip(), form.description) for form in spec.forms]
        return rows

    def command_list(self, column: int = 37) -> str:
        rows = self.help_rows()
        column = max(column, *(cell_width(usage) + 2 for usage, _ in rows))
        return "\n".join(f"{usage}{' ' * (column - cell_width(usage))}- {text}" for usage, text in rows)

    def help_text(self) -> str:
        return (
            "可用命令：\n"
            f"{self.command_list()}\n\n"
            "小提示：输入 / 后按 Tab 补全命令，@路径 可以引用项目里的文件；"
            "Esc+Enter 或 Ctrl+J 换行，任务运行中按 Esc 取消，Ctrl+D 退出。"
        )

    def unknown_reply(self, text: str) -> str:
        """A known command with arguments it does not take gets its own usage; anything else the full list."""
        text = text.strip()
        match = _COMMAND_LINE.match(text)
        spec = self._by_word.get(match.group(1).lower()) if match else None
        if spec is not None:
            forms = "".join(f"\n   /{spec.name} {form.args} - {form.description}" for form in spec.forms)
            return (
                f"❌ /{spec.name} 不支持这样用: {text}\n"
                f"用法: {spec.usage} - {spec.description}（/help 查看全部命令）{forms}"
            )
        guess = self.suggest(match.group(1)) if match else None
        if guess is not None:
            return f"❌ 没有这个命令: {text}。你是不是想输入 /{guess.name}？（/help 查看全部命令）"
        return f"❌ 没有这个命令: {text}\n可用命令：\n{self.command_list()}"

    def suggest(self, word: str) -> CommandSpec | None:
        """The command a typo most likely meant (`comapct` -> compact), or None when nothing is close."""
        import difflib

        visible = [w for w, spec in self._by_word.items() if not spec.hidden]
        found = difflib.get_close_matches(word.lower(), visible, n=1, cutoff=0.6)
        return self._by_word[found[0]] if found else None


def _looks_like_path(text: str) -> bool:
    """`/usr/bin/python 报错了`: a first word with another slash is a path the user pasted, not a command."""
    head = text.split(maxsplit=1)[0]
    return "/" in head[1:]


def cell_width(text: str) -> int:
    """Terminal columns: CJK wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


_SECRET_FLAG = re.compile(r"(?i)(--(?:api-key|apikey|token|secret|password)[ =])(\S+)")
_SECRET_PAIR = re.compile(r"(?i)\b((?:api[_-]?key|token|secret|password)=)([^\s&]+)")


def mask_secrets(text: str) -> str:
    """Hide credentials when echoing input (`--api-key sk-x` -> `--api-key ***`)."""
    return _SECRET_PAIR.sub(r"\1***", _SECRET_FLAG.sub(r"\1***", text))


def split_memory_args(args: str) -> tuple[str, str]:
    """`search foo bar` -> ("search", "foo bar"); empty -> ("", "")."""
    sub, _, rest = args.strip().partition(" ")
    return sub.lower(), rest.strip()


def is_yes(answer: str) -> bool:
    return answer.strip().lower() in {"y", "yes", "是", "确认", "好", "ok"}


__all__ = [
    "CommandContext",
    "CommandKind",
    "CommandSpec",
    "CommandTable",
    "Form",
    "Handler",
    "ParsedCommand",
    "is_yes",
    "mask_secrets",
    "split_memory_args",
]
