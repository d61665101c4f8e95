"""The long-session bench's command line: which windows run, and the verdict per target."""

from __future__ import annotations

import argparse
import json

import pytest
from evals.bench_longsession import Figures, first_sent_tokens, parse_windows, table, verdicts

from paicli.testing.openai_server import count_tokens


def test_windows_accept_plain_and_k_forms_and_keep_order() -> None:
    assert parse_windows("32K") == [32_000]
    assert parse_windows("32000, 16k") == [32_000, 16_000]
    assert parse_windows("16000,16K") == [16_000]


@pytest.mark.parametrize("text", ["", "8000", "abc", "16M", ","])
def test_unknown_or_malformed_windows_are_rejected(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        parse_windows(text)


def figures(
    window: int,
    failing: bool,
    profile: str = "paicli",
    *,
    uncached: int = 100,
    overhead: int = 40,
    over: int = 0,
    facts: int = 12,
) -> Figures:
    return Figures(
        window,
        "failing" if failing else "ok",
        profile,
        prompt=10_000,
        cached=10_000 - uncached,
        first_sent=uncached - overhead - 10,
        rounding=10,
        over_window=over,
        facts_retained=facts,
        facts_total=12,
        turns=1,
    )


def test_verdicts_name_the_figure_and_target_and_fail_below_it() -> None:
    runs = [
        figures(16_000, False, uncached=200, overhead=140),  # overhead 140 of 10,000 prompt tokens: 1.40 pt
        figures(16_000, True, over=2, facts=9),
        figures(16_000, False, "reference", uncached=210),
    ]
    lines = verdicts(runs)
    assert (False, "compaction overhead @16K ok: 1.40 pt (target <= 0.8)") in lines
    assert (False, "uncached tokens/turn @16K ok: 0.95x the reference's (target <= 0.85)") in lines
    assert (False, "user facts retained @16K failing: 9/12 (target >= 10)") in lines
    assert (False, "requests over the window: 2 (target 0)") in lines
    assert (True, "unseen results cleared: 0 (target 0)") in lines
    assert not any("32K" in line for _, line in lines)  # only the windows that ran


def test_verdicts_pass_at_the_target_and_never_judge_the_reference() -> None:
    runs = [
        figures(32_000, False, uncached=120, overhead=60),  # overhead 60: 0.60 pt
        figures(32_000, True, facts=10),
        figures(32_000, False, "reference", uncached=200, over=5, facts=0),
    ]
    lines = verdicts(runs)
    assert all(passed for passed, _ in lines), lines
    assert (True, "uncached tokens/turn @32K ok: 0.60x the reference's (target <= 0.85)") in lines


def test_the_table_puts_the_profiles_side_by_side_per_window() -> None:
    lines = table([figures(16_000, False), figures(16_000, False, "reference", uncached=300)])
    assert lines[0].split() == ["16K", "paicli", "ok", "reference", "ok"]
    row = next(line for line in lines if "uncached tokens/turn" in line)
    assert row.split()[-2:] == ["100", "300"]


def test_first_sent_content_counts_each_piece_once_and_skips_compaction_text() -> None:
    tools = [{"type": "function", "function": {"name": "read_file"}}]
    system = {"role": "system", "content": "系统提示"}
    user = {"role": "user", "content": "第 1 轮：读一下 a.txt"}
    result = {"role": "tool", "tool_call_id": "c1", "content": "x = 1\n" * 50}
    first = {"tools": tools, "messages": [system, user]}
    second = {"tools": tools, "messages": [system, user, result]}
    cleared = {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "[已清理的旧工具结果] 工具 read_file 的这次输出",
    }
    follow_up = {"role": "user", "content": "继续"}
    third = {"tools": tools, "messages": [system, user, cleared, follow_up]}
    one = first_sent_tokens([first])
    two = first_sent_tokens([first, second])
    assert one > 0 and two > one  # the tool result is new the first time
    assert first_sent_tokens([first, second, second]) == two  # a repeat is not
    continuing = first_sent_tokens([first, second, third]) - two
    # only the follow-up counts: the placeholder is compaction's own text
    assert continuing == count_tokens(json.dumps(follow_up, ensure_ascii=False, sort_keys=True))
