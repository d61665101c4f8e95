from __future__ import annotations

import pytest

from paicli.cli.backend import StatusSnapshot
from paicli.cli.statusbar import format_elapsed, format_tokens, format_window, status_line


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "0"),
        (999, "999"),
        (1000, "1.0k"),
        (12_345, "12.3k"),
        (999_999, "1000.0k"),
        (1_000_000, "1.0M"),
        (2_350_000, "2.4M"),
    ],
)
def test_format_tokens_follows_the_reference(count: int, text: str) -> None:
    assert format_tokens(count) == text


@pytest.mark.parametrize(
    ("count", "text"), [(128_000, "128k"), (1_000_000, "1M"), (131_072, "131.1k"), (8000, "8k")]
)
def test_round_windows_are_short(count: int, text: str) -> None:
    assert format_window(count) == text


def test_status_line_layout() -> None:
    snapshot = StatusSnapshot("deepseek-flash", 12_300, 128_000, 45_100, 3_200, 30_000, "auto")
    assert status_line(snapshot) == (
        "deepseek-flash · ctx ~12.3k/128k (9.6%) · in 45.1k out 3.2k cached 30.0k (67% hit) · auto"
    )


def test_status_line_shows_a_busy_phase_and_survives_zeroes() -> None:
    snapshot = StatusSnapshot("m", 0, 0, 0, 0, 0, "plan", phase="compacting")
    assert status_line(snapshot) == "m · ctx ~0/0 (0.0%) · in 0 out 0 cached 0 (0% hit) · plan · compacting"


def test_a_narrow_terminal_drops_token_figures_before_the_mode() -> None:
    snapshot = StatusSnapshot(
        "deepseek-flash", 12_300, 128_000, 45_100, 3_200, 30_000, "ask hitl", phase="running"
    )
    full = status_line(snapshot)
    assert status_line(snapshot, len(full)) == full
    assert (
        status_line(snapshot, 80)
        == "deepseek-flash · ctx ~12.3k/128k (9.6%) · in 45.1k out 3.2k · ask hitl · running"
    )
    assert status_line(snapshot, 60) == "deepseek-flash · ctx ~12.3k/128k (9.6%) · ask hitl · running"
    assert status_line(snapshot, 40) == "ctx ~12.3k/128k (9.6%) · ask hitl · running"
    assert (
        status_line(snapshot, 10) == "ctx ~12.3k/128k (9.6%) · ask hitl · running"
    )  # nothing shorter to offer


def test_a_calibrated_figure_has_no_estimate_mark() -> None:
    snapshot = StatusSnapshot("m", 12_300, 128_000, 0, 0, 0, "auto", context_source="calibrated")
    assert status_line(snapshot).startswith("m · ctx 12.3k/128k (9.6%)")


def test_a_figure_compaction_acts_on_before_the_next_send_reads_no_share_over_the_window() -> None:
    over = StatusSnapshot("m", 17_100, 16_000, 0, 0, 0, "auto", context_source="calibrated")
    due = StatusSnapshot(
        "m", 17_100, 16_000, 0, 0, 0, "auto", context_source="calibrated", compaction_due="compact"
    )
    manual = StatusSnapshot("m", 17_100, 16_000, 0, 0, 0, "auto", compaction_due="manual")
    assert status_line(over).startswith("m · ctx 17.1k/16k (100.0%)")  # never more than the window
    assert status_line(due).startswith("m · ctx 17.1k/16k (发送前压缩) · ")
    assert status_line(manual).startswith("m · ctx ~17.1k/16k (超出窗口，需 /compact) · ")
    assert status_line(due, 30) == "ctx 17.1k/16k (发送前压缩) · auto"  # kept on a narrow terminal


@pytest.mark.parametrize(("seconds", "text"), [(0, "0s"), (42, "42s"), (303, "5m03s"), (3900, "1h05m")])
def test_elapsed_time_is_short(seconds: int, text: str) -> None:
    assert format_elapsed(seconds) == text


def test_the_spec_fields_mcp_skills_elapsed_and_cost_are_shown_and_dropped_first_when_narrow() -> None:
    from paicli.llm.spend import Spend

    snapshot = StatusSnapshot(
        "m",
        1000,
        8000,
        2000,
        100,
        0,
        "ask · hitl",
        spend=Spend((("CNY", 0.0123),), 2),
        elapsed_seconds=65,
        mcp=(1, 2),
        skills=(3, 4),
    )
    full = status_line(snapshot)
    assert full == (
        "m · ctx ~1.0k/8k (12.5%) · in 2.0k out 100 cached 0 (0% hit) · ¥0.0123 · MCP 1/2 · Skill 3/4 · 1m05s · ask · hitl"
    )
    narrower = status_line(snapshot, len(full) - 1)
    assert "MCP" not in narrower and "Skill" not in narrower and narrower.endswith("¥0.0123 · ask · hitl")
