"""What `recall` reads: the original messages of a ledger, found by reference or ranked by BM25 for a query.

The ledger keeps every message as it was first recorded (clearing and summaries only write checkpoints), so a
reference `(first, last)` names the exact original text. Ranking uses BM25 with the constants and idf floor of
long-term memory's keyword score (memory/vector.py: rank-bm25's BM25Okapi) over tokens from a tokenizer the
caller passes in (the project's jieba tokenisation lives above this layer). File reading is here; everything
else is pure.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from paicli.session.resume import MESSAGE_EVENTS, LedgerEntry, parse_entries

BM25_K1, BM25_B, BM25_EPSILON = 1.5, 0.75, 0.25  # as memory/vector.py (rank-bm25's BM25Okapi defaults)
INDEXED_CHARS = 4_000  # of each message, for ranking (a long tool output is found by its start)
_HEAD_BYTES = 512  # an entry's event name is among its first keys
_MESSAGE_MARKERS = tuple(b'"event":"' + name.encode() + b'"' for name in sorted(MESSAGE_EVENTS))
_ROLES = {"user": "用户", "assistant": "助手", "tool": "工具结果"}


@dataclass(frozen=True)
class Record:
    """One original message of a ledger."""

    session_id: str
    sequence: int
    timestamp: int
    mode: str
    actor: str
    source: str
    role: str
    text: str
    tool: str = ""  # the tool that produced a tool result, or the tools an assistant message called

    @property
    def label(self) -> str:
        role = _ROLES.get(self.role, self.role)
        return f"{role}（{self.tool}）" if self.tool else role


@dataclass(frozen=True)
class Hit:
    score: float
    record: Record


def records_of(entries: Sequence[LedgerEntry], session_id: str) -> list[Record]:
    """Every non-system message entry, in ledger order, with tool names resolved from the calls."""
    names: dict[str, str] = {}
    records: list[Record] = []
    for entry in entries:
        message = entry.message
        if message is None or entry.event not in MESSAGE_EVENTS or message.role == "system":
            continue
        tool = ""
        if message.role == "assistant" and message.tool_calls:
            names.update((call.id, call.name) for call in message.tool_calls)
            tool = "、".join(call.name for call in message.tool_calls)
        elif message.role == "tool":
            tool = names.get(message.tool_call_id or "", "")
        text = message.content or ""
        if message.role == "assistant" and message.tool_calls:
            calls = "\n".join(f"调用 {call.name} {call.arguments}" for call in message.tool_calls)
            text = f"{text}\n{calls}".strip()
        records.append(
            Record(
                session_id,
                entry.sequence,
                entry.timestamp,
                entry.mode,
                entry.actor,
                entry.source,
                message.role,
                text,
                tool,
            )
        )
    return records


def read_records(path: Path, session_id: str | None = None) -> list[Record]:
    """The records of one ledger file ([] when it cannot be read)."""
    try:
        data = path.read_bytes()
    except OSError:
        return []
    lines = [line for line in data.splitlines() if _is_message_line(line)]  # checkpoints are not parsed
    entries, _ = parse_entries(lines)
    name = session_id or (path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.name)
    return records_of(entries, name)


def _is_message_line(line: bytes) -> bool:
    head = line[:_HEAD_BYTES]
    return any(marker in head for marker in _MESSAGE_MARKERS)


def lookup(records: Sequence[Record], first: int, last: int) -> list[Record]:
    """The originals a reference names: the message at `first`, or every message of the same conversation
    (mode and actor of the first message found) between `first` and `last`."""
    inside = [r for r in records if first <= r.sequence <= last]
    if not inside:
        return []
    owner = (inside[0].mode, inside[0].actor)
    return [r for r in inside if (r.mode, r.actor) == owner]


def rank(
    records: Sequence[Record], words: Sequence[str], tokens: Callable[[Record], list[str]], top_k: int
) -> list[Hit]:
    """The `top_k` records that best match the query `words` (BM25 over `tokens(record)`; ties: newer
    first); none when nothing matches."""
    words = [w for w in words if w]
    if not words or not records:
        return []
    corpus = [tokens(r) or [""] for r in records]
    scores = bm25_scores(corpus, words)
    wanted = set(words)
    hits = [
        Hit(float(score), record)
        for score, record, doc in zip(scores, records, corpus, strict=True)
        if wanted.intersection(doc) and math.isfinite(score)
    ]
    hits.sort(key=lambda h: (h.score, h.record.timestamp, h.record.sequence), reverse=True)
    return hits[: max(1, top_k)]


def bm25_scores(corpus: Sequence[Sequence[str]], words: Sequence[str]) -> list[float]:
    """Okapi BM25 of each document for the query `words` (a word not in the corpus scores 0; a negative idf,
    a word in more than half the documents, is floored to epsilon x the average idf)."""
    counts = [Counter(doc) for doc in corpus]
    df: Counter[str] = Counter()
    for seen in counts:
        df.update(seen.keys())
    size = len(corpus)
    idf = {word: math.log(size - n + 0.5) - math.log(n + 0.5) for word, n in df.items()}
    floor = BM25_EPSILON * (sum(idf.values()) / len(idf)) if idf else 0.0
    idf = {word: value if value >= 0 else floor for word, value in idf.items()}
    average = max(sum(len(d) for d in corpus) / max(size, 1), 1e-9)
    scores = []
    for doc, tf in zip(corpus, counts, strict=True):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * len(doc) / average)
        scores.append(sum(idf.get(w, 0.0) * tf[w] * (BM25_K1 + 1) / (tf[w] + norm) for w in words))
    return scores


def indexed_text(record: Record) -> str:
    return record.text[:INDEXED_CHARS]


def excerpt(text: str, words: Iterable[str], width: int) -> str:
    """About `width` characters of `text` around the first word that occurs in it (its start otherwise)."""
    if len(text) <= width:
        return text
    lowered = text.lower()
    positions = [lowered.find(w.lower()) for w in words if w]
    found = min((p for p in positions if p >= 0), default=0)
    start = max(0, min(found - width // 3, len(text) - width))
    piece = text[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")
