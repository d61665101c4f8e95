"""The reviewer's verdict and what follows from it (pure).

A verdict is a JSON object with a boolean `approved` (bare or in one ``` fence); anything else counts as a
rejection whose feedback is the reviewer's own text. A rejected result is retried at most `max_retries`
times; after that the last result is kept with a warning, as it is when the reviewer's model call fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from paicli.agent.plan.parse import PlanParseError, extract_json

MAX_RETRIES = 2
NO_REASON = "审查者没有给出具体原因"
UNPARSABLE = "审查者的回复不是有效的 JSON 结论，原文如下：\n"
FEEDBACK_LIMIT = 2000


@dataclass(frozen=True)
class Verdict:
    approved: bool
    issues: str = ""  # the feedback a rejected step is retried with


def _issues_text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(f"- {str(item).strip()}" for item in value if str(item).strip())
    if isinstance(value, str):
        return value.strip()
    return ""


def parse_verdict(text: str) -> Verdict:
    try:
        data = extract_json(text)
    except PlanParseError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("approved"), bool):
        raw = text.strip()[:FEEDBACK_LIMIT]
        return Verdict(False, UNPARSABLE + raw if raw else NO_REASON)
    if data["approved"]:
        return Verdict(True, _issues_text(data.get("issues")))
    issues = _issues_text(data.get("issues")) or _issues_text(data.get("summary")) or NO_REASON
    return Verdict(False, issues[:FEEDBACK_LIMIT])


class ReviewAction(Enum):
    ACCEPT = "accept"
    RETRY = "retry"
    KEEP_AFTER_RETRIES = "keep_after_retries"  # still rejected with no retries left: keep the last result
    KEEP_AFTER_REVIEW_ERROR = "keep_after_review_error"  # the reviewer's model call failed


def after_review(verdict: Verdict | None, retries_used: int, max_retries: int = MAX_RETRIES) -> ReviewAction:
    """`verdict` None: the review could not be obtained (model error)."""
    if verdict is None:
        return ReviewAction.KEEP_AFTER_REVIEW_ERROR
    if verdict.approved:
        return ReviewAction.ACCEPT
    return ReviewAction.RETRY if retries_used < max_retries else ReviewAction.KEEP_AFTER_RETRIES


class WorkerAction(Enum):
    FAIL = "fail"
    KEEP_PREVIOUS = "keep_previous"  # a retry failed: the result the reviewer saw last stands


def after_worker_failure(previous_result: str | None) -> WorkerAction:
    return WorkerAction.KEEP_PREVIOUS if previous_result and previous_result.strip() else WorkerAction.FAIL
