"""Slash-command parsing (pure) and the command table that drives /help, completion and unknown answers."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

CommandKind = Literal["none", "command", "unknown"]


@dataclass(frozen=True)
class ParsedCommand:
    kind: CommandKind
    name: str = ""  # canonical command name for kind == "command"
    args: str = ""  # trimmed text after the command word (the whole input for kind == "none")


ArgCheck = Callable[[str], bool]


def _no_args(args: str) -> bool:
    return not args


def _any_args(_: str) -> bool:
    return True


def _one_of(*choices: str) -> ArgCheck:
    allowed = {choice.lower() for choice in choices}

    def check(args: str) -> bool:
        return args.lower() in allowed

    return check


_MEMORY_BARE_SUBS = {"list", "clear"}
_MEMORY_ARG_SUBS = {"search", "delete", "verify", "replace"}


def _memory_args(args: str) -> bool:
    if not args:
        return True
    sub = args.split(maxsplit=1)[0].lower()
    if sub in _MEMORY_BARE_SUBS:
        return args.lower() == sub
    return sub in _MEMORY_ARG_SUBS


def _skill_args(args: str) -> bool:
    words = args.split()
    if not words:
        return True
    sub = words[0].lower()
    if sub in ("list", "reload"):
        return len(words) == 1
    return sub in ("show", "on", "off") and len(words) == 2


def _mcp_args(args: str) -> bool:
    words = args.split()
    if not words:
        return True
    sub = words[0].lower()
    if sub in ("resources", "prompts"):
        return len(words) <= 2
    return sub in ("restart", "logs", "disable", "enable") and len(words) == 2


def _count_args(args: str) -> bool:
    return not args or args.isdigit()


@dataclass(frozen=True)
class CommandSpec:
    name: str
    usage: str
    description: str
    aliases: tuple[str, ...] = ()
    accepts: ArgCheck = _no_args
    bare_words: tuple[str, ...] = ()  # spellings recognised without the slash

    @property
    def words(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("help", "/help", "显示可用命令及用法"),
    CommandSpec("clear", "/clear", "清空当前对话历史（长期记忆不受影响）", bare_words=("clear",)),
    CommandSpec(
        "compact", "/compact [重点]", "立即压缩对话上下文，可附带摘要时要保留的重点", accepts=_any_args
    ),
    CommandSpec(
        "context", "/context", "查看上下文窗口占用：系统提示、工具定义、对话各占多少", aliases=("ctx",)
    ),
    CommandSpec(
        "memory",
        "/memory [子命令]",
        "查看与管理长期记忆：list、search <词>、delete <id>、verify <id>、replace <id> <事实>、clear",
        aliases=("mem",),
        accepts=_memory_args,
    ),
    CommandSpec(
        "save",
        "/save [--global|--force] <事实>",
        "把一条事实写入长期记忆（默认本项目，--global 全局）",
        accepts=_any_args,
    ),
    CommandSpec("model", "/model [provider|model]", "查看当前模型，或切换到其他模型", accepts=_any_args),
    CommandSpec("mode", "/mode [auto|plan|team|ask]", "查看或切换会话模式", accepts=_any_args),
    CommandSpec(
        "hitl", "/hitl [on|default]", "调整工具调用的人工确认策略", accepts=_one_of("", "on", "default")
    ),
    CommandSpec(
        "policy",
        "/policy [reset]",
        "查看安全策略和本会话的“始终允许”；reset 撤销这些允许",
        accepts=_one_of("", "reset"),
    ),
    CommandSpec(
        "plan",
        "/plan [任务]",
        "用 Plan-and-Execute 模式执行（不带任务则作用于下一条输入）",
        accepts=_any_args,
    ),
    CommandSpec(
        "team", "/team [任务]", "用多智能体协作模式执行（不带任务则作用于下一条输入）", accepts=_any_args
    ),
    CommandSpec(
        "skill",
        "/skill [list|show|on|off|reload]",
        "查看与管理 Skill：list、show <名称>、on <名称>、off <名称>、reload",
        accepts=_skill_args,
    ),
    CommandSpec(
        "mcp",
        "/mcp [子命令 名称]",
        "MCP 服务器: 状态；restart、logs、disable、enable、resources、prompts <名称>",
        accepts=_mcp_args,
    ),
    CommandSpec("config", "/config", "查看当前生效的配置及每一项的来源（密钥已遮盖）"),
    CommandSpec("audit", "/audit [条数]", "查看今天最近的工具审计记录（默认 10 条）", accepts=_count_args),
    CommandSpec("export", "/export [文件]", "把当前对话导出为 Markdown 文件", accepts=_any_args),
    CommandSpec("resume", "/resume [编号|会话 id]", "列出本项目的历史会话并恢复其中一个", accepts=_any_args),
    CommandSpec(
        "snapshot",
        "/snapshot [list|status|clean]",
        "工作区快照：列出（默认）、查看状态、全部删除",
        accepts=_one_of("", "list", "status", "clean"),
    ),
    CommandSpec(
        "restore",
        "/restore <编号>",
        "把项目文件恢复到第 N 近的快照（先列出改动，确认后恢复）",
        accepts=_count_args,
    ),
    CommandSpec("undo", "/undo", "撤回最近一次快照之后对文件的改动（即 /restore 1），再用一次就撤销这次撤回"),
    CommandSpec("init", "/init [--force]", "为当前项目生成 PAI.md 项目说明", accepts=_one_of("", "--force")),
    CommandSpec("cancel", "/cancel", "取消正在运行的任务（运行中按 Esc 即可）", bare_words=("cancel",)),
    CommandSpec("history", "/history clear", "清空输入历史记录", accepts=_one_of("clear")),
    CommandSpec("exit", "/exit", "退出 paicli", aliases=("quit",), bare_words=("exit", "quit")),
)

_BY_WORD: dict[str, CommandSpec] = {word: spec for spec in COMMANDS for word in spec.words}
_BY_BARE: dict[str, CommandSpec] = {word: spec for spec in COMMANDS for word in spec.bare_words}


_COMMAND_LINE = re.compile(r"/(\S+)(?:\s+(.*))?", re.DOTALL)


def find(name: str) -> CommandSpec | None:
    return _BY_WORD.get(name.lower())


def parse(line: str) -> ParsedCommand:
    """Classify one input line. Command words are case-insensitive; arguments keep their case."""
    text = line.strip()
    if not text:
        return ParsedCommand("none", "", "")
    bare = _BY_BARE.get(text.lower())
    if bare is not None:
        return ParsedCommand("command", bare.name, "")
    if not text.startswith("/") or _looks_like_path(text):
        return ParsedCommand("none", "", text)
    match = _COMMAND_LINE.match(text)
    head, args = (match.group(1), (match.group(2) or "").strip()) if match else ("", "")
    spec = _BY_WORD.get(head.lower())
    if spec is None or not spec.accepts(args):
        return ParsedCommand("unknown", "", text)
    return ParsedCommand("command", spec.name, args)


def _looks_like_path(text: str) -> bool:
    """`/usr/bin/python 报错了`: a first word with another slash is a path the user pasted, not a command."""
    head = text.split(maxsplit=1)[0]
    return "/" in head[1:]


def cell_width(text: str) -> int:
    """Terminal columns: CJK wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def command_list(column: int = 34) -> str:
    lines = []
    for spec in COMMANDS:
        pad = max(1, column - cell_width(spec.usage))
        lines.append(f"   {spec.usage}{' ' * pad}- {spec.description}")
    return "\n".join(lines)


