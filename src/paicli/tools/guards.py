"""PathGuard, CommandGuard and the read-only command rule (spec 9.2). Predicates over paths and strings."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from paicli.deferred import Deferred
from paicli.lazyre import Lazy, lazy_pattern

POLICY_DENIED = "🛡️ 策略拒绝"


class PathDenied(Exception):
    """The path leaves the project; the message is the tool result text."""


@dataclass(frozen=True)
class GuardedPath:
    real: Path  # the resolved path tools operate on
    relative: str  # forward-slash path relative to the project root ("." for the root)


class PathGuard:
    """Resolves a tool path against the project root and refuses anything whose real path lies outside it."""

    def __init__(self, project_root: Path) -> None:
        self._root = Path(os.path.realpath(project_root))

    @property
    def root(self) -> Path:
        return self._root

    def resolve(self, raw: str | None) -> GuardedPath:
        text = (raw or "").strip() or "."
        if "\x00" in text:
            raise PathDenied(f"{POLICY_DENIED}: 路径包含非法字符: {text!r}")
        candidate = Path(text)
        if not candidate.is_absolute():
            candidate = self._root / candidate
        normalized = os.path.normpath(candidate)
        real = _real_path_via_existing_ancestor(normalized)
        if not self.contains(real):
            raise PathDenied(
                f"{POLICY_DENIED}: 路径 {text} 解析后位于项目目录之外（项目根目录: {self._root}），已阻止访问。"
                "只能访问项目目录内的文件。"
            )
        rel = os.path.relpath(real, self._root)
        return GuardedPath(Path(real), Path(rel).as_posix())

    def contains(self, real: str | Path) -> bool:
        text = str(real)
        root = str(self._root)
        return text == root or text.startswith(root.rstrip(os.sep) + os.sep)


_MAX_LINKS = 40  # as the kernel's own limit: a loop of links ends here


@dataclass(frozen=True)
class PassedName:
    name: str
    link: bool  # the entry is a symbolic link (its target's components follow it)


def traversed_names(project_root: Path, raw: str | None) -> tuple[PassedName, ...]:
    """Every name a path passes through on its way to the real file, inside the project: its own components
    and those of every link it follows (`PAI.md -> docs/notes.md` gives `PAI.md`, `docs`, `notes.md`).
    Write approval judges the links' names too: a link's name is what tools and people read the file as."""
    text = (raw or "").strip() or "."
    root = os.path.realpath(project_root)
    pending = _components(text)
    current = os.sep if os.path.isabs(text) else root
    passed: list[PassedName] = []
    links = 0
    while pending:
        name = pending.pop(0)
        if name == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, name)
        target = _link_target(candidate) if links < _MAX_LINKS else None
        if _inside(current, root):
            passed.append(PassedName(name, target is not None))
        if target is None:
            current = candidate
            continue
        links += 1
        pending[:0] = _components(target)
        current = os.sep if os.path.isabs(target) else current
    return tuple(passed)


def _link_target(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:  # not a link (or gone)
        return None


def _components(text: str) -> list[str]:
    return [part for part in text.split("/") if part not in ("", ".")]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _real_path_via_existing_ancestor(normalized: str) -> str:
    """realpath of the nearest existing ancestor, with the not-yet-existing tail appended."""
    current = normalized
    tail: list[str] = []
    while not os.path.lexists(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        tail.append(os.path.basename(current))
        current = parent
    real = os.path.realpath(current)
    for name in reversed(tail):
        real = os.path.join(real, name)
    return real


@dataclass(frozen=True)
class CommandRule:
    name: str
    pattern: Lazy  # compiled at the first command judged: a run that runs none never compiles the blacklist


# Where a command word starts: line start, after a separator or `$(`, or as the script of `sh -c "…"`;
# then any wrappers that run the next word as a command (`env`, `time`, `nohup`, …) and an optional
# directory (`/usr/bin/sudo`).
_CMD_START = (
    r"(?:^|[;&|(`{\n]\s*|\$\(\s*|\b(?:ba|z|da|k)?sh\s+-c\s+[\"'])\s*"
    r"(?:(?:env|time|nohup|exec|command|builtin|nice|stdbuf|xargs)\s+(?:-\S+\s+)*)*(?:/[\w./-]*/)?"
)
_RM_TARGET = r"[\"']?(?:/|/\*|~|~/|~/\*|\$HOME/?|\$\{HOME\}/?|/home/?|/root/?|/Users/?|/\.\.?)[\"']?"

COMMAND_RULES: tuple[CommandRule, ...] = (
    CommandRule("sudo 提权", lazy_pattern(_CMD_START + r"sudo\b")),
    CommandRule(
        "递归删除根目录或主目录",
        lazy_pattern(
            r"\brm(?=[^;&|\n]*\s(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(?=\s))[^;&|\n]*\s"
            + _RM_TARGET
            + r"(?=$|\s|[;&|])"
        ),
    ),
    CommandRule("格式化文件系统 mkfs", lazy_pattern(r"\bmkfs(?:\.[A-Za-z0-9]+)?\b")),
    CommandRule("dd 写入设备", lazy_pattern(r"\bdd\b[^;&|\n]*\bof=/dev/")),
    CommandRule("fork 炸弹", lazy_pattern(r":\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:\s*&[^}]*\}\s*;?\s*:")),
    CommandRule(
        "下载内容直接交给 shell 执行",
        lazy_pattern(r"\b(?:curl|wget)\b[^;&\n]*\|\s*(?:sudo\s+)?(?:env\s+)?(?:ba|z|k|da|fi)?sh\b"),
    ),
    CommandRule("在根目录上 find", lazy_pattern(r"\bfind\s+/(?=$|\s|[;&|])")),
    CommandRule("chmod 777 根目录", lazy_pattern(r"\bchmod\s+(?:-[A-Za-z]+\s+)*0?777\s+/(?=$|\s|[;&|])")),
    CommandRule("关机或重启", lazy_pattern(_CMD_START + r"(?:shutdown|reboot|poweroff|halt)\b")),
)


def command_violation(command: str) -> CommandRule | None:
    """The first blacklist rule the command hits, or None."""
    for rule in COMMAND_RULES:
        if rule.pattern().search(command or ""):
            return rule
    return None


def command_denial(command: str) -> str | None:
    rule = command_violation(command)
    if rule is None:
        return None
    return f"{POLICY_DENIED}: 命令命中安全黑名单（{rule.name}），已阻止执行: {command.strip()}"


def is_read_only_command(
    command: str, cwd: Path | None = None, written_gitdirs: tuple[Path, ...] = ()
) -> bool:
    """True only for commands that clearly just read (auto mode runs them unasked); see tools/readonly.py.

    `cwd`: where the command would run (default: the current directory); `written_gitdirs`: git
    directories this session wrote, where git no longer counts as read-only.
    """
    where = Path(cwd) if cwd is not None else Path.cwd()
    return READ_ONLY_RULE.get().read_only_at(command, where, tuple(written_gitdirs))


class ReadOnlyRule(Protocol):
    """What tools/readonly.py provides (the module itself satisfies this): the shell-word parser and the
    allow-list tables load with the first command judged, never in a run that runs no command (issue 49)."""

    @property
    def read_only_at(self) -> Callable[[str, Path, tuple[Path, ...]], bool]: ...
    @property
    def syntactically_read_only(self) -> Callable[[str], bool]: ...


def _load_read_only_rule() -> ReadOnlyRule:
    from paicli.tools import readonly

    return readonly


READ_ONLY_RULE: Deferred[ReadOnlyRule] = Deferred(_load_read_only_rule)
