"""RunawayGuard (spec 8.3): remind the model once per run when it repeats itself; never block.

A step is every tool result of one model response. Identical actions (same tool, same canonical arguments)
or the same family of error that keep showing up in consecutive steps produce one `[runaway guard]` reminder.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from paicli.context.internal import RUNAWAY_GUARD_PREFIX
from paicli.lazyre import lazy_pattern
from paicli.llm.messages import ToolCall
from paicli.tools.base import NOT_RUN, ToolResult

MARKER = RUNAWAY_GUARD_PREFIX
DEFAULT_THRESHOLD = 3
_WRAPPED = lazy_pattern(
    r"\A\s*<tool_result\b[^>]*>\n?(.*?)\n?</tool_result>\s*\Z", re.DOTALL
)  # tool results only
_ERROR_FAMILIES = (
    ("timeout", r"timeout|timed out|deadline exceeded|超时"),
    ("rate_limit", r"rate.?limit|too many requests|\b429\b|限流"),
    ("network", r"network|econn|socket|dns|connection reset|网络"),
    ("auth", r"unauth|invalid api key|\b401\b|鉴权|认证失败"),
    ("permission", r"permission|forbidden|access denied|\b403\b|权限|越界"),
    ("not_found", r"not found|enoent|\b404\b|不存在|未找到|找不到"),
    ("invalid_argument", r"invalid argument|validation failed|bad request|\b400\b|参数"),
    ("process_exit", r"exit code|non-zero|process failed|退出码"),
)


@functools.cache
def _error_families() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Compiled at the first failed tool call: a turn without one never needs them."""
    return tuple((name, re.compile(pattern, re.ASCII)) for name, pattern in _ERROR_FAMILIES)


def inner_text(content: str) -> str:
    """The tool's own text: `ToolResult.content` arrives wrapped in `<tool_result …>…</tool_result>`."""
    match = _WRAPPED().match(content)
    return match.group(1) if match else content


def is_blocked(result: ToolResult) -> bool:
    """Refused, denied or cancelled: it never ran (its outcome, set where that was decided)."""
    return result.outcome in NOT_RUN


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    return value


def canonical_arguments(arguments: str) -> str:
    try:
        parsed = json.loads(arguments)
    except (ValueError, TypeError):
        return arguments.strip()
    return json.dumps(_canonical(parsed), ensure_ascii=False, separators=(",", ":"))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def action_key(name: str, arguments: str) -> str:
    return _digest(f"{name}\0{canonical_arguments(arguments)}")


def error_family(text: str) -> str | None:
    lowered = text[:4096].lower()
    for name, pattern in _error_families():
        if pattern.search(lowered):
            return f"category:{name}"
    collapsed = " ".join(lowered.split())[:1024]
    return f"text:{collapsed}" if collapsed else None


def action_reminder(threshold: int) -> str:
    return (
        f"{MARKER} 完全相同的工具调用（工具名和参数都一样）已经连续出现 {threshold} 次了。请不要再照原样调用。"
        "先回头看看已经拿到的结果，然后换一种做法，并说清楚新做法预计会带来什么具体变化；或者直接说明卡在了哪里。"
        "重复调用本身既不代表任务已经完成，也不代表任务做不成。"
    )


def error_reminder(threshold: int) -> str:
    return (
        f"{MARKER} 同一类工具错误已经连续出现 {threshold} 次了。请不要照原样重试同一条路。"
        "先分析出错的原因，再调整一个你能控制的因素，或者换一条路走。不要仅凭这个信号就认定整个任务已经失败。"
    )


TEMPORARY_NOTE = (
    "这条提醒只对本次任务临时有效，它不是用户偏好，也不是长期规则；"
    "请不要保存它，也不要把它总结进长期记忆、Skill 或任何其他持久化的指令里。"
)


def _advance(previous: dict[str, int], counts: Counter[str], threshold: int) -> tuple[dict[str, int], bool]:
    """New streaks (absent keys drop to 0) and whether any key crossed the threshold in this step."""
    streaks = {key: previous.get(key, 0) + count for key, count in counts.items()}
    crossed = any(previous.get(key, 0) < threshold <= streak for key, streak in streaks.items())
    return streaks, crossed


class RunawayGuard:
    """One guard per run. `observe_step` returns the reminder text at most once per run, else None."""

    def __init__(self, threshold: int = DEFAULT_THRESHOLD) -> None:
        if threshold < DEFAULT_THRESHOLD:
            raise ValueError(f"threshold must be at least {DEFAULT_THRESHOLD}, got {threshold}")
        self.threshold = threshold
        self.reminded = False
        self._action_streaks: dict[str, int] = {}
        self._error_streaks: dict[str, int] = {}

    def observe_step(self, results: Sequence[ToolResult], calls: Sequence[ToolCall]) -> str | None:
        by_id = {call.id: call for call in calls}
        actions: Counter[str] = Counter()
        errors: Counter[str] = Counter()
        for index, result in enumerate(results):
            if is_blocked(result):
                continue
            call = by_id.get(result.call_id) or (calls[index] if index < len(calls) else None)
            key = action_key(call.name if call else result.name, call.arguments if call else "")
            actions[key] += 1
            if not result.success or result.timed_out:
                family = error_family(inner_text(result.content))
                if family is not None:
                    errors[_digest(f"{family}\0{key}")] += 1
        self._action_streaks, action_crossed = _advance(self._action_streaks, actions, self.threshold)
        self._error_streaks, error_crossed = _advance(self._error_streaks, errors, self.threshold)
        if self.reminded or not (action_crossed or error_crossed):
            return None
        self.reminded = True
        signal = error_reminder(self.threshold) if error_crossed else action_reminder(self.threshold)
        return f"{signal}\n{TEMPORARY_NOTE}"
