"""Where a history may be cut, and which tool results the model has not seen yet. Pure.

A *round* starts at a real user message or at an assistant message. Before the latest real user message a
cut may only land on a real user message (the reference's rule); inside the latest turn it may also land on
an assistant message, so a long task of many tool rounds can still be summarised. The latest user message is
never part of what is cut away: it is kept verbatim in front of the kept tail.

Tool results that come after the last assistant message answer the latest tool-call response: the model has
not seen them yet, so they are never cleared or summarised (only offloaded, which keeps a preview and the file).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from paicli.context.internal import is_real_user_turn
from paicli.context.recall_ids import span, tagged
from paicli.llm.messages import Message

Size = Callable[[Message], int]


def system_end(history: Sequence[Message]) -> int:
    return 1 if history and history[0].role == "system" else 0


def last_assistant_index(history: Sequence[Message]) -> int | None:
    for index in range(len(history) - 1, -1, -1):
        if history[index].role == "assistant":
            return index
    return None


def unseen_tool_indices(history: Sequence[Message]) -> frozenset[int]:
    """Tool messages after the last assistant message: results of the latest response, not yet sent."""
    last = last_assistant_index(history)
    if last is None:
        return frozenset()
    return frozenset(i for i in range(last + 1, len(history)) if history[i].role == "tool")


def latest_user_index(history: Sequence[Message]) -> int | None:
    for index in range(len(history) - 1, system_end(history) - 1, -1):
        if is_real_user_turn(history[index]):
            return index
    return None


def cut_points(history: Sequence[Message]) -> list[int]:
    """Every index the kept tail may start at, ascending (see the module note)."""
    start = system_end(history)
    latest = latest_user_index(history)
    points: list[int] = []
    for index in range(start + 1, len(history)):
        message = history[index]
        if is_real_user_turn(message) or (
            message.role == "assistant" and latest is not None and index > latest
        ):
            points.append(index)
    unseen = unseen_tool_indices(history)
    if unseen:
        newest = min(unseen) - 1  # the assistant message whose results are unseen stays in the tail
        points = [p for p in points if p <= newest]
    return points


def choose_cut(history: Sequence[Message], budget: int, size: Size) -> int | None:
    """The earliest cut whose kept part fits `budget` (the largest tail that fits); the latest possible cut
    when none fits; None when nothing could be cut away."""
    start, latest = system_end(history), latest_user_index(history)
    # something besides the latest user message must be cut away
    points = [p for p in cut_points(history) if p - start >= 2 or (p - start == 1 and start != latest)]
    if not points:
        return None
    suffix = [0] * (len(history) + 1)
    for index in range(len(history) - 1, -1, -1):
        suffix[index] = suffix[index + 1] + size(history[index])
    extra = size(history[latest]) if latest is not None else 0
    for point in points:
        kept = suffix[point] + (extra if latest is not None and latest < point else 0)
        if kept <= budget:
            return point
    return points[-1]


def rebuild(history: Sequence[Message], cut: int, head: Sequence[Message]) -> list[Message]:
    """[system, *head, latest user (when before the cut), *tail]: `head` replaces everything else before the cut.

    The head stands for what it replaced: it carries the span of their ledger references, and its first
    message names it as a recall id after its marker (a summary, a fallback note)."""
    start = system_end(history)
    latest = latest_user_index(history)
    kept_user = [history[latest]] if latest is not None and start <= latest < cut else []
    replaced = span(removed(history, cut)) if head else None
    if replaced is not None:
        head = [tagged(head[0], replaced), *(m.with_ref(replaced) for m in head[1:])]
    return [*history[:start], *head, *kept_user, *history[cut:]]


def removed(history: Sequence[Message], cut: int) -> list[Message]:
    """The messages a cut takes out of the view (the latest user message stays)."""
    latest = latest_user_index(history)
    return [
        m for i, m in enumerate(history[system_end(history) : cut], start=system_end(history)) if i != latest
    ]
