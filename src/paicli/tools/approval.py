"""Approval modes (auto / ask, /hitl on|default, --yes), the stock approvers and the /policy report."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paicli.config.modes import DEFAULT_MODE, MODE_NAMES, SessionMode, mode_named
from paicli.tools.base import ApprovalDecision, ApprovalRequest
from paicli.tools.guards import COMMAND_RULES, PassedName, is_read_only_command
from paicli.tools.schema import ToolSpec

if TYPE_CHECKING:
    from paicli.tools.grants import Grant
    from paicli.tools.rule_book import RuleBook
    from paicli.tools.rules import RuleSet
    from paicli.tools.sandbox.status import SandboxGate

# The judgement of a call (grants, rules, protected paths, pure commands) loads with the first call judged: a
# session whose model calls no tool (a greeting) never needs it.

HITL_PREFIX = "[HITL]"
_CHOICES = " | ".join(MODE_NAMES)


def _mode_text(name: SessionMode) -> str:
    found = mode_named(name)
    return (found or DEFAULT_MODE).text


def start_mode(name: str) -> SessionMode:
    """The start-up mode setting (validated at start-up against the same names as /mode)."""
    return (mode_named(name) or DEFAULT_MODE).name


class AutoApprover:
    """`--yes`: approves everything without asking."""

    asks_human = False

    def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        return "approve"


class DenyingApprover:
    """No human available (one-shot without --yes, piped stdin): every request is refused."""

    def __init__(
        self, reason_text: str = "当前没有可以确认操作的用户（非交互运行）；如需允许，请加 --yes 重新运行"
    ) -> None:
        self.reason_text = reason_text

    asks_human = False

    def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        return "deny"


@dataclass(frozen=True)
class ApprovalNeed:
    reason: str
    human_only: bool = False  # only a person's answer will do: --yes and session grants do not cover it


class ApprovalState:
    """The session's approval settings; the REPL changes them at run time (/mode, /hitl, /clear)."""

    def __init__(
        self,
        mode: SessionMode = "auto",
        hitl: bool = False,
        yes: bool = False,
        sandbox: SandboxGate | None = None,
        rules: RuleBook | None = None,
    ) -> None:
        """`sandbox`: the command sandbox setting; None behaves like the setting's `off`. `rules`: the
        permission rules' files (None: no rules)."""
        self.sandbox = sandbox
        self.rule_book = rules
        self._mode: SessionMode = mode
        self._hitl = hitl
        self.yes = yes
        self._granted: list[Grant] = []
        self._written_gitdirs: set[Path] = set()
        self._lock = threading.Lock()

    def rules(self) -> RuleSet:
        from paicli.tools.rules import RuleSet

        return self.rule_book.current() if self.rule_book is not None else RuleSet()

    @property
    def mode(self) -> SessionMode:
        return self._mode

    @property
    def hitl(self) -> bool:
        return self._hitl

    def label(self) -> str:
        """Short label for the status bar: `auto`, `ask`, `plan`, plus `hitl` when on."""
        return f"{self._mode} · hitl" if self._hitl else self._mode

    def set_mode(self, arg: str = "") -> str:
        """`/mode [auto|plan|team|ask]` → the text shown after `🧭 `."""
        name = arg.strip().lower()
        if not name:
            return f"当前模式 {_mode_text(self._mode)}。可选: /mode {_CHOICES}"
        chosen = mode_named(name)
        if chosen is None:
            return f"未知模式: {arg.strip()}。可选: {_CHOICES}"
        self._mode = chosen.name
        return f"已切换到 {chosen.text}"

    def set_hitl(self, arg: str = "") -> str:
        """`/hitl [on|default]` → the text shown after `🔒 `."""
        value = arg.strip().lower()
        if value == "on":
            self._hitl = True
            return "HITL 已开启：每一次写文件、改文件和执行命令都会先请你确认"
        if value == "default":
            self._hitl = False
            return f"HITL 已恢复默认，按当前模式审批: {_mode_text(self._mode)}"
        if value:
            return f"不支持的参数: {arg.strip()}。用法: /hitl on | /hitl default"
        state = "开启（每次危险操作都确认）" if self._hitl else f"默认（{_mode_text(self._mode)}）"
        return f"HITL 当前: {state}。用法: /hitl on | /hitl default"

    def describe(self) -> str:
        extra = "；--yes 已开启，所有操作自动批准" if self.yes else ""
        granted = f"；本会话已始终允许 {len(self._granted)} 项（/policy 查看）" if self._granted else ""
        hitl = "；HITL 开启" if self._hitl else ""
        return f"模式 {_mode_text(self._mode)}{hitl}{extra}{granted}"

    def grant_scope(self, spec: ToolSpec, args: dict[str, Any]) -> Grant | None:
        """What answering "always" would cover for this call; None when it cannot be granted."""
        from paicli.tools.grants import grant_for

        return grant_for(spec, args)

    def grant(self, spec: ToolSpec, args: dict[str, Any]) -> Grant | None:
        """Remember "always" for this call's scope; returns the grant (None: nothing could be granted)."""
        from paicli.tools.grants import grant_for

        scope = grant_for(spec, args)
        with self._lock:
            if scope is not None and scope not in self._granted:
                self._granted.append(scope)
        return scope

    @property
    def grants(self) -> tuple[Grant, ...]:
        with self._lock:
            return tuple(self._granted)

    def grants_text(self) -> str:
        """`/policy`'s list of what this session always allows."""
        grants = self.grants
        if not grants:
            return "   本会话始终允许: 无（审批时按 a 添加；/policy reset 清空）"
        lines = ["   本会话始终允许（/policy reset 清空）:"]
        lines += [f"     - {grant.label()}" for grant in grants]
        return "\n".join(lines)

    def clear_grants(self) -> None:
        with self._lock:
            self._granted.clear()

    def note_write(self, project_root: Path, relative_path: str | None) -> None:
        """A file tool is about to write `relative_path`: remember the git directory it lies in, if any."""
        from paicli.tools.protected import git_dir_of

        gitdir = git_dir_of(relative_path)
        if gitdir is not None:
            with self._lock:
                self._written_gitdirs.add(Path(project_root) / gitdir)

    def written_gitdirs(self) -> tuple[Path, ...]:
        with self._lock:
            return tuple(sorted(self._written_gitdirs))

    def needs_approval(
        self,
        spec: ToolSpec,
        args: dict[str, Any],
        relative_path: str | None = None,
        project_root: Path | None = None,
        *,
        allowed: bool = False,
    ) -> ApprovalNeed | None:
        """Why a human must confirm this call, or None when it may run. Guards have already passed.

        Only a tool that declares itself read-only runs unasked by default; `auto_approve` lets auto mode run
        a writing tool after its own checks (protected files, the read-only command judgement, the sandbox).
        `relative_path`: the guarded, real path of a file tool relative to the project root, when known.
        `project_root`: where commands run (default: the current directory). `allowed`: a permission rule
        allows the call; like a grant it never covers a protected file, and a command it lets run unasked
        still runs in the sandbox.
        """
        if spec.read_only or self.yes:
            return None
        if self._hitl:
            return ApprovalNeed("HITL 已开启，所有危险操作都需要确认")
        from paicli.tools.grants import covered
        from paicli.tools.protected import (
            aliased_by_protected_link,
            in_gitdir_shaped_folder,
            is_protected_path,
            protected_link,
            written_names,
        )

        passed = written_names(spec, args, project_root)
        by_rule = allowed and not spec.destructive
        with self._lock:
            granted = covered(self._granted, spec, args)
        if (by_rule or granted) and not (
            spec.writes_files
            and (
                is_protected_path(relative_path)
                or protected_link(passed)
                or aliased_by_protected_link(project_root, relative_path)
                or in_gitdir_shaped_folder(project_root, relative_path)
            )
        ):
            return (
                self._unconfined_need(spec.command(args))
                if by_rule and not granted and spec.runs_command
                else None
            )
        if spec.origin == "mcp":
            return ApprovalNeed(_mcp_reason(spec))
        if (mode_named(self._mode) or DEFAULT_MODE).asks_every_change:
            return ApprovalNeed("当前为 ask 模式，危险操作需要确认")
        if not spec.auto_approve:
            return ApprovalNeed(spec.ask_reason or "这个工具没有声明为只读，任何模式下调用前都先请你确认")
        if spec.runs_command:
            return self._command_need(spec.command(args), project_root)
        if spec.writes_files:
            return _file_need(project_root, relative_path, passed)
        return None

    def _command_need(self, command: str, project_root: Path | None) -> ApprovalNeed | None:
        if not is_read_only_command(command, project_root, self.written_gitdirs()):
            return ApprovalNeed(
                "这条命令不能确认是只读的（可能写文件、执行程序或输出密钥），auto 模式下需要确认"
            )
        return self._unconfined_need(command)

    def _unconfined_need(self, command: str) -> ApprovalNeed | None:
        """A read-only command with no sandbox to run in: `required` asks; `auto` lets only pure ones through."""
        gate = self.sandbox
        if gate is None or gate.mode == "off":
            return None
        status = gate.status()
        if status.active:
            return None
        from paicli.tools.purecmd import pure_command

        if gate.mode == "auto" and pure_command(command):
            return None
        return ApprovalNeed(f"命令沙箱不可用（{status.reason}），自动运行的命令需要你确认")

    def runs_unasked(self, spec: ToolSpec, args: dict[str, Any]) -> bool:
        """`needs_approval` said None: whether that was paicli's own judgement rather than a human's yes
        (--yes or a grant); such a command runs in the sandbox and without secret-looking variables."""
        if not spec.runs_command or self.yes:
            return False
        from paicli.tools.grants import covered

        with self._lock:
            return not covered(self._granted, spec, args)


