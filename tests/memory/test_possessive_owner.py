"""A lexical-verb fact keeps the owner its subject names with `'s`: the owner tells two components' facts apart,
and the same component's update still replaces its fact whatever verb either uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.memory.subject import claim_of

from .helpers import repo_manager


def _truths(tmp_path: Path, *texts: str) -> list[str]:
    mgr = repo_manager(tmp_path)
    for text in texts:
        mgr.store_fact(text)
    return sorted(e.content for e in mgr.list_all() if evolve.is_truth(e))


def test_the_owner_before_a_lexical_verb_is_read() -> None:
    (reading,) = claim_of("The billing service's invoices ship through Postmark").readings
    assert reading.subject.owner == "billingservice"
    assert reading.value == "postmark"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "The desktop client's updates ship through Squirrel",
            "The browser extension's updates ship through the Chrome store",
        ),
        ("The admin portal's logs flow into Loki", "The public site's logs flow into Datadog"),
    ],
)
def test_two_owners_facts_under_a_lexical_verb_both_stay(tmp_path: Path, first: str, second: str) -> None:
    assert _truths(tmp_path, first, second) == sorted([first, second])


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "The desktop client's updates ship through Squirrel",
            "The desktop client's updates ship through Sparkle now",
        ),
        ("The admin portal's logs flow into Loki", "These days the admin portal's logs flow into Datadog"),
    ],
)
def test_one_owners_update_under_a_lexical_verb_replaces_its_fact(
    tmp_path: Path, first: str, second: str
) -> None:
    assert _truths(tmp_path, first, second) == [second]
