"""A pure check of the Chat Completions tool-call protocol over a list of Messages."""

from __future__ import annotations

from collections.abc import Sequence

from paicli.llm.messages import Message


def protocol_errors(messages: Sequence[Message]) -> list[str]:
    errors: list[str] = []
    pending: list[str] = []
    for index, message in enumerate(messages):
        if message.role == "tool":
            if message.tool_call_id not in pending:
                errors.append(f"#{index}: tool result {message.tool_call_id!r} answers no open call")
            else:
                pending.remove(message.tool_call_id)
            continue
        if pending:
            errors.append(f"#{index}: {message.role} message before results of {pending}")
            pending = []
        if message.role == "system" and index != 0:
            errors.append(f"#{index}: system message not first")
        if message.role == "assistant" and message.tool_calls:
            ids = [c.id for c in message.tool_calls]
            if len(set(ids)) != len(ids):
                errors.append(f"#{index}: duplicate tool call ids")
            pending = list(ids)
    if pending:
        errors.append(f"end: unanswered tool calls {pending}")
    return errors


def assert_protocol_valid(messages: Sequence[Message]) -> None:
    errors = protocol_errors(messages)
    assert not errors, errors
