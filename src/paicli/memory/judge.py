"""The relation judge: the light model says how a new fact relates to its stored neighbours (issue 37).

One small request per write that has neighbours the claim parser is unsure of, never on a turn's critical path
(`refine.py` runs it on the memory worker after the local verdict was written). The model answers, for each
candidate, `duplicate`, `updates`, `contradicts` or `unrelated`, and for every relation but `unrelated` the exact
words of the old value and of the new one. Those spans are checked against both texts like the extractor's
quotes: each must occur verbatim, neither may be the whole fact, a duplicate's values must be equal and an
update's different, the rest of the two texts must share a subject word, and where the parser read a value the
span must be that value. A malformed, unverifiable or missing answer yields no verdict for that candidate, and the
local rules stand.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Literal

from paicli.llm.messages import Message, Usage
from paicli.llm.protocol import LLMClient
from paicli.memory.claim_tokens import fold
from paicli.memory.entry import MemoryEntry
from paicli.memory.neighbours import labelled, needles
from paicli.memory.subject import claim_of

log = logging.getLogger(__name__)

JudgeKind = Literal["duplicate", "updates", "contradicts", "unrelated"]
KINDS: tuple[JudgeKind, ...] = ("duplicate", "updates", "contradicts", "unrelated")
MAX_SPAN = 80
NEW_MARK, OLD_MARK, END_MARK = "=== 新事实 ===", "=== 已有记忆 ===", "=== 结束 ==="


@dataclass(frozen=True)
class Verdict:
    kind: JudgeKind
    old: str = ""
    new: str = ""


def output_cap(candidates: int) -> int:
    """max_tokens for one answer: about 60 tokens per relation (two short spans) plus the wrapper."""
    return 48 + 64 * max(1, candidates)


def _prompt(name: str) -> str:
    return (resources.files("paicli") / "prompts" / "memory" / name).read_text(encoding="utf-8").rstrip("\n")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def request(new: str, candidates: Sequence[tuple[str, str]]) -> list[Message]:
    listing = "\n".join(f"[{label}] {_one_line(text)}" for label, text in candidates)
    body = _prompt("judge.md").replace("{{new}}", _one_line(new), 1).replace("{{candidates}}", listing, 1)
    return [Message.system(_prompt("judge-system.md")), Message.user(body)]


def parse_request(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """The new fact and the labelled candidates of a judge request (for loopback models and tests)."""
    if NEW_MARK not in text or OLD_MARK not in text:
        return None
    new = text.split(NEW_MARK, 1)[1].split(OLD_MARK, 1)[0].strip()
    listing = text.split(OLD_MARK, 1)[1].split(END_MARK, 1)[0]
    candidates: list[tuple[str, str]] = []
    for line in listing.strip().splitlines():
        label, closing, rest = line.strip().partition("] ")
        if closing and label.startswith("["):
            candidates.append((label[1:], rest.strip()))
    return new, candidates


def parse_answer(raw: str | None) -> list[dict[str, object]] | None:
    """`{"relations":[{...}]}` (a fenced block is tolerated); None when it is not that shape."""
    text = (raw or "").strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        root = json.loads(text)
    except ValueError:
        return None
    if not isinstance(root, dict) or not isinstance(root.get("relations"), list):
        return None
    return [item for item in root["relations"] if isinstance(item, dict)]


def _flat(text: str) -> str:
    return fold(text).replace(" ", "")


def _holds_value(span: str, text: str) -> bool:
    """Where the parser read values in `text`, the span must be (or contain, or lie inside) one of them."""
    claim = claim_of(text)
    values = {r.value for r in claim.readings} | set(claim.denied) | {_flat(v) for v in claim.mentioned}
    values.discard("")
    if not values:
        return True
    flat = _flat(span)
    return any(flat in value or value in flat for value in values)


def _shares_subject(old: str, old_span: str, new: str, new_span: str) -> bool:
    rest_old = old.replace(old_span, " ", 1)
    rest_new = new.replace(new_span, " ", 1)
    return bool(needles(rest_old) & needles(rest_new))


def check(item: dict[str, object], old: str, new: str) -> Verdict | None:
    kind = item.get("relation")
    if kind not in KINDS:
        return None
    if kind == "unrelated":
        return Verdict("unrelated")
    old_span, new_span = item.get("old"), item.get("new")
    if not isinstance(old_span, str) or not isinstance(new_span, str):
        return None
    old_span, new_span = old_span.strip(), new_span.strip()
    for span, text in ((old_span, old), (new_span, new)):
        if not span or len(span) > MAX_SPAN or span not in text or _flat(span) == _flat(text):
            return None
        if not _holds_value(span, text):
            return None
    if (_flat(old_span) == _flat(new_span)) != (kind == "duplicate"):
        return None
    if not _shares_subject(old, old_span, new, new_span):
        return None
    return Verdict(kind, old_span, new_span)


def verify(raw: str | None, new: str, candidates: Sequence[tuple[str, str]]) -> dict[str, Verdict]:
    """The verified verdicts of an answer, by candidate label (unknown labels and repeats are ignored)."""
    items = parse_answer(raw)
    if items is None:
        return {}
    texts = dict(candidates)
    verdicts: dict[str, Verdict] = {}
    for item in items:
        label = item.get("id")
        if not isinstance(label, str) or label not in texts or label in verdicts:
            continue
        verdict = check(item, texts[label], new)
        if verdict is not None:
            verdicts[label] = verdict
    return verdicts


class RelationJudge:
    """Asks the light model once per write; every failure is an empty answer (the local rules stand)."""

    def __init__(
        self,
        llm: LLMClient,
        *,
        model: str | None = None,
        on_usage: Callable[[Usage], None] | None = None,
    ) -> None:
        self._llm = llm.with_model(model) if model and model != llm.model else llm
        self._on_usage = on_usage
        self.calls = 0

    def judge(self, new: str, candidates: Sequence[MemoryEntry]) -> dict[str, Verdict]:
        """Verified verdicts by entry id."""
        pairs = labelled(candidates)
        if not pairs:
            return {}
        texts = [(label, entry.content) for label, entry in pairs]
        self.calls += 1
        try:
            response = self._llm.chat(request(new, texts), None, max_tokens=output_cap(len(texts)))
        except Exception:  # a missing judge is a silent one
            log.warning("memory relation judge failed; the local rules decide", exc_info=True)
            return {}
        if response.usage is not None and self._on_usage is not None:
            try:
                self._on_usage(response.usage)
            except Exception:
                log.warning("usage callback failed", exc_info=True)
        verified = verify(response.message.content, new, texts)
        return {entry.id: verified[label] for label, entry in pairs if label in verified}
