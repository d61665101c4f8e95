"""Hooks in Claude Code's schema (issue 42), so scripts people already have keep working.

`<paicli home>/hooks.json` and, in a folder the user trusted, the project's `.paicli/hooks.json`:
`{"hooks": {"PreToolUse": [{"matcher": "execute_command", "hooks": [{"type": "command", "command": "…"}]}]}}`.
A hook gets the event as JSON on stdin and runs in the project root as the user would run it, with the
environment an approved command gets (no configured key, no paicli key variable). Exit code 0: fine (stdout
may add context where the event takes it); 2: blocks, with stderr as the reason the model and the user see;
anything else: a failure that is reported and otherwise ignored. Time and output are bounded.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paicli.config.env import process_environ
from paicli.config.projectfile import read_project_text
from paicli.context.types import SummaryHooks
from paicli.tools.hook_paths import HOOKS_FILE, PROJECT_HOOKS
from paicli.tools.sandbox.environ import approved_env
from paicli.tools.schema import ToolOutput

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "Stop",
)
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0
OUTPUT_LIMIT = 16_000  # characters of stdout or stderr kept from one hook
BLOCK = 2


@dataclass(frozen=True)
class HookCommand:
    event: str
    matcher: str
    command: str
    timeout: float
    source: str  # "user" or "project"

    def matches(self, subject: str) -> bool:
        if self.matcher in ("", "*"):
            return True
        try:
            return re.fullmatch(self.matcher, subject) is not None
        except re.error:
            return self.matcher == subject


@dataclass(frozen=True)
class HookResult:
    blocked: bool = False
    reason: str = ""  # stderr of the blocking hook
    context: str = ""  # stdout of hooks that exited 0 (events that take it)
    failures: tuple[str, ...] = ()  # one line per hook that failed (not exit 0 or 2), for the user


@dataclass(frozen=True)
class HookConfig:
    commands: tuple[HookCommand, ...] = ()
    problems: tuple[str, ...] = field(default=())

    def for_event(self, event: str, subject: str = "") -> list[HookCommand]:
        return [hook for hook in self.commands if hook.event == event and hook.matches(subject)]


def parse_hooks(data: object, source: str) -> HookConfig:
    if not isinstance(data, Mapping) or not isinstance(data.get("hooks"), Mapping):
        return HookConfig(problems=(f'{source}: 缺少 "hooks" 对象',))
    commands: list[HookCommand] = []
    problems: list[str] = []
    for event, groups in data["hooks"].items():
        if event not in EVENTS or not isinstance(groups, list):
            problems.append(f"{source}: 不支持的事件 {event}")
            continue
        for group in groups:
            matcher = str(group.get("matcher") or "") if isinstance(group, Mapping) else ""
            entries = group.get("hooks") if isinstance(group, Mapping) else None
            for entry in entries if isinstance(entries, list) else []:
                hook = _command(event, matcher, entry, source)
                if hook is None:
                    problems.append(f"{source}: {event} 中无法识别的钩子 {entry!r}")
                else:
                    commands.append(hook)
    return HookConfig(tuple(commands), tuple(problems))


def _command(event: str, matcher: str, entry: object, source: str) -> HookCommand | None:
    if not isinstance(entry, Mapping) or entry.get("type", "command") != "command":
        return None
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        return None
    raw = entry.get("timeout", DEFAULT_TIMEOUT)
    timeout = float(raw) if isinstance(raw, int | float) and raw > 0 else DEFAULT_TIMEOUT
    return HookCommand(event, matcher, command, min(timeout, MAX_TIMEOUT), source)


def load_hooks(home: Path, project_root: Path, trusted: bool) -> HookConfig:
    config = _from_text(_read(home / HOOKS_FILE), "user")
    if trusted:
        text = read_project_text(project_root / PROJECT_HOOKS, project_root, 256_000)
        project = _from_text(text, "project")
        config = HookConfig(config.commands + project.commands, config.problems + project.problems)
    return config


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def _from_text(text: str | None, source: str) -> HookConfig:
    if text is None:
        return HookConfig()
    try:
        return parse_hooks(json.loads(text), source)
    except ValueError as error:
        return HookConfig(problems=(f"{source}: hooks.json 无法解析: {error}",))


Keys = Callable[[], tuple[str, ...]]


class Hooks:
    """The session's hooks: runs the ones an event matches, in order, stopping at the first that blocks."""

    def __init__(
        self, config: HookConfig, project_root: Path, session_id: str = "", keys: Keys = tuple
    ) -> None:
        self.config = config
        self.project_root = project_root
        self.session_id = session_id
        self._keys = keys

    def run(self, event: str, payload: Mapping[str, Any], subject: str = "") -> HookResult:
        hooks = self.config.for_event(event, subject)
        if not hooks:
            return HookResult()
        data = {
            "session_id": self.session_id,
            "cwd": str(self.project_root),
            "hook_event_name": event,
            **payload,
        }
        stdin = json.dumps(data, ensure_ascii=False)
        context: list[str] = []
        failures: list[str] = []
        for hook in hooks:
            code, out, err = self._run_one(hook, stdin)
            if code == BLOCK:
                reason = err.strip() or f"钩子 {hook.command} 以退出码 2 阻止了这一步"
                return HookResult(True, reason, "\n".join(context), tuple(failures))
            if code == 0:
                if out.strip():
                    context.append(out.strip())
            else:
                shown = "超时" if code is None else f"退出码 {code}"
                failures.append(f"⚠️ {event} 钩子 `{hook.command}` 失败（{shown}）: {err.strip()[:200]}")
        return HookResult(False, "", "\n".join(context), tuple(failures))

    def _run_one(self, hook: HookCommand, stdin: str) -> tuple[int | None, str, str]:
        env = approved_env(process_environ(), self._keys())
        env["CLAUDE_PROJECT_DIR"] = str(self.project_root)  # what scripts written for Claude Code read
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                child = subprocess.Popen(
                    ["bash", "-c", hook.command],
                    cwd=self.project_root,
                    env=env,
                    stdin=subprocess.PIPE,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                )
            except OSError as error:
                return 1, "", str(error)
            code = _feed_and_wait(child, stdin, hook.timeout)
            return code, _head(out), _head(err)


