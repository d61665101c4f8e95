from __future__ import annotations

import pytest

from paicli.cli.backend import StatusSnapshot
from paicli.cli.statusbar import format_tokens, format_window, status_line


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
