"""One project's memories beside other projects' global ones, ranked as the retriever ranks them for that project."""

from __future__ import annotations

from datetime import timedelta, timezone

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.retriever import MemoryRetriever
from tests.retrieval.fakes import NOW, FakeEntry, ListStore, entry

PROJECT = "/repo"


def ours(entry_id: str, text: str) -> FakeEntry:
    return entry(entry_id, text, timedelta(days=5), metadata={"scope": "project", "project": PROJECT})


def global_fact(entry_id: str, text: str) -> FakeEntry:
    return entry(entry_id, text, timedelta(days=2), metadata={"scope": "global"})


def ranked(entries: list[FakeEntry], query: str) -> list[str]:
    values = MemoryValues.parse(EnvLookup(environ={}))
    retriever = MemoryRetriever(ListStore(entries), values, clock=lambda: NOW, zone=timezone.utc)
    return [item.entry.id for item in retriever.top(query, PROJECT)]