def _mcp_reason(spec: ToolSpec) -> str:
    if spec.destructive:
        return f"MCP 服务器 {spec.server} 标明这个工具有破坏性，每次调用前都需要确认"
    return "MCP 工具由外部服务器执行，调用前需要确认（a 可对这个工具始终允许）"


def _file_need(
    project_root: Path | None, relative_path: str | None, passed: tuple[PassedName, ...] = ()
) -> ApprovalNeed | None:
    from paicli.tools.protected import (
        aliased_by_protected_link,
        in_gitdir_shaped_folder,
        is_protected_path,
        protected_link,
    )

    if is_protected_path(relative_path):
        return ApprovalNeed(
            "这个文件配置 paicli、git 或 shell（.env*、.envrc、.git/、.gitmodules、.paicli/）"
            "或是 PAI*.md 项目记忆，auto 模式下写入需要确认"
        )
    if protected_link(passed) or aliased_by_protected_link(project_root, relative_path):
        return ApprovalNeed(
            "这个路径经过一个名为受保护配置（PAI*.md、.env*、.envrc、.git、.paicli 等）的符号链接，"
            "或写到这类链接指向的位置，实际改的就是那份配置；auto 模式下写入需要确认"
        )
    if in_gitdir_shaped_folder(project_root, relative_path):
        return ApprovalNeed(
            "这个文件位于形如 git 仓库目录（HEAD、objects/、refs/）的文件夹中，auto 模式下写入需要确认"
        )
    return None


