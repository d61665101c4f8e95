"""The loopback model's side of the eval: a careful extractor and the relation judges.

The extractor quotes exactly the statement a careful model would pick from the user's turn. The judge is one of:
`silent` (answers every judge request with plain chat text, as a loopback model that does not know the
protocol would), `oracle` (the right relation for each candidate, with the exact value spans), `liar` (claims
every candidate is updated, with spans it makes up). Both read the meaning of every statement the cases can
produce, so a stored fact is always recognised by its text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, Literal

from evals.memory_evolution.cases import Case, Meaning

JudgeMode = Literal["silent", "oracle", "liar"]
EXTRACT_MARK = "=== 用户原文 ==="
PLAIN_REPLY = "好的。"

# Set by the runner once the product's judge exists: (request text) -> (new fact, [(label, candidate)]) or None.
ParseJudge = Callable[[str], "tuple[str, list[tuple[str, str]]] | None"]


class Oracle:
    def __init__(self, cases: Iterable[Case]) -> None:
        self.quotes: dict[str, str] = {}
        self.meanings: dict[str, Meaning] = {}
        for case in cases:
            for statement in (*case.setup, *case.chain):
                self.meanings[statement.text] = statement.meaning
                self.meanings[_quote_of(statement.text)] = statement.meaning
                if statement.path == "auto":
                    self.quotes[statement.turn.strip()] = _quote_of(statement.text)

    def meaning(self, content: str) -> Meaning | None:
        return self.meanings.get(content.strip())

    def extraction(self, original: str) -> list[str]:
        text = original.strip()
        quote = self.quotes.get(text)
        if quote is not None:
            return [quote]
        return [q for turn, q in self.quotes.items() if turn in text][:1]

    def relation(self, new: str, old: str) -> dict[str, str]:
        """The oracle's answer for one candidate."""
        a, b = self.meaning(old), self.meaning(new)
        if a is None or b is None or a.topic != b.topic:
            return {"relation": "unrelated"}
        same = (a.value, a.negated) == (b.value, b.negated)
        return {"relation": "duplicate" if same else "updates", "old": a.span, "new": b.span}


def _quote_of(text: str) -> str:
    return text.strip().rstrip(".。")


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def responder(
    oracle: Oracle, mode: JudgeMode, parse_judge: ParseJudge | None
) -> Callable[[dict[str, Any]], str]:
    def answer(body: dict[str, Any]) -> str:
        text = _last_user_text(body)
        if EXTRACT_MARK in text:
            original = text.split(EXTRACT_MARK, 1)[1].rsplit("=== 结束 ===", 1)[0]
            return json.dumps(
                {"facts": [{"quote": q} for q in oracle.extraction(original)]}, ensure_ascii=False
            )
        request = parse_judge(text) if parse_judge is not None else None
        if request is None or mode == "silent":
            return PLAIN_REPLY
        new, candidates = request
        relations = []
        for label, old in candidates:
            if mode == "liar":
                relations.append({"id": label, "relation": "updates", "old": old[:2], "new": new[-2:]})
            else:
                relations.append({"id": label, **oracle.relation(new, old)})
        return json.dumps({"relations": relations}, ensure_ascii=False)

    return answer
