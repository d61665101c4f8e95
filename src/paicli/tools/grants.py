"""Session approval grants ("a" at an approval), scoped the way careful agents scope them (pure).

A shell grant covers one command prefix: the program plus its subcommand (`npm test`, `git commit`), never a
command that is destructive; a file grant covers file edits (tools that declare `writes_files`), never shell
commands; an MCP grant covers one MCP tool, unless its server marks it destructive.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any, Literal

from paicli.tools.guards import command_violation, is_read_only_command
from paicli.tools.schema import ToolSpec

GrantKind = Literal["command", "edits", "tool"]
_SEPARATORS = frozenset({";", "&&", "||", "|", "&"})
_SUBCOMMAND = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")
# Programs that remove, overwrite or kill: an approval of them is only ever for the one call.
_DESTRUCTIVE_PROGRAMS = frozenset(
    {
        "rm",
        "rmdir",
        "unlink",
        "shred",
        "dd",
        "mkfs",
        "truncate",
        "kill",
        "killall",
        "pkill",
        "chmod",
        "chown",
        "mv",
        "sudo",
        "su",
        "doas",
        "wipefs",
        "fdisk",
        "parted",
        "reboot",
        "shutdown",
        "halt",
        "poweroff",
    }
)
_DESTRUCTIVE_GIT = {
    "push": ("-f", "--force", "--force-with-lease", "--delete", "-d", "--mirror"),
    "reset": ("--hard", "--merge", "--keep"),
    "clean": ("",),
    "branch": ("-D", "--delete", "-d"),
    "checkout": ("--", ".", "-f", "--force"),
    "restore": ("",),
    "stash": ("drop", "clear"),
    "rebase": ("",),
    "filter-branch": ("",),
    "gc": ("--prune",),
}
_DESTRUCTIVE_ARGS = ("-delete", "--delete", "-exec", "-execdir")
# Programs that only create what is named: a grant covers the program, never one file (`touch a.txt`).
_WHOLE_PROGRAMS = frozenset({"touch", "mkdir"})
_PLAIN_WORD = re.compile(r"^[\w@%+=:,./-]+$")


@dataclass(frozen=True)
class Grant:
    kind: GrantKind
    words: tuple[str, ...] = ()  # the command prefix, for kind == "command"
    exact: bool = False  # the command had no subcommand word: the grant covers only that exact command

    def label(self) -> str:
        if self.kind == "edits":
            return "项目内的文件写入和编辑（write_file / edit_file；不含 shell 命令）"
        if self.kind == "tool":
            return f"MCP 工具 {self.words[0]}"
        shown = " ".join(_quoted(word) for word in self.words)
        return f"命令 `{shown}`" if self.exact else f"以 `{shown}` 开头的命令"


def _quoted(word: str) -> str:
    """A word as a person would type it back: quoted when it needs to be, double quotes around a word that
    holds single ones (`print('ok')`), so the label reads like the command that was asked about."""
    if _PLAIN_WORD.match(word):
        return word
    if "'" not in word:
        return f"'{word}'"
    if not any(ch in word for ch in '"$`\\!'):
        return f'"{word}"'
    return shlex.quote(word)


def _tokens(command: str) -> list[str] | None:
    text = (command or "").strip()
    if not text or "`" in text or "$(" in text or "\\\n" in text:
        return None
    try:
        lexer = shlex.shlex(text.replace("\n", " ; "), posix=True, punctuation_chars=";&|<>()")
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return None


def command_segments(command: str) -> list[list[str]] | None:
    """The simple commands of a command line, or None when it cannot be judged (substitution, redirection
    into a file, subshells, bad quoting)."""
    tokens = _tokens(command)
    if tokens is None:
        return None
    segments: list[list[str]] = []
    current: list[str] = []
    for token in [*tokens, ";"]:
        if token in _SEPARATORS:
            if current:
                segments.append(current)
            current = []
        elif token.strip("<>()") == "" and any(ch in token for ch in ">()"):
            return None
        else:
            current.append(token)
    return segments


def _segment_destructive(words: list[str]) -> bool:
    if any(word.rsplit("/", 1)[-1] in _DESTRUCTIVE_PROGRAMS for word in words):
        return True
    if any(word in _DESTRUCTIVE_ARGS for word in words[1:]):
        return True
    if words[0] == "git" and len(words) > 1:
        flags = _DESTRUCTIVE_GIT.get(words[1])
        if flags is not None and ("" in flags or any(word in flags for word in words[2:])):
            return True
    return False


def is_destructive(command: str) -> bool:
    """True when the command could remove or overwrite things beyond recall; unjudgeable commands count too."""
    if command_violation(command) is not None:
        return True
    segments = command_segments(command)
    if segments is None:
        return True
    return any(_segment_destructive(words) for words in segments)


def _prefix_of(words: list[str]) -> Grant | None:
    program = words[0]
    if "=" in program:
        return None  # `FOO=1 cmd`: the environment is part of what was approved
    if program in _WHOLE_PROGRAMS:
        return Grant("command", (program,))
    if len(words) >= 2 and _SUBCOMMAND.match(words[1]):
        return Grant("command", (program, words[1]))
    return Grant("command", tuple(words), exact=True)


def command_grant(command: str) -> Grant | None:
    """What "always allow" would cover for this command, or None when it cannot be granted (destructive,
    unjudgeable, or several commands that each need their own approval)."""
    if is_destructive(command):
        return None
    segments = command_segments(command) or []
    asking = [words for words in segments if not is_read_only_command(shlex.join(words))] or segments
    if len(asking) != 1:
        return None
    return _prefix_of(asking[0])


def grant_for(spec: ToolSpec, args: dict[str, Any]) -> Grant | None:
    """What "always" would cover for a call of this tool: its MCP tool, file edits, or a command prefix."""
    if spec.origin == "mcp":
        return None if spec.destructive else Grant("tool", (spec.name,))
    if spec.writes_files:
        return Grant("edits")
    if spec.runs_command:
        return command_grant(spec.command(args))
    return None


def _covers_words(grant: Grant, words: list[str]) -> bool:
    if grant.exact:
        return tuple(words) == grant.words
    return tuple(words[: len(grant.words)]) == grant.words


def covered(grants: list[Grant] | tuple[Grant, ...], spec: ToolSpec, args: dict[str, Any]) -> bool:
    """Whether earlier grants let this call run unasked."""
    if spec.origin == "mcp":
        return not spec.destructive and any(g.kind == "tool" and g.words == (spec.name,) for g in grants)
    if spec.writes_files:
        return any(grant.kind == "edits" for grant in grants)
    if not spec.runs_command:
        return False
    command = spec.command(args)
    if is_destructive(command):
        return False
    segments = command_segments(command)
    if not segments:
        return False
    shell_grants = [grant for grant in grants if grant.kind == "command"]
    used = False
    for words in segments:
        if any(_covers_words(grant, words) for grant in shell_grants):
            used = True
        elif not is_read_only_command(shlex.join(words)):
            return False
    return used  # read-only parts ride along with a granted command, never on their own
