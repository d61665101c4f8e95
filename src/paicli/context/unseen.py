"""Level 1 after the fact: results of the latest response too big for the window become offload notices.

These results were never seen by the model, so they are not cleared (the model would lose them without a
trace); the full text goes to a session file and the view keeps a preview plus the path, exactly like an
oversized result at level 1. Biggest first, only as many as needed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from paicli.context.clearing import tool_name_of, tool_names_by_call_id
from paicli.context.rounds import last_assistant_index, latest_user_index, system_end, unseen_tool_indices
from paicli.llm.messages import Message

OFFLOAD_NOTICE_MARK = "[工具输出过大，完整内容已卸载到会话文件]"
MIN_OFFLOAD_CHARS = 2_000
PREVIEW_HEAD_CHARS = 1_000

Size = Callable[[Message], int]


class Offloader(Protocol):
    @property
    def enabled(self) -> bool: ...

    def offload(self, tool: str, content: str, head_chars: int) -> str: ...


def offload_unseen(history: list[Message], excess: int, offloader: Offloader, size: Size) -> tuple[str, ...]:
    """Offload unseen results, biggest first, until about `excess` tokens are saved. Returns their call ids."""
    if excess <= 0 or not offloader.enabled:
        return ()
    names = tool_names_by_call_id(history)
    candidates = sorted(
        (i for i in unseen_tool_indices(history) if _offloadable(history[i].content)),
        key=lambda i: -len(history[i].content or ""),
    )
    done: list[int] = []
    for index in candidates:
        if excess <= 0:
            break
        original = history[index]
        notice = offloader.offload(tool_name_of(original, names), original.content or "", PREVIEW_HEAD_CHARS)
        replaced = original.with_content(notice)
        saved = size(original) - size(replaced)
        if saved <= 0:
            continue
        history[index] = replaced
        excess -= saved
        done.append(index)
    return tuple(history[i].tool_call_id or "" for i in sorted(done))


def _offloadable(content: str | None) -> bool:
    return (
        bool(content)
        and len(content or "") >= MIN_OFFLOAD_CHARS
        and OFFLOAD_NOTICE_MARK not in (content or "")[:300]
    )


def minimal_tail(history: Sequence[Message], size: Size) -> int:
    """Tokens that no summary or fallback can remove: the system prompt, the latest user message and the
    latest response with its results."""
    kept = sum(size(m) for m in history[: system_end(history)])
    latest = latest_user_index(history)
    last = last_assistant_index(history)
    if last is not None and (latest is None or last > latest):
        kept += sum(size(m) for m in history[last:])
        if latest is not None:
            kept += size(history[latest])
    elif latest is not None:
        kept += sum(size(m) for m in history[latest:])
    return kept
