"""ToolRunner: validates, guards, approves, executes and wraps one response's tool calls (spec 9.1-9.3).

Read-only calls that follow each other in a response run together on a thread pool (at most 4); every other
call runs alone, in order, on the caller's thread (so approvals are asked one at a time). Every call gets
exactly one result, in call order; the loop never sees an exception from a tool.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paicli.cancel import Cancelled, CancelToken, cancel_scope
from paicli.config.keys import Keys, no_keys
from paicli.config.tool_values import ToolValues
from paicli.deferred import Deferred
from paicli.llm.messages import ToolCall
from paicli.memory.guard import ExternalContextTracker
from paicli.prompt.instructions import NestedInstructions
from paicli.tools.approval import (
    ApprovalState,
    DenyingApprover,
    policy_report,
)
from paicli.tools.audit import AuditLog
from paicli.tools.base import (
    Approver,
    ToolEventSink,
    ToolFinished,
    ToolResult,
    ToolStarted,
)
from paicli.tools.call_result import (
    audit_outcome,
    cancelled_output,
    emit_safely,
    final_result,
    progress_sink,
    waiting_sink,
    with_folder_notes,
)
from paicli.tools.checkpoint import TurnCheckpoint, may_change_files
from paicli.tools.context import Offloader, OutputSink, SaveMemory, ToolContext
from paicli.tools.guards import PathDenied, PathGuard
from paicli.tools.policy import HEADLINE_NOTICE, TurnToolPolicy
from paicli.tools.registry import Tool
from paicli.tools.schema import ArgumentError, ToolOutput, ToolSpec, argument_error_text, parse_arguments
from paicli.tools.table import ToolTable

__all__ = ["Offloader", "ToolRunner", "TurnToolSet"]

MAX_PARALLEL = 4
BATCH_TIMEOUT_SECONDS = 90.0

if TYPE_CHECKING:
    from paicli.tools.executor import CommandExecutors  # built at the first call that runs
    from paicli.tools.handlers import WebHandlers
    from paicli.tools.hooks import Hooks


class ToolRunner:
    """Session-wide tool runner; `for_turn` gives the tools of one top-level turn."""

    def __init__(
        self,
        project_root: Path,
        approver: Approver | None = None,
        offloader: Offloader | None = None,
        tracker: ExternalContextTracker | None = None,
        save_memory: SaveMemory | None = None,
        approval_mode: ApprovalState | None = None,
        *,
        values: ToolValues,
        keys: Keys = no_keys,
        web: WebHandlers | None = None,
        max_parallel: int = MAX_PARALLEL,
        batch_timeout: float = BATCH_TIMEOUT_SECONDS,
        audit: AuditLog | None = None,
        executors: CommandExecutors | None = None,
        notices: Callable[[str], None] | None = None,
        table: ToolTable | None = None,
        turn_hooks: Sequence[Callable[[], None]] = (),
        nested: NestedInstructions | None = None,
        hooks: Hooks | None = None,
        write_watchers: Sequence[Callable[[Path], None]] = (),
    ) -> None:
        """`values`: the parsed settings; `keys`: every configured key (the audit log and the commands' environments
        mask them). `executors`: how commands run (default: the approval state's sandbox setting decides, as the
        composition root's `session_executors` does). `notices`: where a line for the person goes (the
        session's notice board; stderr without a REPL). `table`: the tools (default: the built-ins; `web` and
        `save_memory` build them). `turn_hooks`: run when a top-level turn starts (MCP list updates); `nested`:
        folder AGENTS.md/CLAUDE.md joining a tool result; `hooks`: PreToolUse / PostToolUse (tools/hooks.py);
        `write_watchers`: told each file a tool wrote (LSP diagnostics, the code index)."""
        self.project_root = Path(project_root)
        self.values = values
        self.approver: Approver = approver if approver is not None else DenyingApprover()
        self.offloader = offloader
        self.tracker = tracker if tracker is not None else ExternalContextTracker()
        self.approval = approval_mode if approval_mode is not None else ApprovalState()
        self.paths = PathGuard(self.project_root)
        self.command_timeout = values.command_timeout
        self.table = table if table is not None else ToolTable.builtin(values, save_memory, web)
        self.tools: dict[str, Tool] = self.table.tools
        self.max_parallel = max(1, max_parallel)
        self.batch_timeout = batch_timeout
        self.audit = audit if audit is not None else AuditLog(values.audit_folder, secrets=keys())
        # chosen at the first call that runs: the shell and sandbox executors never load for a turn without one
        self._executors: Deferred[CommandExecutors] = Deferred(
            (lambda: executors) if executors is not None else (lambda: self._session_executors(keys))
        )
        self.notices = notices
        self.turn_hooks = tuple(turn_hooks)
        self.nested = nested
        self.hooks = hooks
        self.write_watchers = tuple(write_watchers)

    @property
    def executors(self) -> CommandExecutors:
        return self._executors.get()

    def _session_executors(self, keys: Keys) -> CommandExecutors:
        from paicli.tools.sandbox.executor import session_executors

        return session_executors(self.approval.sandbox, str(self.values.home), keys)

    def register(self, tool: Tool) -> None:
        """Add or replace a tool (the session's own) after construction."""
        self.table.register(tool)

    def definitions(self) -> list[dict[str, Any]]:
        return [tool.spec.definition() for tool in self.tools.values()]

    def for_turn(
        self,
        submitted_text: str,
        inherited_urls: Iterable[str] = (),
        checkpoint: TurnCheckpoint | None = None,
    ) -> TurnToolSet:
        """`inherited_urls`: URLs a Plan task / Team step may fetch (a dependency's web_search found them);
        `checkpoint`: the session's workspace snapshots, taken before the turn's first change."""
        for hook in self.turn_hooks:
            hook()
        policy = TurnToolPolicy(submitted_text, self.tracker)
        policy.add_discovered_urls(inherited_urls)
        return TurnToolSet(self, policy, submitted_text, checkpoint)

    def policy_report(self) -> str:
        """`/policy` with this runner's real settings (timeout override, offload, audit folder)."""
        offload = self.offloader is not None and self.offloader.enabled
        return policy_report(
            self.project_root,
            self.approval,
            self.audit.directory,
            command_timeout_seconds=self.command_timeout,
            offload_enabled=offload,
            tools=[tool.spec for tool in self.tools.values()],
        )

    def reset_session(self) -> None:
        """/clear: forget external-content sources and "approve all" grants."""
        self.tracker.reset()
        self.approval.clear_grants()
        if self.nested is not None:
            self.nested.reset()

    def context(
        self, cancel: CancelToken, on_output: OutputSink | None = None, *, auto_run: bool = False
    ) -> ToolContext:
        """`auto_run`: the call runs without a human's yes (commands: by the unasked executor, sandboxed where
        the sandbox is active)."""
        return ToolContext(
            self.project_root,
            self.paths,
            cancel,
            self.offloader,
            self.command_timeout,
            on_output,
            executor=self.executors.for_call(auto_run),
            ripgrep=self.values.ripgrep,
        )


class TurnToolSet:
    """The tools one turn exposes and runs (satisfies paicli.agent.ports.TurnTools)."""

    def __init__(
        self,
        runner: ToolRunner,
        policy: TurnToolPolicy,
        label: str = "",
        checkpoint: TurnCheckpoint | None = None,
    ) -> None:
        self.runner, self.policy, self.label = runner, policy, label
        self._checkpoint = checkpoint
        self._checkpointed = False

    @property
    def headline_only(self) -> bool:
        return self.policy.headline_only

    def verified_urls(self) -> list[str]:
        """URLs this turn may fetch (the input's and those web_search returned): a Plan task passes them on."""
        return sorted(self.policy.allowed_urls())

    def notice(self) -> str | None:
        """The line the loop prints before the turn, if any (headline-only inputs)."""
        return HEADLINE_NOTICE if self.policy.headline_only else None

    def definitions(self) -> list[dict[str, Any]]:
        """Every registered tool, whatever this turn allows: a byte-stable list keeps the provider's prefix
        cache; calls the turn policy withholds are refused at execution with a result saying why."""
        return self.runner.definitions()

    def execute(
        self, calls: Sequence[ToolCall], cancel: CancelToken, emit: ToolEventSink
    ) -> list[ToolResult]:
        results: list[ToolResult] = []
        index = 0
        while index < len(calls):
            end = index + 1
            if self._parallel_safe(calls[index]):
                while (
                    end < len(calls)
                    and end - index < self.runner.max_parallel
                    and self._parallel_safe(calls[end])
                ):
                    end += 1
            batch = calls[index:end]
            # a lone read-only call also runs on the pool: the caller keeps watching Esc / SIGTERM and the
            # batch timeout instead of blocking inside the tool (issue 17)
            if len(batch) == 1 and not self._parallel_safe(batch[0]):
                emit_safely(emit, ToolStarted(batch[0].id, batch[0].name, batch[0].arguments))
                result = self.run_call(batch[0], cancel, emit)
                emit_safely(emit, ToolFinished(result))
                results.append(result)
            else:
                results.extend(self._run_parallel(batch, cancel, emit))
            index = end
        return results

    def _parallel_safe(self, call: ToolCall) -> bool:
        tool = self.runner.tools.get(call.name)
        return tool is not None and tool.spec.runs_in_parallel

    def _run_parallel(
        self, batch: Sequence[ToolCall], cancel: CancelToken, emit: ToolEventSink
    ) -> list[ToolResult]:
        for call in batch:
            emit_safely(emit, ToolStarted(call.id, call.name, call.arguments))
        pool = ThreadPoolExecutor(max_workers=len(batch), thread_name_prefix="paicli-tool")
        futures: list[Future[ToolResult]] = [pool.submit(self.run_call, call, cancel) for call in batch]
        deadline = time.monotonic() + self.runner.batch_timeout
        pending = set(futures)
        while pending and not cancel.cancelled and time.monotonic() < deadline:
            _, pending = wait_futures(pending, timeout=0.05)
        pool.shutdown(wait=False, cancel_futures=True)
        results: list[ToolResult] = []
        for call, future in zip(batch, futures, strict=True):
            if future.done() and not future.cancelled():
                result = future.result()
            elif cancel.cancelled:
                result = self._final(call, cancelled_output(call.name))
            else:
                timeout = f"❌ 工具执行超时: {call.name} 未在 {self.runner.batch_timeout:g} 秒内完成"
                result = self._final(
                    call, ToolOutput(timeout, success=False, timed_out=True, outcome="timed_out")
                )
            emit_safely(emit, ToolFinished(result))
            results.append(result)
        return results

    def run_call(self, call: ToolCall, cancel: CancelToken, emit: ToolEventSink | None = None) -> ToolResult:
        """One call from raw arguments to its history-ready result. Never raises. `emit` gets the call's live
        output lines as ToolProgress events."""
        try:
            output = self._outcome(call, cancel, progress_sink(call, emit), waiting_sink(call, emit))
        except Cancelled:
            output = cancelled_output(call.name)
        except Exception as error:  # the loop must never see a tool exception
            output = ToolOutput(f"❌ 工具执行失败: {type(error).__name__}: {error}", success=False)
        result = self._final(call, output)
        recorded = audit_outcome(result.outcome)
        tool = self.runner.tools.get(call.name)
        if (tool is not None and not tool.spec.read_only) or recorded == "blocked":  # and any tool's refusals
            self.runner.audit.record(call.name, call.arguments, recorded, output.success)
        return result

    def _outcome(
        self,
        call: ToolCall,
        cancel: CancelToken,
        on_output: OutputSink | None = None,
        on_wait: OutputSink | None = None,
    ) -> ToolOutput:
        if cancel.cancelled:
            return cancelled_output(call.name)
        tool = self.runner.tools.get(call.name)
        if tool is None:
            names = ", ".join(self.runner.tools)
            return ToolOutput(f"❌ 未知工具: {call.name}。可用的工具: {names}", success=False)
        try:
            args = parse_arguments(tool.spec, call.arguments)
        except ArgumentError as error:
            return ToolOutput(argument_error_text(tool.spec, error), success=False)
        from paicli.tools import call_gate  # the approval step loads with a turn's first call

        refusal, auto_run = call_gate.refusal(self, tool, args)
        if refusal is not None:
            return refusal
        if cancel.cancelled:
            return cancelled_output(call.name)
        hooks = self.runner.hooks
        if hooks is not None:
            from paicli.tools.hooks import before_tool  # loaded already: the session has hooks

            if stopped := before_tool(hooks, call.name, args, self.runner.notices):
                return stopped
        self._before_change(tool.spec, on_wait)
        try:
            with cancel_scope(cancel):  # deep bounded waits (the memory lock) also stop on this call's cancel
                output = tool.handler(args, self.runner.context(cancel, on_output, auto_run=auto_run))
                if auto_run and output.metadata.get("sandbox_refused"):
                    from paicli.tools.rerun import RerunContext, offer_rerun  # what the sandbox refused only

                    output = offer_rerun(self.runner, tool, args, output, RerunContext(cancel, on_output))
        except PathDenied as denied:
            return ToolOutput(str(denied), success=False, blocked=True, outcome="refused")
        except Exception:
            self.policy.observe(tool.spec, call.arguments)
            raise
        if hooks is not None:
            from paicli.tools.hooks import after_tool

            output = after_tool(hooks, call.name, args, output, self.runner.notices)
        if tool.spec.writes_files and output.success:
            self._tell_watchers(tool.spec, args)
        if self.runner.nested is not None and tool.spec.path_params and output.success:
            output = with_folder_notes(output, self.runner.nested, tool.spec, args, self.runner.paths)
        urls = output.metadata.get("discovered_urls", ())
        self.policy.observe(tool.spec, call.arguments, urls, brought_content=output.outside_content)
        return output

    def _before_change(self, spec: ToolSpec, on_wait: OutputSink | None = None) -> None:
        checkpoint = self._checkpoint
        if checkpoint is None or self._checkpointed or not may_change_files(spec):
            return
        self._checkpointed = True
        with contextlib.suppress(Exception):  # a failed snapshot never stops the call (it says so itself)
            checkpoint.before_first_change(self.label, on_wait)

    def _tell_watchers(self, spec: ToolSpec, args: dict[str, Any]) -> None:
        for name in spec.path_params:
            value = args.get(name)
            if not isinstance(value, str):
                continue
            for watcher in self.runner.write_watchers:
                with contextlib.suppress(Exception):  # a watcher never changes the call's outcome
                    watcher(self.runner.project_root / value)

    def _final(self, call: ToolCall, output: ToolOutput) -> ToolResult:
        return final_result(call, output, self.runner.offloader)
