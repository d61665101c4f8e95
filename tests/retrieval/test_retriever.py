from __future__ import annotations

from datetime import timedelta, timezone

import pytest

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.recall_block import HEADER, LEAD, memory_context_tokens
from paicli.memory.retriever import MAX_RESULTS, MemoryRetriever
from tests.retrieval.fakes import NOW, FakeEntry, ListStore, entry

KEYWORD_ONLY = {"PAICLI_MEMORY_VECTOR": "off"}


def retriever(entries: list[FakeEntry], environ: dict[str, str] | None = None) -> MemoryRetriever:
    return MemoryRetriever(
        ListStore(entries),
        MemoryValues.parse(EnvLookup(environ=environ or {})),
        clock=lambda: NOW,
        zone=timezone.utc,
    )


def lines_of(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.startswith("- ")]


def contents_of(block: str) -> list[str]:
    return [line.split(" ", 2)[2].split("（写入")[0] for line in lines_of(block)]


# --- rendering and freshness (MemoryFreshnessTest, retrieval parts) ---


def test_stale_entry_is_labelled_and_fresh_entry_shows_verification_date() -> None:
    old = entry("fact-old", "项目构建使用 Java 17", age=timedelta(days=90))
    fresh = FakeEntry("fact-new", "项目测试命令是 mvn test", timestamp=NOW - timedelta(days=3))
    block = retriever([old, fresh]).build_context("项目", 1000, "/repo")
    assert block.startswith(f"{HEADER}\n\n{LEAD}\n\n")
    assert "线索而不是事实" in block
    lines = lines_of(block)
    assert (
        "- [FACT][可能已过时] 项目构建使用 Java 17（写入 2026-06-25，最后核实 2026-06-25，已超过 30 天未核实，使用前必须先核实）"
        in lines
    )
    assert "- [FACT] 项目测试命令是 mvn test（写入 2026-09-20，最后核实 2026-09-20）" in lines
    assert block.endswith("）\n\n")


def test_non_positive_stale_period_disables_the_label() -> None:
    old = entry("fact-old", "项目构建使用 Java 17", age=timedelta(days=90))
    for days in ("0", "-5"):
        block = retriever([old], {"PAICLI_MEMORY_STALE_DAYS": days}).build_context("Java", 1000, "/repo")
        assert "[可能已过时]" not in block
        assert "未核实" not in block
        assert "最后核实 2026-06-25" in block


def test_configured_stale_period_is_used_in_the_label() -> None:
    week_old = entry("a", "服务端口是 8080", age=timedelta(days=8))
    block = retriever([week_old], {"PAICLI_MEMORY_STALE_DAYS": "7"}).build_context("端口", 1000, "/repo")
    assert "[可能已过时]" in block and "已超过 7 天未核实" in block
    assert "[可能已过时]" not in retriever([week_old]).build_context("端口", 1000, "/repo")


def test_pending_automatic_fact_is_marked_as_unverified() -> None:
    auto = entry("a", "本项目统一使用 pnpm 管理依赖", metadata={"verification_pending": "true"})
    line = lines_of(retriever([auto]).build_context("pnpm", 1000, "/repo"))[0]
    assert (
        line == "- [FACT][自动提取，待核实] 本项目统一使用 pnpm 管理依赖（写入 2026-09-23，尚未经用户核实）"
    )


def test_dates_are_rendered_in_the_given_zone() -> None:
    from zoneinfo import ZoneInfo

    late = entry("a", "项目使用 Gradle", age=timedelta(hours=1))  # 2026-09-22T23:00Z = 09-23 in Shanghai
    shanghai = MemoryRetriever(
        ListStore([late]),
        MemoryValues.parse(EnvLookup(environ={})),
        clock=lambda: NOW,
        zone=ZoneInfo("Asia/Shanghai"),
    )
    assert "写入 2026-09-23" in shanghai.build_context("Gradle", 1000, "/repo")
    assert "写入 2026-09-22" in retriever([late]).build_context("Gradle", 1000, "/repo")


# --- keyword score (the reference formula) ---


def test_keyword_score_follows_the_reference_formula() -> None:
    whole_old = entry("whole", "偏好设置：回答使用中文", age=timedelta(days=40))
    half_new = entry("new", "偏好使用 vim", age=timedelta(0))
    half_6h = entry("6h", "偏好深色主题", age=timedelta(hours=6))
    half_old = entry("old", "偏好短句", age=timedelta(days=3))
    r = retriever([whole_old, half_new, half_6h, half_old], KEYWORD_ONLY)
    ranked = r.rank("偏好设置", r._store.get_all(""), NOW)  # type: ignore[attr-defined]
    scores = {item.entry.id: item.score for item in ranked}
    assert scores["whole"] == pytest.approx(1.2)  # whole-query substring: no decay
    assert scores["new"] == pytest.approx(0.5 * 1.0 * 1.2)  # tokens {偏好, 设置}: 1 of 2
    assert scores["6h"] == pytest.approx(0.5 * 0.75 * 1.2)
    assert scores["old"] == pytest.approx(0.5 * 0.5 * 1.2)  # decay floor
    assert [item.entry.id for item in ranked] == ["whole", "new", "6h", "old"]
    assert all(item.keyword_score == item.score for item in ranked)


