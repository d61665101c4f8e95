"""Dedup and conflict rules (spec 4.6-4.7; MemoryConflictTest and the dedup part of LongTermMemoryTest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.config import knobs
from paicli.config.env import ConfigError
from paicli.memory.dedup import (
    ConflictDetector,
    bigram_dice,
    canonicalize,
    is_duplicate,
    is_letter_or_digit,
    is_numeric_variant,
    same_domain,
)
from paicli.memory.results import WriteStatus
from tests.memory.helpers import NOW, entry, env, memory

REPO = "/repo/a"


def test_canonicalize_folds_width_case_space_and_punctuation() -> None:
    assert (
        canonicalize("  当前项目使用 Ｊａｖａ １７。\n")
        == canonicalize("当前项目使用java17.")
        == "当前项目使用java17"
    )
    assert canonicalize("版本 v1.2.3，发布。") == "版本v1.2.3发布"
    assert canonicalize("don't stop") == "don'tstop" and canonicalize("'quoted'") == "quoted"
    assert canonicalize("C++ & C#: a/b@c\\d%e_f-g!h|i^j~k") == "c++&c#:a/b@c\\d%e_f-g!h|i^j~k"
    assert canonicalize("价格 $5 👍") == "价格$5👍"
    assert canonicalize("“引号”（括号）？,") == "引号括号"
    assert canonicalize("的地得是") == "的地得是"
    assert canonicalize(None) == canonicalize("") == ""


def test_letter_or_digit_follows_java_not_isalnum() -> None:
    assert is_letter_or_digit("中") and is_letter_or_digit("a") and is_letter_or_digit("٣")
    assert "²".isalnum() and not is_letter_or_digit("²")  # No
    assert "Ⅻ".isalnum() and not is_letter_or_digit("Ⅻ")  # Nl
    assert canonicalize("x² ⅻ") == "x2xii"  # NFKC first turns them into letters/digits


def test_same_domain_requires_type_scope_and_project() -> None:
    assert same_domain(entry("a"), entry("b"))
    assert not same_domain(entry("a"), entry("a", kind="SUMMARY"))
    assert not same_domain(entry("a"), entry("a", "project", REPO))
    assert same_domain(entry("a", "project", REPO), entry("b", "project", REPO))
    assert not same_domain(entry("a", "project", REPO), entry("a", "project", "/repo/b"))
    assert not same_domain(entry("a", "project"), entry("a", "project"))


def test_duplicates_include_formatting_and_grammatical_variants() -> None:
    assert is_duplicate(entry("  当前项目使用 Ｊａｖａ １７。\n"), entry("当前项目使用java17."))
    assert is_duplicate(entry("当前项目使用Java17开发"), entry("当前项目使用的是Java17开发"))
    assert not is_duplicate(entry("用Java"), entry("用的是Java"))  # shorter than 8 code points
    assert not is_duplicate(entry("项目使用Java"), entry("项目的的的是是是使用Java"))  # ratio below 0.82
    assert not is_duplicate(entry("当前项目使用Java17开发"), entry("当前项目使用了Java17开发"))


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("项目使用 Java 17", "项目使用 Java 21"),
        ("项目主要语言是 C", "项目主要语言是 C++"),
        ("默认用中文回答", "默认用繁体中文回答"),
        ("允许自动提交代码", "不允许自动提交代码"),
        ("代码评审结果 👍", "代码评审结果 👎"),
        ("服务端口是 8080", "服务端口是 9090"),
        ("版本号 v1.2", "版本号 v1.3"),
        ("部署到 staging 环境", "部署到 prod 环境"),
        ("构建命令是 make all", "构建命令是 make #all"),
        ("路径 src/main", "路径 src_main"),
    ],
)
def test_meaningful_differences_are_not_duplicates(left: str, right: str) -> None:
    assert not is_duplicate(entry(left), entry(right))


def test_store_keeps_conflicting_numbers_code_markers_and_meaningful_words(tmp_path: Path) -> None:
    store = memory(tmp_path)
    facts = [
        "项目使用 Java 17",
        "项目使用 Java 21",
        "项目主要语言是 C",
        "项目主要语言是 C++",
        "默认用中文回答",
        "默认用繁体中文回答",
        "允许自动提交代码",
        "不允许自动提交代码",
        "代码评审结果 👍",
        "代码评审结果 👎",
    ]
    for fact in facts:
        assert store.store(entry(fact))
    assert sorted(e.content for e in memory(tmp_path).get_all()) == sorted(facts)


def test_numeric_variant_and_bigram_dice() -> None:
    assert is_numeric_variant(canonicalize("项目使用 Java 17"), canonicalize("项目使用 Java 21"))
    assert is_numeric_variant("端口8080", "端口9090.1")
    assert not is_numeric_variant("项目使用java", "项目使用java")  # no number at all
    assert not is_numeric_variant("端口٣", "端口٤")  # only ASCII digits count as numbers
    left = canonicalize("提交代码前必须运行 mvn test -Pquick 回归")
    right = canonicalize("提交代码前必须运行 mvn test -Pquick 全量回归")
    score = bigram_dice(left, right)
    assert 0.8 <= score < 0.99
    assert bigram_dice("ab", "ab") == 1.0 and bigram_dice("a", "ab") == 0.0
    assert bigram_dice("aaab", "aab") == pytest.approx(2 * 2 / 5)


def test_numeric_version_variant_in_same_domain_is_conflict() -> None:
    detector = ConflictDetector()
    assert detector.is_conflict(
        entry("项目使用 Java 17", "project", REPO), entry("项目使用 Java 21", "project", REPO)
    )
    assert detector.is_conflict(entry("服务端口是 8080"), entry("服务端口是 9090"))


def test_different_domain_duplicate_and_unrelated_entries_are_not_conflicts() -> None:
    detector = ConflictDetector()
    assert not detector.is_conflict(
        entry("项目使用 Java 17", "project", REPO), entry("项目使用 Java 21", "project", "/b")
    )
    assert not detector.is_conflict(entry("项目使用 Java 17"), entry("项目使用 Java 17。"))
    assert not detector.is_conflict(entry("项目使用 Java 17"), entry("默认用中文回答"))
    assert not detector.is_conflict(entry("。。"), entry("？？"))


def test_highly_similar_text_is_conflict_but_threshold_is_respected() -> None:
    old = entry("提交代码前必须运行 mvn test -Pquick 回归")
    new = entry("提交代码前必须运行 mvn test -Pquick 全量回归")
    assert ConflictDetector(0.8).is_conflict(old, new)
    assert not ConflictDetector(0.99).is_conflict(old, new)
    assert knobs.MEMORY_CONFLICT_THRESHOLD.read(env(PAICLI_MEMORY_CONFLICT_THRESHOLD="0.99")) == 0.99
    assert knobs.MEMORY_CONFLICT_THRESHOLD.read(env()) == 0.8
    for bad in ("0", "1.5", "-1", "abc"):
        with pytest.raises(ConfigError):
            knobs.MEMORY_CONFLICT_THRESHOLD.read(env(PAICLI_MEMORY_CONFLICT_THRESHOLD=bad))
    with pytest.raises(ValueError):
        ConflictDetector(0)


def test_conflict_without_a_cue_is_kept_pending_and_surfaces_both_entries(tmp_path: Path) -> None:
    store = memory(tmp_path)
    old = entry("每次发布前跑 3 遍回归测试", "project", REPO)
    store.store(old)
    result = store.write(entry("每次发布前跑 5 遍回归测试", "project", REPO), None, False, REPO)
    assert result.status is WriteStatus.CONFLICT and result.written and result.entry is not None
    assert [e.id for e in result.conflicts] == [old.id]
    assert result.entry.metadata["conflictPending"] == "true"
    assert result.entry.metadata["conflictWith"] == old.id
    text = result.describe()
    for needle in (
        old.id,
        "每次发布前跑 3 遍回归测试",
        "每次发布前跑 5 遍回归测试",
        f"/memory verify {result.entry.id}",
        f"/memory delete {result.entry.id}",
        "/save --force",
        "replace_id",
        "keep_both=true",
        "/memory conflicts",
        "2026-09-23",
    ):
        assert needle in text
    on_disk = {e.id: e for e in memory(tmp_path).get_all()}
    assert set(on_disk) == {old.id, result.entry.id} and "supersededBy" not in on_disk[old.id].metadata


def test_a_changed_value_on_the_same_subject_supersedes_every_older_entry(tmp_path: Path) -> None:
    store = memory(tmp_path)
    newer = entry("服务端口是 8080", when=NOW)
    older = entry("服务端口是 7070", when=NOW.replace(year=2025))
    store.store(newer)
    store.store(older)
    result = store.write(entry("服务端口是 9090"))
    assert result.status is WriteStatus.SUPERSEDED and result.entry is not None
    assert [e.id for e in result.superseded] == [older.id, newer.id]
    assert result.entry.metadata["supersedes"] == f"{older.id},{newer.id}"
    kept = {e.id: e for e in memory(tmp_path).get_all()}
    assert len(kept) == 3
    assert (
        kept[older.id].metadata["supersededBy"] == kept[newer.id].metadata["supersededBy"] == result.entry.id
    )
    assert older.id in result.describe() and newer.id in result.describe()


def test_user_can_keep_both_or_replace(tmp_path: Path) -> None:
    store = memory(tmp_path)
    old = entry("项目使用 Java 17", "project", REPO)
    store.store(old)
    kept = store.write(entry("项目使用 Java 21", "project", REPO), None, True, REPO)
    assert kept.status is WriteStatus.STORED and store.size() == 2
    assert not any("supersededBy" in e.metadata for e in store.get_all())
    replaced = store.write(entry("项目使用 Java 25", "project", REPO), old.id, False, REPO)
    assert replaced.status is WriteStatus.REPLACED and replaced.written and replaced.entry is not None
    history = {e.id: e for e in memory(tmp_path).get_all()}
    assert history[old.id].metadata["supersededBy"] == replaced.entry.id  # kept, never destroyed
    assert history[kept.entry.id].metadata["supersededBy"] == replaced.entry.id  # type: ignore[union-attr]
    assert "项目使用 Java 17" in replaced.describe() and "项目使用 Java 25" in replaced.describe()
    again = store.write(entry("项目使用 Java 26", "project", REPO), old.id, False, REPO)
    assert again.status is WriteStatus.REPLACE_TARGET_NOT_FOUND  # a superseded entry is history


def test_replace_target_must_be_visible_in_current_project(tmp_path: Path) -> None:
    store = memory(tmp_path)
    other = entry("项目使用 Java 17", "project", "/repo/b")
    store.store(other)
    result = store.write(entry("项目使用 Go", "project", REPO), other.id, False, REPO)
    assert result.status is WriteStatus.REPLACE_TARGET_NOT_FOUND and other.id in result.describe()
    assert (
        store.write(entry("x", "project", REPO), "fact-nope", False, REPO).status
        is WriteStatus.REPLACE_TARGET_NOT_FOUND
    )
    assert [e.id for e in store.get_all()] == [other.id]


def test_duplicate_write_refreshes_verification_instead_of_storing_again(tmp_path: Path) -> None:
    store = memory(tmp_path)
    old = entry("项目使用 Java 17", when=NOW.replace(year=2025), verification_pending="true")
    store.store(old)
    result = store.write(entry("项目使用java17。", when=NOW))
    assert result.status is WriteStatus.DUPLICATE and not result.written
    assert result.entry is not None and result.entry.id == old.id
    assert result.entry.last_verified_at == NOW >= old.last_verified_at
    assert not result.entry.verification_pending
    assert old.id in result.describe()
    on_disk = memory(tmp_path).get_all()
    assert len(on_disk) == 1 and on_disk[0].last_verified_at == NOW


def test_automatic_write_confirms_restatements_and_supersedes_corrections(tmp_path: Path) -> None:
    store = memory(tmp_path)
    old = entry("项目使用 Java 17", "project", REPO, when=NOW.replace(year=2025))
    store.store(old)
    restated = store.write_automatic(entry("项目使用 Java 17。", "project", REPO))
    assert restated.status is WriteStatus.DUPLICATE and not restated.written
    confirmed = store.retrieve(old.id)
    assert confirmed is not None and confirmed.metadata["confirmations"] == "1"
    assert confirmed.last_verified_at == old.last_verified_at  # a re-statement is no verification
    assert not store.write_automatic(old).written
    corrected = store.write_automatic(entry("项目使用 Java 21", "project", REPO))
    assert corrected.status is WriteStatus.SUPERSEDED and corrected.entry is not None
    assert store.retrieve(old.id).metadata["supersededBy"] == corrected.entry.id  # type: ignore[union-attr]
    assert store.write_automatic(entry("默认用中文回答", "project", REPO)).written
    assert store.size() == 3


def test_plain_store_never_checks_conflicts(tmp_path: Path) -> None:
    store = memory(tmp_path)
    assert store.store(entry("服务端口是 8080"))
    assert store.store(entry("服务端口是 9090"))
    assert not store.store(entry("服务端口是 8080。"))
    assert store.size() == 2


def test_explicit_write_never_overwrites_another_entry_with_the_same_id(tmp_path: Path) -> None:
    store = memory(tmp_path)
    first = entry("默认用中文回答", entry_id="fact-00000001")
    store.store(first)
    result = store.write(entry("提交前运行 ruff", entry_id="fact-00000001"))
    assert result.status is WriteStatus.STORED and result.entry is not None
    assert result.entry.id != first.id and result.entry.id.startswith("fact-")
    assert store.retrieve(first.id) == first and store.size() == 2


def test_replacing_with_a_duplicate_of_another_entry_refreshes_it_and_supersedes_the_target(
    tmp_path: Path,
) -> None:
    store = memory(tmp_path)
    target = entry("部署到 staging 环境", when=NOW.replace(year=2025))
    twin = entry("默认用中文回答", when=NOW.replace(year=2025))
    store.store(target)
    store.store(twin)
    result = store.write(entry("默认用中文回答。", when=NOW), target.id)
    assert result.status is WriteStatus.DUPLICATE and result.entry is not None and result.entry.id == twin.id
    assert result.entry.last_verified_at == NOW
    assert target.id in result.describe() and "部署到 staging 环境" in result.describe()
    kept = {e.id: e for e in memory(tmp_path).get_all()}
    assert (
        kept[target.id].metadata["supersededBy"] == twin.id and kept[twin.id].metadata["confirmations"] == "1"
    )
