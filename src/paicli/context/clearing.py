"""Level 2 (spec 2.3): replace old tool results with a short placeholder, in place.

Message count, roles and tool_call ids never change, so tool-call pairing stays valid. Pure over a history:
token figures come from an injected measure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paicli.config.compaction_profiles import ClearingDepth
from paicli.context.estimate import utf16_len
from paicli.context.recall_ids import Ref, tag
from paicli.context.rounds import unseen_tool_indices
from paicli.context.tokens import TokenCounter
from paicli.context.types import CompactionStep
from paicli.llm.messages import Message
from paicli.llm.prefix_cache import prefix_sum

CLEARED_PREFIX = "[已清理的旧工具结果]"
DEFAULT_KEEP = 3
DEFAULT_MAX_TRIGGER_TOKENS = 100_000
DEFAULT_TRIGGER_RATIO = 0.6
MIN_CLEARABLE_CHARS = 400
# Beyond the reference: once clearing fires (at the reference trigger) it goes on, oldest first, until the
# history is at most this share of the trigger, even past the `keep` newest results. Each clearing rewrites
# messages mid-history and so costs one prefix-cache break; one deep batch instead of one result per turn
# keeps those breaks rare.
LOW_WATERMARK_RATIO = 0.2
# ... and it waits (the history keeps growing) while a batch would save less than this share of the trigger.
# Kept small on purpose: a break re-sends what follows the first cleared result, so clearing soon (results
# still near the end) costs less than waiting for a big batch (bench_longsession @16K: 0.5 -> 0.97 points of
# compaction overhead, 0.15 -> 0.82, 0.05 -> 0.81).
MIN_BATCH_RATIO = 0.1
# ... and once the view holds cleared results (an earlier clearing's or a summary's), it fires again from this
# share of the trigger: results the model has just seen are replaced one request later, while the break sits
# at the end of the view (what follows them is sent for the first time anyway), instead of piling up below the
# trigger into a batch whose break re-sends every turn after its oldest result (bench_longsession @16K, after
# shorter prompts moved the clearings: 1.0 -> 0.84 points of compaction overhead, 0.5 -> 0.66).
REARM_RATIO = 0.5
_BOUNDARY_TOOL = re.compile(r'^<tool_result tool="([^"]+)"')
_OFFLOAD_FILE = re.compile(r"(?m)^文件: (\.paicli/tool-outputs/\S+)$")

Measure = Callable[[Sequence[Message]], int]


@dataclass(frozen=True)
class ClearingConfig:
    enabled: bool = True
    trigger_tokens_override: int = 0
    keep_recent: int = DEFAULT_KEEP
    exclude_tools: frozenset[str] = frozenset()
    protect_unseen: bool = True  # results of the latest response are never candidates (the reference: no)
    short_placeholder: bool = False  # the marker, the tool, the size and the offload file; no sentence


@dataclass(frozen=True)
class ClearResult:
    cleared_count: int
    before_tokens: int
    after_tokens: int
    call_ids: tuple[str, ...] = ()  # the tool calls whose results were replaced, in history order

    @property
    def cleared(self) -> bool:
        return self.cleared_count > 0

    def step(self, messages: int) -> CompactionStep:
        """This clearing as a change of a view of `messages` messages (in place: the count stays)."""
        return CompactionStep(
            "tool_result_clearing",
            messages,
            messages,
            self.before_tokens,
            self.after_tokens,
            self.cleared_count,
            self.call_ids,
        )


def placeholder(tool: str, original: str, short: bool = False, ref: Ref | None = None) -> str:
    """The reference's sentence; or (`short`) the marker alone, which the system prompt's context-management
    section explains (the tool is named by the paired call), plus the file when the full text was offloaded.
    With the original's ledger reference, its recall id follows the marker; the short form then leaves the
    file out (`recall` of the id returns the file's text and names the file for reading on)."""
    if short and ref is not None:
        return tag(CLEARED_PREFIX, ref)
    return tag(_placeholder_text(tool, original, short), ref)


def _placeholder_text(tool: str, original: str, short: bool) -> str:
    if short:
        found = _OFFLOAD_FILE.search(original)
        return f"{CLEARED_PREFIX} {found.group(1)}" if found else CLEARED_PREFIX
    text = f"{CLEARED_PREFIX} 工具 {tool} 的这次输出（约 {utf16_len(original)} 字符）已从上下文清理以节省空间。需要时重新调用该工具获取最新结果"
    found = _OFFLOAD_FILE.search(original)
    if found:
        text += f"；完整输出仍保存在 {found.group(1)}，可用 read_file 按 offset/limit 读回"
    return text + "。"


def is_cleared(message: Message) -> bool:
    return message.role == "tool" and (message.content or "").startswith(CLEARED_PREFIX)


def _cleared_flag(message: Message) -> int:
    return int(is_cleared(message))


_cleared_count = prefix_sum(_cleared_flag)  # checked before every call: only new messages are looked at


def tool_names_by_call_id(history: Sequence[Message]) -> dict[str, str]:
    return {call.id: call.name for m in history if m.role == "assistant" for call in m.tool_calls}


def tool_name_of(message: Message, names: dict[str, str]) -> str:
    if message.tool_call_id and message.tool_call_id in names:
        return names[message.tool_call_id]
    found = _BOUNDARY_TOOL.match(message.content or "")
    return found.group(1) if found else "unknown"


def clearable_indices(
    history: Sequence[Message], config: ClearingConfig, keep: int | None = None
) -> list[int]:
    """The policy: which tool messages to clear, oldest first (all but the newest `keep`, minus the skipped
    ones). Results of the latest tool-call response are never candidates: the model has not seen them."""
    unseen = unseen_tool_indices(history) if config.protect_unseen else frozenset()
    tool_indices = [i for i, m in enumerate(history) if m.role == "tool" and i not in unseen]
    kept = config.keep_recent if keep is None else keep
    candidates = tool_indices[: max(0, len(tool_indices) - kept)]
    names = tool_names_by_call_id(history)
    chosen: list[int] = []
    for index in candidates:
        content = history[index].content
        if content is None or utf16_len(content) < MIN_CLEARABLE_CHARS or content.startswith(CLEARED_PREFIX):
            continue
        if tool_name_of(history[index], names).lower() in config.exclude_tools:
            continue
        chosen.append(index)
    return chosen


@dataclass(frozen=True)
class ClearPlan:
    """Which tool results a clearing replaces (history indices, oldest first) and the view's size it was
    planned on. Made by the pure planners below; `ToolResultClearer.apply` carries it out."""

    indices: tuple[int, ...] = ()
    before: int = 0


def trigger_tokens(config: ClearingConfig, compaction_trigger: int) -> int:
    if compaction_trigger <= 0:
        return 0
    override = config.trigger_tokens_override
    derived = (
        override
        if override > 0
        else min(DEFAULT_MAX_TRIGGER_TOKENS, int(compaction_trigger * DEFAULT_TRIGGER_RATIO))
    )
    return max(1, min(derived, compaction_trigger - 1))


def watermark(config: ClearingConfig, compaction_trigger: int) -> int:
    return int(trigger_tokens(config, compaction_trigger) * LOW_WATERMARK_RATIO)


def plan_clearing(
    history: Sequence[Message],
    compaction_trigger: int,
    config: ClearingConfig,
    depth: ClearingDepth,
    measure: Measure,
) -> ClearPlan:
    """Level 2 before a request, per the profile's depth: `keep_recent` is the reference's clearIfNeeded
    (at the trigger, every clearable result but the newest `keep`); `watermark` fires at the trigger, or at
    REARM_RATIO of it once the view holds cleared results (one request later when only the unseen results put
    the history over it), then goes on in one batch (one cache break) down to the low watermark. Pure."""
    if not config.enabled or compaction_trigger <= 0:
        return ClearPlan()
    before = measure(history)
    trigger = trigger_tokens(config, compaction_trigger)
    if depth == "keep_recent":
        if before < trigger:
            return ClearPlan((), before)
        return ClearPlan(tuple(clearable_indices(history, config)), before)
    if _cleared_count(history):
        trigger = max(1, int(trigger * REARM_RATIO))
    if before < trigger:
        return ClearPlan((), before)
    if before - sum(measure([history[i]]) for i in unseen_tool_indices(history)) < trigger:
        # The latest response's results (not clearable yet) are what crossed the trigger: one request later
        # they are seen and a single batch can take them too, instead of a second cache break right away.
        return ClearPlan((), before)
    minimum = int(trigger_tokens(config, compaction_trigger) * MIN_BATCH_RATIO)
    return plan_down_to(history, config, measure, watermark(config, compaction_trigger), before, minimum)


def plan_down_to(
    history: Sequence[Message],
    config: ClearingConfig,
    measure: Measure,
    target: int,
    before: int | None = None,
    minimum: int = 0,
) -> ClearPlan:
    """The reference's candidates first, then (oldest first) the kept ones until `target` is reached.
    Nothing is planned when the batch would save less than `minimum` tokens. Pure."""
    before = measure(history) if before is None else before
    reference = clearable_indices(history, config)
    extra = [i for i in clearable_indices(history, config, keep=0) if i not in set(reference)]
    names = tool_names_by_call_id(history)

    def saving(message: Message) -> int:
        return measure([message]) - measure([cleared_message(message, names, config)])

    chosen: list[int] = list(reference)
    estimate = before - sum(saving(history[i]) for i in reference)
    for index in extra:
        if estimate <= target:
            break
        chosen.append(index)
        estimate -= saving(history[index])
    if before - estimate < minimum:
        return ClearPlan((), before)
    return ClearPlan(tuple(sorted(chosen)), before)


def cleared_message(message: Message, names: dict[str, str], config: ClearingConfig) -> Message:
    """The placeholder that replaces `message` (same id and reference, so recall finds the original)."""
    text = placeholder(
        tool_name_of(message, names), message.content or "", config.short_placeholder, message.ref
    )
    return message.with_content(text)


class ToolResultClearer:
    """Level 2's executor: applies a plan to the history in place (`plan` makes the per-profile one; the
    window fallback and a summary's kept tail plan and apply in one call)."""

    def __init__(self, config: ClearingConfig | None = None, measure: Measure | None = None) -> None:
        self.config = config or ClearingConfig()
        self._measure: Measure = measure or _reference_measure

    def trigger_tokens(self, compaction_trigger: int) -> int:
        return trigger_tokens(self.config, compaction_trigger)

    def watermark(self, compaction_trigger: int) -> int:
        return watermark(self.config, compaction_trigger)

    def plan(self, history: Sequence[Message], compaction_trigger: int, depth: ClearingDepth) -> ClearPlan:
        return plan_clearing(history, compaction_trigger, self.config, depth, self._measure)

    def clear_now(self, history: list[Message]) -> ClearResult:
        """Every clearable result but the newest `keep` (the reference's clearNow)."""
        plan = ClearPlan(tuple(clearable_indices(history, self.config)), self._measure(history))
        return self.apply(history, plan)

    def clear_all_seen(self, history: list[Message]) -> ClearResult:
        """Every result the model has already seen (the window fallback)."""
        plan = ClearPlan(tuple(clearable_indices(history, self.config, keep=0)), self._measure(history))
        return self.apply(history, plan)

    def clear_down_to(
        self, history: list[Message], target: int, before: int | None = None, minimum: int = 0
    ) -> ClearResult:
        return self.apply(history, plan_down_to(history, self.config, self._measure, target, before, minimum))

    def apply(self, history: list[Message], plan: ClearPlan) -> ClearResult:
        """Replaces the planned results with their placeholders; ids, roles and the count stay."""
        if not plan.indices:
            return ClearResult(0, plan.before, plan.before)
        names = tool_names_by_call_id(history)
        for index in plan.indices:
            history[index] = cleared_message(history[index], names, self.config)
        ids = tuple(history[i].tool_call_id or "" for i in plan.indices)
        return ClearResult(len(plan.indices), plan.before, self._measure(history), ids)


_HEURISTIC = TokenCounter("heuristic")


def _reference_measure(history: Sequence[Message]) -> int:
    return _HEURISTIC.count_messages(history)
