"""Which files a Plan task or Team step wrote: its turn's tools, watched (the summary of the run names them)."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from paicli.agent.events import EventSink
from paicli.agent.ports import TurnTools
from paicli.cancel import CancelToken
from paicli.llm.messages import ToolCall
from paicli.tools.base import ToolResult


@functools.cache
def file_writers() -> Mapping[str, str]:
    """Each built-in tool whose spec writes its path argument, with that argument's name."""
    from paicli.tools.registry import builtin_specs

    return {
        spec.name: spec.path_params[0] for spec in builtin_specs() if spec.writes_files and spec.path_params
    }


def written_path(call: ToolCall, result: ToolResult) -> str | None:
    """The path a call wrote, when it is a file write that ran and succeeded."""
    param = file_writers().get(call.name)
    if param is None or not result.success or result.blocked:
        return None
    try:
        arguments = json.loads(call.arguments)
    except ValueError:
        return None
    path = arguments.get(param) if isinstance(arguments, dict) else None
    return path.strip() if isinstance(path, str) and path.strip() else None


class WriteLog:
    """A turn's tools that also remember each file written, in first-write order (the rest is delegated)."""

    def __init__(self, turn: TurnTools) -> None:
        self._turn = turn
        self._lock = threading.Lock()
        self._files: dict[str, None] = {}

    def definitions(self) -> list[dict[str, Any]]:
        return self._turn.definitions()

    def notice(self) -> str | None:
        return self._turn.notice()

    def verified_urls(self) -> list[str]:
        return self._turn.verified_urls()

    def execute(self, calls: Sequence[ToolCall], cancel: CancelToken, emit: EventSink) -> list[ToolResult]:
        results = self._turn.execute(calls, cancel, emit)
        for call, result in zip(calls, results, strict=False):
            path = written_path(call, result)
            if path is not None:
                with self._lock:
                    self._files.setdefault(path, None)
        return results

    def files(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._files)
