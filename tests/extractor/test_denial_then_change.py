"""Issue 37: `S 不再用 A，改成 B` states a change. The verb-first clause after a clause that takes a value away from a
subject it names gives that subject its new value; it is no task request. A request stays one: it names no
subject of its own (`不要再用 A，改成 B`), asks politely (`请改成 B`), or follows a plain statement
(`S 用的是 A，改成 B`: the user wants it changed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.memory.extract_rules import judge_quotes, safe_input
from tests.extractor.quoting import quoting_manager


def _reason(text: str) -> str | None:
    return judge_quotes([text.rstrip("。")], safe_input(text), True, lambda _: False)[0].reason


@pytest.mark.parametrize(
    "text",
    [
        "CI 不再用 Jenkins，改成 GitLab CI。",
        "代码托管不再用 Gitee，改成 GitHub。",
        "制品库不再放 Nexus，换成 Harbor。",
    ],
)
def test_a_change_after_a_denial_of_the_subjects_value_is_a_statement(text: str) -> None:
    assert _reason(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "不要再用 Jenkins，改成 GitLab CI。",
        "CI 不再用 Jenkins，请改成 GitLab CI。",
        "数据库用的是 Postgres，改成 MySQL。",
    ],
)
def test_a_request_to_change_stays_a_request(text: str) -> None:
    assert _reason(text) == "task_request"


def test_the_extracted_change_ends_the_stored_value(tmp_path: Path) -> None:
    mgr = quoting_manager(tmp_path)
    mgr.store_fact("制品库是 Nexus")
    saved = mgr.extract_facts_from_user_turn("制品库不再放 Nexus，换成 Harbor。")
    assert [e.content for e in saved] == ["制品库不再放 Nexus，换成 Harbor"]
    assert [e.content for e in mgr.list_all() if evolve.is_truth(e)] == ["制品库不再放 Nexus，换成 Harbor"]
