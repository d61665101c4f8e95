"""What bench_longsession measures in one session: token figures from the fake server's requests and usages,
compaction events from the ledger, and what the last request still carries."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paicli.testing.openai_server import CACHE_BLOCK, count_tokens, is_summary_request, prompt_text

CLEARED_PREFIX = "[已清理的旧工具结果]"
# Text that compaction itself writes (a placeholder, a summary, a fallback note, the summary instruction): a
# cost of compaction, not new content of the session.
COMPACTION_TEXT = (
    CLEARED_PREFIX,
    "[已压缩的历史对话摘要]",
    "[已省略的早期对话]",
    "【上下文整理请求",
    "好的，我已了解之前的上下文",
)


@dataclass
class Figures:
    window: int
    summariser: str  # ok / failing / garbage / hollow / cut45
    profile: str = "paicli"
    scenario: str = "main"  # main (the rule-worded facts) or a fact set of longsession_facts
    prefix: str = ""  # the wording probe's prefix before each fact
    prompt: int = 0
    cached: int = 0
    first_sent: int = 0  # tokens of content sent for the first time (see first_sent_tokens)
    rounding: int = 0  # shared-prefix tokens the cache blocks leave uncached
    l2: int = 0
    l3: int = 0
    fallback: int = 0
    summary_requests: int = 0  # requests to the summariser (first drafts and repairs), answered or not
    max_request: int = 0
    over_window: int = 0
    unseen_cleared: int = 0
    missing_memory: int = 0
    facts_retained: int = 0
    facts_total: int = 0
    not_verbatim: int = 0  # agent requests without the current turn's user text
    agent_requests: int = 0
    turns: int = 0
    expected: list[str] = field(default_factory=list)  # per agent request: the turn's user text

    @property
    def failing(self) -> bool:
        """The summariser answers with an error (no usage comes back for its requests)."""
        return self.summariser == "failing"

    @property
    def label(self) -> str:
        who = self.profile if self.scenario == "main" else self.scenario
        return f"{who} {self.summariser}" + (" +prefix" if self.prefix else "")

    def per_turn(self, tokens: int) -> float:
        return tokens / max(1, self.turns)

    @property
    def uncached(self) -> int:
        return self.prompt - self.cached

    @property
    def overhead(self) -> int:
        return self.uncached - self.first_sent - self.rounding

    @property
    def overhead_points(self) -> float:
        return 100 * self.overhead / self.prompt if self.prompt else 0.0


def measure(
    requests: list[dict[str, Any]],
    usages: list[dict[str, Any]],
    figures: Figures,
    checks: tuple[str, ...],
    memory_fact: str,
) -> None:
    figures.prompt = sum(u["prompt_tokens"] for u in usages)
    figures.cached = sum(u["prompt_tokens_details"]["cached_tokens"] for u in usages)
    answered = [r for r in requests if not is_summary_request(r) or not figures.failing]  # failed: no usage
    figures.first_sent = first_sent_tokens(answered)
    figures.rounding = rounding_tokens(answered, usages)
    agent = [r for r in requests if not is_summary_request(r)]
    figures.agent_requests = len(agent)
    figures.summary_requests = len(requests) - len(agent)
    for body in requests:
        tokens = count_tokens(prompt_text(body))
        figures.max_request = max(figures.max_request, tokens)
        figures.over_window += tokens > figures.window
    for body, expected in zip(agent, figures.expected, strict=True):
        messages = body["messages"]
        if not any(memory_fact in (m.get("content") or "") for m in messages):
            figures.missing_memory += 1
        users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
        figures.not_verbatim += not any(expected in text for text in users)
    figures.unseen_cleared = unseen_cleared(agent)
    figures.facts_total = len(checks)
    if agent:
        last = prompt_text(agent[-1])
        figures.facts_retained = sum(1 for check in checks if check in last)


def unseen_cleared(agent: list[dict[str, Any]]) -> int:
    first_seen: dict[str, bool] = {}  # call id -> its first appearance in a request was the real result
    calls: set[str] = set()
    for body in agent:
        for m in body["messages"]:
            if m.get("role") == "assistant":
                calls.update(call["id"] for call in m.get("tool_calls") or [])
            elif m.get("role") == "tool" and m["tool_call_id"] not in first_seen:
                first_seen[m["tool_call_id"]] = not (m.get("content") or "").startswith(CLEARED_PREFIX)
    return sum(1 for call in calls if not first_seen.get(call, False))


def rounding_tokens(answered: list[dict[str, Any]], usages: list[dict[str, Any]]) -> int:
    """Per request: the longest token prefix shared with an earlier request minus what the cache served (the
    emulation rounds the shared prefix down to CACHE_BLOCK tokens)."""
    from paicli.testing.openai_server import _common_prefix, _Tokens

    earlier: list[list[int]] = []
    total = 0
    for body, usage in zip(answered, usages, strict=True):
        tokens = _Tokens.encode(prompt_text(body))
        best = max((_common_prefix(tokens, e) for e in earlier), default=0)
        total += best - best // CACHE_BLOCK * CACHE_BLOCK
        earlier.append(tokens)
        del usage
    return total


def first_sent_tokens(bodies: list[dict[str, Any]]) -> int:
    """Tokens of the session's own content the first time it is sent: the system prompt and tools once, each
    user message, answer and tool result once (a tool result first sent as an offload notice counts as the
    notice). No request can have those served from a cache, whatever compaction does, so 1 - first_sent/prompt
    bounds cached/prompt for the prompts of the run."""
    seen: set[str] = set()
    total = 0
    for body in bodies:
        pieces = [json.dumps(body.get("tools") or [], ensure_ascii=False, sort_keys=True)]
        for message in body.get("messages") or []:
            if str(message.get("content") or "").startswith(COMPACTION_TEXT):
                continue
            pieces.append(json.dumps(message, ensure_ascii=False, sort_keys=True))
        for piece in pieces:
            if piece not in seen:
                seen.add(piece)
                total += count_tokens(piece)
    return total


def count_events(ledger: Path, figures: Figures) -> None:
    for line in ledger.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("event") != "compaction":
            continue
        source = entry.get("source", "")
        figures.l2 += source == "automatic:tool_result_clearing"
        figures.l3 += source in ("automatic:full_summary", "automatic:session_memory")
        figures.fallback += source == "automatic:dropped_rounds"
