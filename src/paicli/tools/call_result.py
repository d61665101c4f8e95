"""What one call's output becomes: the history-ready `ToolResult` (offloaded when too big, wrapped in its
boundary), its audit word, the folder notes that join it, and the live events a call sends the front end."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

from paicli.llm.messages import ToolCall
from paicli.prompt.instructions import NestedInstructions
from paicli.textsafe import encodable, encodable_or_none
from paicli.tools.base import (
    CANCELLED_PREFIX,
    ToolEvent,
    ToolEventSink,
    ToolOutcome,
    ToolProgress,
    ToolResult,
    ToolWaiting,
    outcome_of,
)
from paicli.tools.boundary import ToolResultBoundary
from paicli.tools.context import Offloader, OutputSink
from paicli.tools.guards import PathGuard
from paicli.tools.schema import ToolOutput, ToolSpec

_AUDITED = {"cancelled": "cancelled", "denied": "denied", "refused": "blocked"}


def final_result(call: ToolCall, output: ToolOutput, offloader: Offloader | None) -> ToolResult:
    # non-UTF-8 file names arrive as surrogate escapes: shown as \xNN, once, before anything stores or prints them
    content = encodable(output.content)
    if offloader is not None and not output.offloaded and not output.blocked:
        with contextlib.suppress(Exception):  # a failing offload keeps the inline text
            content = offloader.offload_if_oversized(call.name, call.arguments, content)
    return ToolResult(
        call_id=call.id,
        name=call.name,
        content=ToolResultBoundary.wrap(call.name, content),
        success=output.success,
        timed_out=output.timed_out,
        blocked=output.blocked,
        display=encodable_or_none(output.display),
        metadata=dict(output.metadata),
        outcome=output.outcome or outcome_of(output.success, output.timed_out, output.blocked),
        images=output.images if not output.blocked else (),
    )


def with_folder_notes(
    output: ToolOutput, nested: NestedInstructions, spec: ToolSpec, args: dict[str, Any], paths: PathGuard
) -> ToolOutput:
    """A call that worked in a folder with its own instruction file gets that file's text appended, once."""
    relatives = [paths.resolve(str(args.get(name, "."))).relative for name in spec.path_params]
    note = nested.note_for(relatives)
    return dataclasses.replace(output, content=output.content + note) if note else output


def audit_outcome(outcome: ToolOutcome) -> str:
    """The audit log's word for an outcome (its file format keeps them)."""
    return _AUDITED.get(outcome, "executed")


def cancelled_output(tool_name: str) -> ToolOutput:
    text = f"{CANCELLED_PREFIX}该工具调用，未执行: {tool_name}"
    return ToolOutput(text, success=False, blocked=True, outcome="cancelled")


def progress_sink(call: ToolCall, emit: ToolEventSink | None) -> OutputSink | None:
    if emit is None:
        return None
    sink = emit
    return lambda line: emit_safely(sink, ToolProgress(call.id, call.name, line))


def waiting_sink(call: ToolCall, emit: ToolEventSink | None) -> OutputSink | None:
    """What the call waits for before it runs (the workspace snapshot): the front end shows it in place of
    the call's own spinner ("" when the call goes on)."""
    if emit is None:
        return None
    sink = emit
    return lambda what: emit_safely(sink, ToolWaiting(call.id, call.name, what))


def emit_safely(emit: ToolEventSink, event: ToolEvent) -> None:
    with contextlib.suppress(Exception):  # a rendering failure must not lose a tool result
        emit(event)