def help_text() -> str:
    return (
        "可用命令：\n"
        f"{command_list()}\n\n"
        "小提示：输入 / 后按 Tab 补全命令，@路径 可以引用项目里的文件；"
        "Esc+Enter 或 Ctrl+J 换行，任务运行中按 Esc 取消，Ctrl+D 退出。"
    )


def unknown_reply(text: str) -> str:
    """A known command with arguments it does not take gets its own usage; anything else the full list."""
    text = text.strip()
    match = _COMMAND_LINE.match(text)
    spec = _BY_WORD.get(match.group(1).lower()) if match else None
    if spec is not None:
        return (
            f"❌ /{spec.name} 不支持这样用: {text}\n"
            f"用法: {spec.usage} - {spec.description}（/help 查看全部命令）"
        )
    guess = suggest(match.group(1)) if match else None
    if guess is not None:
        return f"❌ 没有这个命令: {text}。你是不是想输入 /{guess.name}？（/help 查看全部命令）"
    return f"❌ 没有这个命令: {text}\n可用命令：\n{command_list()}"


def suggest(word: str) -> CommandSpec | None:
    """The command a typo most likely meant (`comapct` -> compact), or None when nothing is close."""
    import difflib

    found = difflib.get_close_matches(word.lower(), list(_BY_WORD), n=1, cutoff=0.6)
    return _BY_WORD[found[0]] if found else None


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
    "COMMANDS",
    "CommandKind",
    "CommandSpec",
    "ParsedCommand",
    "command_list",
    "find",
    "help_text",
    "is_yes",
    "mask_secrets",
    "parse",
    "split_memory_args",
    "unknown_reply",
]
