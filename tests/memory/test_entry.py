"""MemoryEntry, the reference JSON layout and freshness (spec 4.1-4.3, 4.8; MemoryFreshnessTest)."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from pydantic import ValidationError

from paicli.config import knobs
from paicli.config.env import ConfigError
from paicli.context.estimate import estimate_tokens
from paicli.memory.dedup import is_stale
from paicli.memory.entry import (
    MemoryEntry,
    format_instant,
    new_fact,
    normalize_project_key,
    normalize_scope,
    parse_instant,
)
from paicli.memory.locked_file import render_json
from tests.memory.helpers import CLOCK, NOW, entry, env, memory

DATA = Path(__file__).parent / "data"


def test_new_fact_has_short_id_token_estimate_and_verification_at_write_time() -> None:
    fact = new_fact("项目使用 Java 17", {"scope": "project", "project": "/r"}, CLOCK)
    assert fact.id.startswith("fact-") and len(fact.id) == 13
    int(fact.id[5:], 16)
    assert fact.token_count == estimate_tokens("项目使用 Java 17")
    assert fact.timestamp == NOW and fact.last_verified_at == NOW
    assert new_fact("x", None, CLOCK).id != fact.id


def test_last_verified_defaults_to_write_timestamp_and_updates_immutably() -> None:
    original = MemoryEntry(
        id="fact-1", content="c", timestamp=NOW, metadata={"verification_pending": "true", "a": "b"}
    )
    assert original.last_verified_at == NOW
    later = NOW + timedelta(days=3)
    verified = original.with_last_verified_at(later)
    assert verified is not original
    assert verified.last_verified_at == later and verified.timestamp == NOW
    assert (verified.id, verified.content, verified.token_count) == (
        original.id,
        original.content,
        original.token_count,
    )
    assert verified.metadata == {"a": "b"} and original.metadata["verification_pending"] == "true"
    assert original.verification_pending and not verified.verification_pending
    with pytest.raises(ValidationError):
        original.content = "changed"  # type: ignore[misc]


def test_instants_use_java_instant_text() -> None:
    assert format_instant(NOW) == "2026-09-23T00:00:00Z"
    assert format_instant(NOW.replace(microsecond=123000)) == "2026-09-23T00:00:00.123Z"
    assert format_instant(NOW.replace(microsecond=123456)) == "2026-09-23T00:00:00.123456Z"
    assert parse_instant("2026-09-23T08:00:00+08:00") == NOW
    assert parse_instant("2026-09-23T00:00:00.123456789Z") == NOW.replace(microsecond=123456)
    assert parse_instant("2026-09-23T00:00") == NOW
    with pytest.raises(ValueError):
        parse_instant("yesterday")


def test_reference_file_loads_and_renders_byte_for_byte(tmp_path: Path) -> None:
    target = tmp_path / "long_term_memory.json"
    shutil.copy(DATA / "long_term_memory_reference.json", target)
    store = memory(tmp_path)
    entries = store.get_all()
    assert [e.id for e in entries] == ["fact-1a2b3c4d", "fact-5e6f7a8b", "fact-9c0d1e2f", "summary-0001"]
    assert entries[1].timestamp == datetime(2026, 8, 1, 9, 30, 15, 123000, tzinfo=timezone.utc)
    assert entries[1].external_sources == "web_fetch,mcp__docs__search"
    assert entries[2].verification_pending and entries[3].type == "SUMMARY"
    expected = (DATA / "long_term_memory_reference.json").read_text(encoding="utf-8").rstrip("\n")
    assert render_json(entries) == expected


def test_load_save_round_trip_keeps_every_field(tmp_path: Path) -> None:
    source = json.loads((DATA / "long_term_memory_reference.json").read_text(encoding="utf-8"))
    shutil.copy(DATA / "long_term_memory_reference.json", tmp_path / "long_term_memory.json")
    store = memory(tmp_path)
    assert store.store(entry("一条新的全局事实", entry_id="fact-00000001"))
    written = json.loads((tmp_path / "long_term_memory.json").read_text(encoding="utf-8"))
    assert written[: len(source)] == source
    assert [list(obj) for obj in written] == [
        ["id", "content", "type", "timestamp", "lastVerifiedAt", "metadata", "tokenCount"]
    ] * len(written)
    assert written[-1]["id"] == "fact-00000001"


def test_control_characters_and_lone_surrogates_are_escaped_like_jackson(tmp_path: Path) -> None:
    # a lone surrogate arrives from a JSON "\\ud83d" escape in tool arguments or an undecodable path name
    odd = "颜色\x1b[0m 与\ud83d 半个 emoji\t制表"
    store = memory(tmp_path)
    assert store.store(entry(odd, entry_id="fact-00000001", project="/repo/\udcff"))
    raw = (tmp_path / "long_term_memory.json").read_bytes().decode("utf-8")
    assert '"content" : "颜色\\u001B[0m 与\\uD83D 半个 emoji\\t制表"' in raw
    assert '"project" : "/repo/\\uDCFF"' in raw
    assert store.store(entry("后来的一条事实", entry_id="fact-00000002"))
    reloaded = memory(tmp_path).get_all()
    assert [e.content for e in reloaded] == [odd, "后来的一条事实"]
    assert reloaded[0].project == "/repo/\udcff"


def test_legacy_entries_load_leniently(tmp_path: Path) -> None:
    shutil.copy(DATA / "long_term_memory_legacy.json", tmp_path / "long_term_memory.json")
    entries = {e.id: e for e in memory(tmp_path).get_all()}
    assert sorted(entries) == ["fact-aaaa0001", "fact-aaaa0002"]
    last_wins = entries["fact-aaaa0001"]
    assert last_wins.content.endswith("（同 id 后者生效）")
    assert last_wins.timestamp == datetime(2026, 6, 26, 16, tzinfo=timezone.utc)
    assert last_wins.last_verified_at == last_wins.timestamp and last_wins.metadata == {}
    assert last_wins.scope == "global"
    gradle = entries["fact-aaaa0002"]
    assert gradle.last_verified_at == gradle.timestamp
    assert gradle.token_count == estimate_tokens("构建用 Gradle 8")
    assert gradle.metadata["priority"] == "3" and gradle.metadata["pinned"] == "true"
    assert gradle.scope == "project" and gradle.is_visible_in("/home/u/repo")


def test_legacy_json_without_last_verified_falls_back_to_timestamp_across_reload(tmp_path: Path) -> None:
    shutil.copy(DATA / "long_term_memory_legacy.json", tmp_path / "long_term_memory.json")
    memory(tmp_path).store(entry("触发一次写入"))
    reloaded = {e.id: e for e in memory(tmp_path).get_all()}
    assert reloaded["fact-aaaa0002"].last_verified_at == reloaded["fact-aaaa0002"].timestamp


def test_last_verified_survives_disk_round_trip(tmp_path: Path) -> None:
    written = entry("项目使用 Java 17", when=NOW - timedelta(days=90), verified=NOW - timedelta(days=3))
    memory(tmp_path).store(written)
    loaded = memory(tmp_path).retrieve(written.id)
    assert loaded is not None
    assert loaded.timestamp == written.timestamp and loaded.last_verified_at == written.last_verified_at


def test_scope_and_visibility() -> None:
    legacy = MemoryEntry(id="a", content="c", timestamp=NOW)
    assert legacy.scope == "global" and legacy.is_visible_in(None) and legacy.is_visible_in("/x")
    scoped = entry("c", "Project", "/repo/a")
    assert scoped.scope == "project"
    assert scoped.is_visible_in("/repo/a") and not scoped.is_visible_in("/repo/b")
    assert not scoped.is_visible_in("") and not scoped.is_visible_in(None)
    assert normalize_scope(None) == normalize_scope("") == normalize_scope("weird") == "project"
    assert normalize_scope(" GLOBAL ") == "global"


def test_project_key_is_absolute_normalised_and_resolves_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert normalize_project_key(link) == str(real.resolve())
    assert normalize_project_key(str(real / "sub" / "..")) == str(real.resolve())
    missing = tmp_path / "missing" / "." / "y" / ".." / "x"
    assert normalize_project_key(missing) == os.path.normpath(str(missing))


def test_staleness_uses_configured_period() -> None:
    old = entry("c", when=NOW - timedelta(days=90))
    fresh = entry("c", when=NOW - timedelta(days=90), verified=NOW - timedelta(days=3))
    assert is_stale(old, NOW, 30) and not is_stale(fresh, NOW, 30)
    assert not is_stale(old, NOW, 0) and not is_stale(old, NOW, -1)
    assert not is_stale(old, NOW, 100)
    assert knobs.MEMORY_STALE_DAYS.read(env()) == 30
    assert knobs.MEMORY_STALE_DAYS.read(env(PAICLI_MEMORY_STALE_DAYS="7")) == 7
    with pytest.raises(ConfigError):
        knobs.MEMORY_STALE_DAYS.read(env(PAICLI_MEMORY_STALE_DAYS="soon"))


def test_mark_verified_refreshes_only_verification_time(tmp_path: Path) -> None:
    store = memory(tmp_path)
    original = entry("项目使用 Java 17", when=NOW - timedelta(days=90), verification_pending="true")
    store.store(original)
    verified = store.mark_verified(f"  {original.id} ", NOW)
    assert verified is not None
    assert verified.last_verified_at == NOW and verified.timestamp == original.timestamp
    assert verified.content == original.content and not verified.verification_pending
    assert memory(tmp_path).retrieve(original.id) == verified
    assert store.mark_verified("fact-missing", NOW) is None


def test_an_unreadable_date_never_costs_the_memory(tmp_path: Path) -> None:
    broken = [
        {
            "id": "fact-00000001",
            "content": "日期只写到天",
            "type": "FACT",
            "timestamp": "2026-09-20",
            "metadata": {},
            "tokenCount": 3,
        },
        {
            "id": "fact-00000002",
            "content": "日期写坏了",
            "type": "FACT",
            "timestamp": "上周三",
            "lastVerifiedAt": "2026-13-45T00:00:00Z",
            "metadata": {},
            "tokenCount": 3,
        },
        {
            "id": "fact-00000003",
            "content": "核实时间写坏了",
            "type": "FACT",
            "timestamp": "2026-09-21T00:00:00Z",
            "lastVerifiedAt": "not a date",
            "metadata": {},
            "tokenCount": 3,
        },
    ]
    (tmp_path / "long_term_memory.json").write_text(json.dumps(broken, ensure_ascii=False), encoding="utf-8")
    store = memory(tmp_path)
    entries = {e.id: e for e in store.get_all()}
    assert sorted(entries) == ["fact-00000001", "fact-00000002", "fact-00000003"]
    assert entries["fact-00000001"].timestamp == datetime(2026, 9, 20, tzinfo=timezone.utc)
    unknown_date = entries["fact-00000002"]  # falls back to the load time, like a missing date
    assert unknown_date.content == "日期写坏了" and unknown_date.last_verified_at == unknown_date.timestamp
    assert entries["fact-00000003"].last_verified_at == datetime(2026, 9, 21, tzinfo=timezone.utc)
    assert store.store(entry("之后的一次写入"))
    assert len(json.loads((tmp_path / "long_term_memory.json").read_text(encoding="utf-8"))) == 4
