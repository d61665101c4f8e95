"""Permission rules (`permissions.json`, the shape Claude Code users know): pure parsing and matching.

An entry is `tool` (every call of the tool) or `tool(glob)`: the glob matches the command for a tool that runs
one (each simple command of a command line on its own, so `npm test*` never lets `npm test; curl … | sh`
through) and the path, relative to the project root, for a file tool (`*` stays within one folder, `**`
crosses folders). Deny beats ask beats allow. A project's file may add ask and deny only: its allow entries are
dropped where it is read (`RuleSet.of`), so no repository can widen what runs unasked.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from paicli.tools.grants import Grant, command_segments
from paicli.tools.guards import is_read_only_command
from paicli.tools.schema import ToolSpec

RuleKind = Literal["allow", "ask", "deny"]
RuleSource = Literal["user", "project"]
KINDS: tuple[RuleKind, ...] = ("allow", "ask", "deny")
_PRECEDENCE: tuple[RuleKind, ...] = ("deny", "ask", "allow")
_ENTRY = re.compile(r"^\s*([A-Za-z0-9_.:-]+)\s*(?:\((.*)\))?\s*$", re.S)


@dataclass(frozen=True)
class Rule:
    kind: RuleKind
    tool: str
    glob: str | None  # None: every call of the tool
    source: RuleSource = "user"

    @property
    def entry(self) -> str:
        return self.tool if self.glob is None else f"{self.tool}({self.glob})"

    def label(self) -> str:
        where = "项目 .paicli/permissions.json" if self.source == "project" else "permissions.json"
        return f"{where} 的 {self.kind} 规则 {self.entry}"


def parse_entry(kind: RuleKind, text: str, source: RuleSource = "user") -> Rule | None:
    """One entry, or None when it is not `tool` or `tool(glob)`."""
    match = _ENTRY.match(text)
    if match is None:
        return None
    glob = match.group(2)
    return Rule(kind, match.group(1), glob.strip() if glob is not None and glob.strip() else None, source)


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...] = ()
    problems: tuple[str, ...] = ()  # entries that were dropped, said once by /permissions

    @classmethod
    def of(cls, data: object, source: RuleSource) -> RuleSet:
        """A file's parsed JSON; anything that is not the documented shape is named in `problems`."""
        if isinstance(data, str):
            return cls(problems=(data,))
        if not isinstance(data, Mapping):
            return cls(problems=('不是 {"allow": [...], "ask": [...], "deny": [...]} 形式的对象',))
        rules: list[Rule] = []
        problems: list[str] = []
        for kind in KINDS:
            entries = data.get(kind, [])
            if not isinstance(entries, list):
                problems.append(f"{kind} 不是列表")
                continue
            if kind == "allow" and source == "project" and entries:
                problems.append(f"项目文件不能添加 allow 规则，已忽略 {len(entries)} 条")
                continue
            for entry in entries:
                rule = parse_entry(kind, entry, source) if isinstance(entry, str) else None
                if rule is None:
                    problems.append(f"{kind} 中无法识别的条目: {entry!r}")
                else:
                    rules.append(rule)
        return cls(tuple(rules), tuple(problems))

    def plus(self, other: RuleSet) -> RuleSet:
        return RuleSet(self.rules + other.rules, self.problems + other.problems)

    def first(
        self, kind: RuleKind, spec: ToolSpec, args: Mapping[str, Any], paths: Sequence[str]
    ) -> Rule | None:
        """The first rule of `kind` that applies to this call (deny and ask: any part; allow: every part)."""
        for rule in self.rules:
            if rule.kind == kind and rule.tool == spec.name and _applies(rule, spec, args, paths):
                return rule
        return None

    def matching(self, spec: ToolSpec, args: Mapping[str, Any], paths: Sequence[str]) -> Rule | None:
        """The rule that decides this call: a deny before an ask before an allow; None when none applies."""
        for kind in _PRECEDENCE:
            found = self.first(kind, spec, args, paths)
            if found is not None:
                return found
        return None


def _applies(rule: Rule, spec: ToolSpec, args: Mapping[str, Any], paths: Sequence[str]) -> bool:
    if rule.glob is None:
        return True
    if spec.runs_command:
        return _command_applies(rule, spec.command(dict(args)))
    if spec.path_params:
        pattern = path_pattern(rule.glob)
        hits = [bool(pattern.fullmatch(path)) for path in paths]
        if not hits:
            return False
        return all(hits) if rule.kind == "allow" else any(hits)
    return False  # a glob on a tool with neither a command nor a path never applies


def _command_applies(rule: Rule, command: str) -> bool:
    pattern = command_pattern(rule.glob or "")
    segments = command_segments(command)
    if rule.kind != "allow":  # refusing or asking: the whole line or any one of its commands
        parts = [shlex.join(words) for words in segments or []]
        return bool(pattern.fullmatch(command.strip())) or any(pattern.fullmatch(part) for part in parts)
    if not segments:
        return False  # substitution, redirection or bad quoting: no rule can vouch for it
    used = False
    for words in segments:
        if pattern.fullmatch(shlex.join(words)):
            used = True
        elif not is_read_only_command(shlex.join(words)):
            return False
    return used


def command_pattern(glob: str) -> re.Pattern[str]:
    """`*` matches any text (spaces and slashes too), `?` one character."""
    return re.compile(
        "".join(".*" if ch == "*" else "." if ch == "?" else re.escape(ch) for ch in glob), re.S
    )


def path_pattern(glob: str) -> re.Pattern[str]:
    """`**` crosses folders (`docs/**` is everything below docs), `*` and `?` stay within one name."""
    out: list[str] = []
    i, text = 0, glob.strip().removeprefix("./")
    while i < len(text):
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif text.startswith("**", i):
            out.append(".*")
            i += 2
        elif text[i] == "*":
            out.append("[^/]*")
            i += 1
        elif text[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(text[i]))
            i += 1
    return re.compile("".join(out), re.S)


def rule_for_grant(spec: ToolSpec, grant: Grant) -> str | None:
    """The entry that would keep an "always" beyond this session (offered at the approval)."""
    if grant.kind == "tool":
        return grant.words[0]
    if grant.kind == "edits":
        return spec.name
    if grant.kind == "command" and spec.runs_command:
        shown = shlex.join(grant.words)
        return f"{spec.name}({shown})" if grant.exact else f"{spec.name}({shown}*)"
    return None


def rule_denial(rule: Rule) -> str:
    """What the model reads (and the user sees) when a deny rule refuses a call."""
    return (
        f"🛡️ 工具调用已拒绝: 命中{rule.label()}，未执行。"
        "这是用户设定的规则，不要换个方式绕过；如确有必要，请向用户说明原因"
    )


def rule_reason(rule: Rule) -> str:
    return f"命中{rule.label()}，每次都需要确认"
