"""Issue 37 (memlatest): a correction said in other words than the question still reaches the question. A fact
that superseded others is one chain with them, so it is found by the words its predecessors had; the
predecessors stay out of the results, a question that shares no word with the chain finds none of it, and
look-alikes (other subjects, other projects' global facts) do not outrank the chain's current truth."""

from __future__ import annotations

from datetime import timedelta, timezone
from pathlib import Path

import pytest

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.entry import MemoryEntry
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.retriever_lineage import heirs
from paicli.memory.store import LongTermMemory
from paicli.memory.table import EntryTable
from tests.memory.helpers import NOW, entry, repo_manager
from tests.retrieval.fakes import ListStore

PROJECT = "/repo"


def _retriever(entries: list[MemoryEntry], vector: bool = True) -> MemoryRetriever:
    env = EnvLookup(environ={"PAICLI_MEMORY_VECTOR": "on" if vector else "off"})
    return MemoryRetriever(ListStore(entries), MemoryValues.parse(env), clock=lambda: NOW, zone=timezone.utc)


def _fact(
    text: str, entry_id: str, project: str | None = PROJECT, days: int = 3, **extra: str
) -> MemoryEntry:
    scope = "project" if project else "global"
    return entry(text, scope, project, entry_id=entry_id, when=NOW - timedelta(days=days), **extra)


def _chain(*lines: tuple[str, str]) -> list[MemoryEntry]:
    """Facts of this project, each superseded by the next (oldest first, as the write path links them)."""
    chain: list[MemoryEntry] = []
    for number, (entry_id, text) in enumerate(lines):
        links: dict[str, str] = {}
        if number + 1 < len(lines):
            links["supersededBy"] = lines[number + 1][0]
        if number:
            links["supersedes"] = lines[number - 1][0]
        chain.append(_fact(text, entry_id, days=10 - number, **links))
    return chain


def _ranked(entries: list[MemoryEntry], query: str, vector: bool = True) -> list[str]:
    return [r.entry.id for r in _retriever(entries, vector).rank(query, entries, NOW, PROJECT)]


TERRAFORM = _chain(
    ("pin-15", "Our infrastructure code pins Terraform 1.5."), ("pin-17", "Upgraded to 1.7 now.")
)


@pytest.mark.parametrize("vector", [True, False])
def test_a_correction_in_other_words_is_found_by_its_predecessors_words(vector: bool) -> None:
    ranked = _ranked(TERRAFORM, "Which version does our infrastructure code pin?", vector)
    assert ranked == ["pin-17"]  # the truth, reached by the old line's words; the old line stays history


def test_without_the_link_the_other_wording_is_not_found() -> None:
    # the control: the same two texts, not linked (two unrelated facts); the new line shares no word with the
    # question, so only the link above made it a match
    unlinked = [_fact(e.content, e.id) for e in TERRAFORM]
    assert _ranked(unlinked, "Which version does our infrastructure code pin?") == ["pin-15"]


def test_the_end_of_a_long_chain_holds_every_predecessors_words() -> None:
    chain = _chain(
        ("pool-20", "数据库连接池大小是 20"),
        ("pool-40", "连接池调到 40 了"),
        ("pool-32", "最后定成 32"),
    )
    assert _ranked(chain, "数据库连接池设置多大？") == ["pool-32"]


def test_the_current_truth_ranks_before_look_alikes_on_other_subjects() -> None:
    entries = [
        _fact("The team retro happens at 16:00 on Fridays.", "retro", days=1),
        _fact("The team lunch is at noon on Wednesdays.", "lunch", days=1),
        *_chain(("standup-930", "The team standup is at 9:30."), ("standup-1015", "Moved to 10:15.")),
    ]
    ranked = _ranked(entries, "What time is the team standup?")
    assert ranked[0] == "standup-1015"
    assert "standup-930" not in ranked
    assert set(ranked[1:]) == {"retro", "lunch"}  # they share `team`: matches, after the answer


def test_another_projects_global_fact_does_not_outrank_this_projects_truth() -> None:
    entries = [
        _fact("The team standup is at 8:45.", "elsewhere", None, days=1),  # another project's --global fact
        *_chain(("standup-930", "The team standup is at 9:30."), ("standup-1015", "Moved to 10:15.")),
    ]
    ranked = _ranked(entries, "What time is the team standup?")
    assert ranked == ["standup-1015", "elsewhere"]