def _feed_and_wait(child: subprocess.Popen[bytes], stdin: str, timeout: float) -> int | None:
    """The exit code, or None when the hook ran out of time (its whole process group is ended)."""
    pipe = child.stdin

    def feed() -> None:  # on its own thread: a hook that never reads stdin cannot stall paicli
        with contextlib.suppress(OSError, ValueError):
            if pipe is not None:
                pipe.write(stdin.encode("utf-8", "surrogatepass"))
                pipe.close()

    threading.Thread(target=feed, name="hook-stdin", daemon=True).start()
    try:
        return child.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        return None


def _head(handle: Any) -> str:
    handle.seek(0)
    return str(handle.read(OUTPUT_LIMIT * 4).decode("utf-8", errors="replace"))[:OUTPUT_LIMIT]


Notices = Callable[[str], None] | None


def _tell(notices: Notices, result: HookResult) -> None:
    if notices is not None:
        for line in result.failures:
            notices(line)


def before_tool(hooks: Hooks, name: str, args: Mapping[str, Any], notices: Notices) -> ToolOutput | None:
    """PreToolUse: a refusal (exit code 2, its stderr the reason) or None when the call goes on."""
    result = hooks.run("PreToolUse", {"tool_name": name, "tool_input": dict(args)}, name)
    _tell(notices, result)
    if not result.blocked:
        return None
    text = f"🪝 PreToolUse 钩子阻止了这次调用，未执行: {result.reason}"
    return ToolOutput(text, success=False, blocked=True, outcome="refused", outside_content=False)


def after_tool(
    hooks: Hooks, name: str, args: Mapping[str, Any], output: ToolOutput, notices: Notices
) -> ToolOutput:
    """PostToolUse: a hook that exits 2 adds its stderr to what the model reads of the result."""
    response = {"content": output.content[:OUTPUT_LIMIT], "success": output.success}
    result = hooks.run(
        "PostToolUse", {"tool_name": name, "tool_input": dict(args), "tool_response": response}, name
    )
    _tell(notices, result)
    if not result.blocked:
        return output
    return dataclasses.replace(
        output, content=f"{output.content}\n\n[PostToolUse 钩子的反馈] {result.reason}"
    )


def compaction_hooks(hooks: Hooks, notices: Notices) -> SummaryHooks:
    """PreCompact's stdout joins the summary's focus (what it must keep); PostCompact runs after a summary."""

    def focus(current: str | None) -> str | None:
        payload = {"trigger": "manual" if current else "auto", "custom_instructions": current or ""}
        result = hooks.run("PreCompact", payload)
        _tell(notices, result)
        if not result.context:
            return current
        return f"{current.strip()}\n{result.context}" if current and current.strip() else result.context

    def after() -> None:
        _tell(notices, hooks.run("PostCompact", {"trigger": "auto"}))

    return SummaryHooks(focus, after)
