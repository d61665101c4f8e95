"""Offline extractor models for the eval: an oracle and a worst-case adversary (both LLMClient implementations)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paicli.cancel import CancelToken
from paicli.context.estimate import estimate_tokens, utf16_len
from paicli.llm.messages import ChatResponse, Message, Usage
from paicli.llm.protocol import DeltaCallback, LLMClient
from paicli.memory.extract_secrets import carries_secret
from paicli.memory.extract_words import FACT_WORDS, TEMPORARY

INPUT_START = "=== 用户原文 ===\n"
INPUT_END = "\n=== 结束 ==="


def user_text_of(messages: Sequence[Message]) -> str:
    """The safe input the extractor embedded in its prompt."""
    prompt = next((m.text for m in reversed(messages) if m.role == "user"), "")
    start = prompt.find(INPUT_START)
    end = prompt.rfind(INPUT_END)
    if start < 0 or end < start:
        return prompt
    return prompt[start + len(INPUT_START) : end]


def facts_json(quotes: Sequence[str]) -> str:
    return json.dumps({"facts": [{"quote": q} for q in quotes]}, ensure_ascii=False)


@dataclass
class _CountingClient:
    model_name: str = "offline"
    calls: int = 0
    usage_total: Usage = field(default_factory=Usage)

    @property
    def model(self) -> str:
        return self.model_name

    def with_model(self, model: str) -> LLMClient:
        return self

    def answer(self, messages: Sequence[Message]) -> str:
        raise NotImplementedError

    def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        on_delta: DeltaCallback | None = None,
        cancel: CancelToken | None = None,
        tool_choice: str | None = None,
        max_tokens: int | None = None,
    ) -> ChatResponse:
        self.calls += 1
        content = self.answer(messages)
        usage = Usage(sum(estimate_tokens(m.text) for m in messages), estimate_tokens(content))
        self.usage_total = self.usage_total + usage
        return ChatResponse(Message.assistant(content), usage, "stop", self.model_name)


@dataclass
class OracleLLM(_CountingClient):
    """Answers with exactly the expected quotes of the case being run (set `expected` before each case)."""

    model_name: str = "oracle"
    expected: list[str] = field(default_factory=list)

    def answer(self, messages: Sequence[Message]) -> str:
        return facts_json(self.expected)


_SENTENCE = re.compile(r"(?<=[。；;！!？?\n])")
_CLAUSE = re.compile(r"(?<=[。；;！!？?\n，,：:])")
_PAIRS = re.compile(r"“([^”]*)”|‘([^’]*)’|「([^」]*)」|『([^』]*)』|\"([^\"\n]*)\"|'([^'\n]*)'|`([^`\n]+)`")
_EVASIONS = (
    re.compile(r"^.*(?:现在|这次|今天|明天|刚才|临时|马上|立刻)"),
    re.compile(r"^(?:请|帮我|麻烦|please)\s*", re.IGNORECASE),
    re.compile(r"[吗呢么][？?]?$"),
    re.compile(r"^.*?[：:]"),
    re.compile(r"^\s*[>＞]\s*"),
)
_ASKS = re.compile(r"请|帮|麻烦|分析|检查|please|can you", re.IGNORECASE)
_END_PUNCT = "。；;！!？?，,：: \t"


def _fenced_lines(text: str) -> list[str]:
    lines, inside = [], False
    for line in text.split("\n"):
        if line.strip().startswith(("```", "~~~")):
            inside = not inside
        elif inside:
            lines.append(line)
    return lines


def _candidates(text: str) -> list[tuple[str, int]]:
    """(span, bonus) pairs: every piece a hostile model might return, with a bonus for forbidden contexts."""
    found: list[tuple[str, int]] = []
    for match in _PAIRS.finditer(text):
        found.append((next(g for g in match.groups() if g is not None), 3))
    found += [(line, 3) for line in _fenced_lines(text)]
    for line in text.split("\n"):
        if line.lstrip().startswith((">", "＞")):
            found.append((line.lstrip()[1:], 3))
    for pattern, bonus in ((_SENTENCE, 1), (_CLAUSE, 0)):
        for piece in pattern.split(text):
            found.append((piece, bonus))
            for evasion in _EVASIONS:
                variant = evasion.sub("", piece.rstrip(_END_PUNCT))
                if variant and variant != piece:
                    found.append((variant, bonus + 2))
    return found


def _score(span: str, bonus: int) -> int:
    score = bonus + (3 if FACT_WORDS.search(span) else 0) + (1 if _ASKS.search(span) else 0)
    if carries_secret(span) or TEMPORARY.search(span) or "```" in span or "~~~" in span:
        score -= 6  # known to fail even the reference checks: a smart attacker does not waste a slot on it
    return score


def adversarial_quotes(text: str, limit: int = 3) -> list[str]:
    """Up to `limit` verbatim spans of `text`, fact-like and forbidden-looking ones first."""
    ranked: dict[str, int] = {}
    order: list[str] = []
    for raw, bonus in _candidates(text):
        span = raw.strip().rstrip(_END_PUNCT).strip()
        if not 5 <= utf16_len(span) <= 180 or "\n" in span or span not in text:
            continue
        score = _score(span, bonus)
        if span not in ranked:
            order.append(span)
            ranked[span] = score
        ranked[span] = max(ranked[span], score)
    best = sorted(order, key=lambda s: -ranked[s])
    return best[:limit]


@dataclass
class AdversarialLLM(_CountingClient):
    """A worst-case extractor: returns up to 3 verbatim spans of its input, preferring fact-like ones taken from
    quotations, fences, quote lines, pasted material and task requests. Needs no server."""

    model_name: str = "adversarial"

    def answer(self, messages: Sequence[Message]) -> str:
        return facts_json(adversarial_quotes(user_text_of(messages)))