def test_a_newer_fact_saying_the_chains_words_itself_takes_them() -> None:
    # the write path linked the state to its denial but not the denial to the new value: the newer fact that
    # names the subject itself is the chain's continuation, so the denial does not borrow the subject's words
    entries = [
        *_chain(("port-9000", "We run 9000 as the service port."), ("port-off", "We turned 9000 off.")),
        _fact("We picked 3000 as the new service port.", "port-3000", days=1),
    ]
    assert _ranked(entries, "What is the service port?") == ["port-3000"]
    # with no such newer fact the denial is the chain's current truth, found by its predecessor's words
    assert _ranked(entries[:2], "What is the service port?") == ["port-off"]


def test_an_older_fact_with_the_chains_words_does_not_take_them() -> None:
    entries = [
        _fact("The service port for the admin tool is 8081.", "admin", days=20),
        *_chain(("port-9000", "We run 9000 as the service port."), ("port-3000", "Moved to 3000.")),
    ]
    assert _ranked(entries, "What is the service port?")[0] == "port-3000"


def test_a_question_that_shares_no_word_with_the_chain_finds_none_of_it() -> None:
    entries = [
        *TERRAFORM,
        _fact("Python files are linted with ruff.", "linter"),
    ]
    assert _ranked(entries, "Which linter checks the Python files?") == ["linter"]


def test_a_truth_inherits_only_from_its_own_chain() -> None:
    # two chains in one project: the words of one chain's history never lead a question to the other chain
    entries = [
        *TERRAFORM,
        *_chain(("db-13", "Our reporting database is PostgreSQL 13."), ("db-16", "Now on 16.")),
    ]
    assert _ranked(entries, "What reporting database do we run?") == ["db-16"]
    assert _ranked(entries, "Which version does our infrastructure code pin?") == ["pin-17"]


def test_a_pending_or_dangling_chain_leads_nowhere() -> None:
    entries = [
        _fact("The docs are built with Sphinx.", "sphinx", supersededBy="gone"),  # its successor was deleted
        _fact("Docs come out of MkDocs.", "mkdocs-pending", conflictPending="true"),
        _fact("Reviews need two approvals.", "loop-a", supersededBy="loop-b"),  # a hand-edited loop
        _fact("Approvals: one is enough.", "loop-b", supersededBy="loop-a"),
    ]
    assert _ranked(entries, "How are the docs built?") == []
    assert _ranked(entries, "How many approvals do reviews need?") == []


def test_heirs_maps_each_predecessor_to_the_live_end_of_its_chain() -> None:
    chain = _chain(("a", "Builds use Maven."), ("b", "Gradle now."), ("c", "Bazel these days."))
    table = EntryTable()
    table.rebuild(chain)
    found = heirs(table, {e.id: e for e in chain})
    assert found is not None
    end = table.row_of["c"]
    assert [int(found[table.row_of[i]]) for i in ("a", "b", "c")] == [end, end, -1]
    lone = [_fact("Builds use Maven.", "alone")]
    table.rebuild(lone)
    assert heirs(table, {e.id: e for e in lone}) is None


def test_a_saved_correction_reaches_the_question_through_the_store(tmp_path: Path) -> None:
    manager = repo_manager(tmp_path)
    manager.store_fact("Our infrastructure code pins Terraform 1.5.")
    question = "Which Terraform version does our infrastructure code pin?"
    assert "Terraform 1.5" in manager.context_for_query(
        question, 2_000
    )  # the index is built before the change
    manager.store_fact("Upgraded to Terraform 1.7 now.")
    shown = manager.context_for_query("What does our infrastructure code pin?", 2_000)
    assert "Upgraded to Terraform 1.7 now." in shown
    assert "Terraform 1.5" not in shown


def test_the_store_path_follows_links_saved_in_the_file(tmp_path: Path) -> None:
    project = str(tmp_path)
    store = LongTermMemory(tmp_path, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW)
    for item in _chain(
        ("ci-jenkins", "Our CI pipeline runs on Jenkins."), ("ci-gha", "Migrated to GitHub Actions.")
    ):
        stored = item.model_copy(update={"metadata": {**item.metadata, "project": project}})
        assert store.write(stored, allow_conflict=True).written
    retriever = MemoryRetriever(
        store, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW, zone=timezone.utc
    )
    assert [r.entry.id for r in retriever.top("Which service runs the CI pipeline?", project)] == ["ci-gha"]