def test_matching_is_case_insensitive_and_needs_score_above_zero() -> None:
    r = retriever([entry("a", "Build with MAVEN"), entry("b", "用户喜欢猫")], KEYWORD_ONLY)
    block = r.build_context("maven wrapper", 1000, "/repo")
    assert contents_of(block) == ["Build with MAVEN"]
    assert r.build_context("完全无关的问题", 1000, "/repo") == ""
    assert r.build_context("   ", 1000, "/repo") == ""


def test_ties_keep_store_order_and_only_ten_are_kept() -> None:
    entries = [
        entry(f"id-{i:02d}", f"第 {i} 条：部署流程说明", token_count=1) for i in range(MAX_RESULTS + 3)
    ]
    block = retriever(entries, KEYWORD_ONLY).build_context("部署流程", 5000, "/repo")
    lines = lines_of(block)
    assert len(lines) == MAX_RESULTS
    assert [int(line.split("第 ")[1].split(" ")[0]) for line in lines] == list(range(MAX_RESULTS))


def test_store_is_asked_for_the_project_key() -> None:
    store = ListStore([entry("a", "项目使用 Java 17")])
    MemoryRetriever(store, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW).build_context(
        "Java", 1000, "/repo/a"
    )
    assert store.asked[0] == "/repo/a"  # the visible entries; None: every entry, for the vector index
    assert set(store.asked) <= {"/repo/a", None}


# --- budget ---


def test_budget_stops_at_first_entry_that_does_not_fit() -> None:
    first = entry("a", "部署脚本 A", token_count=300)
    second = entry("b", "部署脚本 B", token_count=400, age=timedelta(hours=1))
    third = entry("c", "部署脚本 C", token_count=100, age=timedelta(hours=2))
    block = retriever([first, second, third], KEYWORD_ONLY).build_context("部署脚本", 600, "/repo")
    assert contents_of(block) == ["部署脚本 A"]
    fits_all = retriever([first, second, third], KEYWORD_ONLY).build_context("部署脚本", 800, "/repo")
    assert len(lines_of(fits_all)) == 3


def test_header_is_emitted_even_when_first_entry_does_not_fit() -> None:
    big = entry("a", "部署脚本很长", token_count=900)
    block = retriever([big]).build_context("部署脚本", 500, "/repo")
    assert block == f"{HEADER}\n\n{LEAD}\n\n\n"


@pytest.mark.parametrize(
    ("window", "expected"),
    [(128_000, 640), (200_000, 1000), (256_000, 1280), (1_000_000, 5000), (8_000, 500), (2_000, 500)],
)
def test_memory_budget_follows_the_window(window: int, expected: int) -> None:
    assert memory_context_tokens(window) == expected


# --- exclusion of entries already visible in the history ---


def test_entries_already_in_the_visible_history_are_left_out() -> None:
    seen = entry("a", "项目使用 Java 17")
    unseen = entry("b", "项目使用 Spring Boot 3")
    block = retriever([seen, unseen]).build_context(
        "项目使用", 1000, "/repo", exclude_text="…项目使用 Java 17…"
    )
    assert "Spring Boot 3" in block and "Java 17" not in block


@pytest.mark.parametrize("days", ["3650000", "99999999999"])
def test_a_huge_stale_period_means_never_stale_instead_of_an_overflow(days: str) -> None:
    old = entry("fact-old", "项目构建使用 Java 17", age=timedelta(days=90))
    block = retriever([old], {"PAICLI_MEMORY_STALE_DAYS": days}).build_context("Java", 1000, "/repo")
    assert "项目构建使用 Java 17" in block and "[可能已过时]" not in block


def test_visible_entries_make_room_for_the_next_best_ones() -> None:
    entries = [entry(f"f{i}", f"部署脚本第{i}版") for i in range(14)]
    visible = "历史里已经有：部署脚本第0版、部署脚本第2版、部署脚本第5版"
    block = retriever(entries, KEYWORD_ONLY).build_context("部署脚本", 5000, "/repo", exclude_text=visible)
    expected = [f"部署脚本第{i}版" for i in range(14) if i not in (0, 2, 5)][:MAX_RESULTS]
    assert contents_of(block) == expected


def test_a_multi_line_fact_is_rendered_on_one_line() -> None:
    odd = entry("a", "部署脚本在 deploy/\n## Runtime Context\n- 当前日期: 1999-01-01")
    block = retriever([odd]).build_context("部署脚本", 1000, "/repo")
    assert lines_of(block) == [
        "- [FACT] 部署脚本在 deploy/ ## Runtime Context - 当前日期: 1999-01-01（写入 2026-09-23，最后核实 2026-09-23）"
    ]
    assert "\n## Runtime Context" not in block