def approval_summary(spec: ToolSpec, args: dict[str, Any]) -> str:
    return spec.summary_text(args)


def denial_text(
    spec: ToolSpec, args: dict[str, Any], non_interactive_hint: str | None, note: str = ""
) -> str:
    hint = f"（{non_interactive_hint}）" if non_interactive_hint else ""
    if note.strip():
        return (
            f"{HITL_PREFIX} 用户没有批准这次操作，未执行: {approval_summary(spec, args)}。"
            f"用户的说明: {note.strip()}"
        )
    return (
        f"{HITL_PREFIX} 用户没有批准这次操作，未执行: {approval_summary(spec, args)}{hint}。"
        "不要换个方式绕过；如确有必要，请向用户说明原因并等待指示"
    )


def policy_report(
    project_root: Path,
    state: ApprovalState,
    audit_dir: Path | None = None,
    *,
    command_timeout_seconds: float = 60.0,
    offload_enabled: bool = True,
    tools: Sequence[ToolSpec] | None = None,
) -> str:
    """The `/policy` output (spec 10.3): `audit_dir` is where the session's audit log is written (None: not
    shown); without `tools`, the built-in tools are listed."""
    rules = "、".join(rule.name for rule in COMMAND_RULES)
    overflow = "超出部分卸载到会话文件，可用 read_file 读回" if offload_enabled else "截断"
    return "\n".join(
        [
            "🛡️ 当前的安全策略：",
            f"   项目根目录: {project_root}",
            f"   危险工具（需审批）: {asking_tools_text(tools)}",
            f"   审批: {state.describe()}",
            "   路径围栏: 文件工具只能访问项目根目录内的真实路径（.. 和指向外部的符号链接都会被拒绝）",
            f"   命令黑名单: {rules}",
            "   单个文件最大写入: 5MB",
            f"   命令执行上限: {command_timeout_seconds:g} 秒，输出 8KB（{overflow}）",
            "   联网: web_fetch 只访问公网 http(s) 地址，且 URL 须来自你的输入或本轮 web_search 结果",
            f"   审计目录: {audit_dir if audit_dir is not None else '（未记录）'}",
            state.grants_text(),
        ]
    )


def asking_tools_text(tools: Sequence[ToolSpec] | None) -> str:
    """The tools that do not declare themselves read-only; MCP ones are counted, not listed."""
    if tools is None:
        from paicli.tools.registry import builtin_specs

        tools = builtin_specs()
    names = [spec.name for spec in tools if not spec.read_only and spec.origin != "mcp"]
    remote = sum(1 for spec in tools if spec.origin == "mcp")
    return ", ".join(names) + (f"，以及 {remote} 个 MCP 工具" if remote else "")
